// Recording a placement with the platform (connect-workbook, PUT …/refresh) and the local record that
// follows it; the report's upsert before a first placement; the write journal's small steps.
import { isPlaceholderPublicId, type Report } from "../api/index.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import type { Area, SheetPort, SheetRef } from "../host/port.ts";
import { platformAddress, type SyncContext } from "./context.ts";
import type { Session } from "./session.ts";
import { updatePlacement, type LocalPlacement, type PendingWrite } from "./state.ts";
import { upsertReport, type UpsertOutcome } from "./upsert.ts";

/** Journal how far the pending write got (state.ts). */
export async function journal(port: SheetPort, key: string, change: Partial<PendingWrite>): Promise<void> {
  await updatePlacement(port, key, (x) => (x.pending ? { ...x, pending: { ...x.pending, ...change } } : x));
}

/**
 * Create or upsert the report under a client-chosen publicId (its own, or a new one after a 409
 * without code). A report the caller can read but not edit, with a real publicId, is used as it
 * is: an upsert needs edit access and would change nothing.
 */
export async function ensureReport(ctx: SyncContext, report: Report, signal?: AbortSignal): Promise<UpsertOutcome> {
  if (report.canEdit === false && !isPlaceholderPublicId(report.publicId)) return { report, publicId: report.publicId, notices: [] };
  return upsertReport(
    ctx.platform,
    ctx.deploymentId,
    report.publicId,
    {
      name: report.name,
      title: report.title,
      ...(report.jsonQuery ? { jsonQuery: report.jsonQuery } : {}),
      ...(report.sqlQuery ? { sqlQuery: report.sqlQuery } : {}),
      ...(report.pivotItems ? { pivotItems: report.pivotItems } : {}),
      source: ctx.port.host,
    },
    { ...(signal ? { signal } : {}), ...(ctx.newPublicId ? { newPublicId: ctx.newPublicId } : {}) },
  );
}

/** connect-workbook for a placement just written; then commit its fingerprint. */
export async function connectNewPlacement(
  ctx: SyncContext,
  port: SheetPort,
  local: LocalPlacement,
  fp: ResultChecksum,
  area: Area,
  sheet: SheetRef,
  signal?: AbortSignal,
): Promise<string> {
  const { platform, deploymentId } = ctx;
  const identity = await port.identity();
  const addr = platformAddress(sheet.name, area);
  const connected = await platform.connectWorkbook(
    deploymentId,
    local.reportId,
    {
      externalWorkbookId: identity.workbookId,
      sheetId: sheet.id,
      sheetName: sheet.name,
      workbookName: identity.name,
      host: port.host,
      resultChecksum: fp,
      ...addr,
    },
    signal,
  );
  const placementId = findPlacementId(connected, identity.workbookId, sheet.id, addr.anchorCell);
  await updatePlacement(port, local.key, (p) => ({
    ...p,
    placementId,
    committed: fp,
    source: p.pending?.source ?? null,
    pending: null,
    shape: { rows: area.rows, cols: area.cols },
    sheetId: sheet.id,
    sheetName: sheet.name,
    anchorCell: addr.anchorCell,
  }));
  return placementId;
}

/** PUT .../refresh, then commit the fingerprint locally (queued on the session: the caller sends it). */
export async function recordRefresh(
  ctx: SyncContext,
  s: Session,
  p: LocalPlacement,
  checksum: ResultChecksum,
  source: string,
  area: Area,
  sheet: SheetRef,
  signal: AbortSignal | undefined,
  editsKept: boolean,
): Promise<void> {
  // A first placement interrupted before its record (resumed by this refresh): connect it now.
  if (!p.placementId) {
    await connectNewPlacement(ctx, s, p, checksum, area, sheet, signal);
    if (editsKept) await updatePlacement(s, p.key, (x) => ({ ...x, editsKept }));
    return;
  }
  const addr = platformAddress(sheet.name, area);
  await ctx.platform.refreshReport(
    p.deploymentId,
    p.reportId,
    { placementId: p.placementId, resultChecksum: checksum, sheetId: sheet.id, sheetName: sheet.name, ...addr },
    signal,
  );
  await updatePlacement(s, p.key, (x) => ({
    ...x,
    committed: checksum,
    source,
    pending: null,
    shape: { rows: area.rows, cols: area.cols },
    sheetId: sheet.id,
    sheetName: sheet.name,
    anchorCell: addr.anchorCell,
    editsKept,
  }));
}

export function findPlacementId(report: Report, workbookId: string, sheetId: string, anchorCell: string): string {
  const match = (report.externalWorkbookPlacements ?? []).filter(
    (x) => x.workbookId === workbookId && x.sheetId === sheetId && x.anchorCell.replace(/\$/g, "").toUpperCase() === anchorCell,
  );
  const p = match[match.length - 1];
  if (!p) throw new Error("The platform did not return the new placement after connect-workbook.");
  return p.id;
}
