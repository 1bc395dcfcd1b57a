// Disconnect a placement: read → platform → write (docs/SYNC.md "Disconnect").
//
//   read   one snapshot: the placement's record and where it is;
//   the platform forgets it (DELETE …/connect-workbook; a 404 for a placement it no longer lists is done);
//   write  its cells cleared when asked (a table placement's table converted to a range first: an emptied
//          table would keep its place with headers Excel names Column1…), its name, record and style removed
//          (one commit each step, so that a failed clear still stops the tracking: the platform no longer has it).
import { NotFoundError } from "../api/index.ts";
import { areaA1 } from "../host/a1.ts";
import type { TrackedArea } from "../host/port.ts";
import { ViewOnly } from "./errors.ts";
import { viewOnlyReason } from "./access.ts";
import type { Session } from "./session.ts";
import { updatePlacement, type LocalPlacement } from "./state.ts";
import { forgetRowPrints } from "./rows.ts";
import { forgetStyle } from "./styling.ts";
import type { Engine } from "./types.ts";
import { untrackInputs } from "./bind.ts";

/**
 * DELETE .../connect-workbook for one placement; the cells stay unless `clear`; the name goes.
 * Idempotent: a report or placement already gone on the platform (404) still loses its local record.
 */
export async function disconnect(e: Engine, key: string, o: { clear?: boolean; signal?: AbortSignal } = {}): Promise<void> {
  await e.exclusive(async () => {
    // Issue 33: a table placement cleared loses its table too; the session reads the workbook's tables then.
    const s = await e.session({ ...(o.clear ? { tables: true } : {}), ...(o.signal ? { signal: o.signal } : {}) });
    const p = await e.placement(key, s);
    if (e.viewOnly(p.deploymentId)) throw new ViewOnly(viewOnlyReason().replace("not refresh it", "not disconnect it"));
    await forgetOnPlatform(e, s, p, o.signal);
    const t = (await s.tracked()).find((x) => x.name.toLowerCase() === p.name.toLowerCase());
    const clearFailed = o.clear && t?.area ? await clearCells(s, t, ownTable(s, p, t), o.signal) : null;
    // The platform no longer has this placement: the workbook stops tracking it even when clearing failed
    // (a record kept here would point at nothing, and every refresh of it would fail).
    if (t) await s.untrack(p.name);
    await untrackInputs(s, p); // issue 32
    await updatePlacement(s, key, () => null);
    await forgetStyle(s, key);
    await forgetRowPrints(s, key);
    await s.flush(o.signal);
    e.lastWritten.delete(key);
    if (clearFailed) {
      const why = clearFailed instanceof Error ? clearFailed.message : String(clearFailed);
      throw new Error(
        `“${p.reportName}” is disconnected, but its cells at ${p.sheetName}!${t?.area ? areaA1(t.area) : p.anchorCell} could not all be cleared (${why}). They are plain values now: clear them by hand if you do not want them.`,
        { cause: clearFailed },
      );
    }
  }, o.signal);
}

/** The platform forgets the placement; a 404 is done only when the platform no longer lists it (else: not ours to see). */
async function forgetOnPlatform(e: Engine, s: Session, p: LocalPlacement, signal?: AbortSignal): Promise<void> {
  if (!p.placementId) return;
  try {
    await e.ctx.platform.disconnectWorkbook(p.deploymentId, p.reportId, { placementId: p.placementId }, signal);
  } catch (err) {
    if (!(err instanceof NotFoundError) || (await stillListed(e, p.placementId, (await s.identity()).workbookId, signal))) throw err;
  }
}

/**
 * A table placement's table as the workbook has it: by its recorded name, else the table whose header row lies in
 * the placement's first column (renamed by the person). Null: not a table placement, or no longer there.
 */
function ownTable(s: Session, p: LocalPlacement, t: TrackedArea): string | null {
  if (!p.table || !t.area) return null;
  const a = t.area;
  const found =
    s.tables?.find((x) => x.name.toLowerCase() === p.table!.name.toLowerCase()) ??
    s.tables?.find((x) => x.area.sheetId === a.sheetId && x.area.col === a.col && x.area.row >= a.row && x.area.row < a.row + a.rows);
  return found?.name ?? null;
}

/** Clear the placement's cells, its table converted to a range first (their own commit); what failed, or null. */
async function clearCells(s: Session, t: TrackedArea, table: string | null, signal?: AbortSignal): Promise<unknown> {
  try {
    if (table) await s.commit([{ kind: "untable", table }]);
    await s.clear(t.area!);
    await s.flush(signal);
    return null;
  } catch (err) {
    return err;
  }
}

/** Does the platform still list this placement for the workbook (GRANTED or DENIED)? */
async function stillListed(e: Engine, placementId: string, workbookId: string, signal?: AbortSignal): Promise<boolean> {
  for await (const x of e.ctx.platform.iterateExternalPlacements(workbookId, {}, signal)) if (x.placementId === placementId) return true;
  return false;
}
