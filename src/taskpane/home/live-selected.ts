// What is under the Excel selection, for the panes that ask (comments, chat, dashboard): the
// placement the selected cell is in, the cell itself with its placement column, and the dashboard
// picture put at the selection. Module functions over the workbook (port) and the engine on it.
import { areaA1 } from "../../host/a1";
import type { Area, SheetPort, SheetValue, TrackedArea } from "../../host/port";
import { groupingKeys, parseJsonQuery, type LocalPlacement, type SyncEngine } from "../../sync";
import type { SelectedCell, SelectedPlacement } from "../types";

/** The first placement whose cells hold `at` (top-left of the selection), with its tracked range and area. */
function placementAt(at: Area, tracked: TrackedArea[], placements: LocalPlacement[]) {
  for (const p of placements) {
    const t = tracked.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
    const a = t?.area;
    if (
      a &&
      t.sheet &&
      a.sheetId === at.sheetId &&
      at.row >= a.row &&
      at.row < a.row + a.rows &&
      at.col >= a.col &&
      at.col < a.col + a.cols
    ) {
      return { p, sheetName: t.sheet.name, a };
    }
  }
  return null;
}

export async function selectedPlacement(port: SheetPort, engine: SyncEngine): Promise<SelectedPlacement | null> {
  const [{ area: at }, tracked, placements] = await Promise.all([port.selection(), port.tracked(), engine.placements()]);
  const found = placementAt(at, tracked, placements);
  if (!found) return null;
  const { p, sheetName, a } = found;
  return { deploymentId: p.deploymentId, reportId: p.reportId, reportName: p.reportName, range: `${sheetName}!${areaA1(a)}` };
}

export async function selectedCell(port: SheetPort, engine: SyncEngine, signal?: AbortSignal): Promise<SelectedCell> {
  const { sheet, area: at } = await port.selection();
  const one = { sheetId: at.sheetId, row: at.row, col: at.col, rows: 1, cols: 1 };
  let value: SheetValue = "";
  for await (const block of port.read(one, signal ? { signal } : {})) value = block[0]?.[0] ?? "";
  const address = `${sheet.name}!${areaA1(one)}`;
  const [tracked, placements] = await Promise.all([port.tracked(), engine.placements()]);
  const found = placementAt(at, tracked, placements);
  if (!found) return { address, value, placement: null };
  const { p, sheetName, a } = found;
  const report = await engine.report(p.reportId, signal);
  const q = parseJsonQuery(report.jsonQuery ?? "{}");
  const pivot = (report.pivotItems?.columns?.length ?? 0) > 0;
  const dims = groupingKeys(q);
  const keys = [...dims, ...(q.measures ?? [])];
  const key = pivot ? ((report.pivotItems?.rows ?? [])[at.col - a.col] ?? null) : (keys[at.col - a.col] ?? null);
  const base = {
    deploymentId: p.deploymentId,
    reportId: p.reportId,
    reportName: p.reportName,
    range: `${sheetName}!${areaA1(a)}`,
  };
  // The column's title as the sheet shows it: its header cell (the first row of the placement).
  let columnTitle: string | null = null;
  for await (const block of port.read({ sheetId: a.sheetId, row: a.row, col: at.col, rows: 1, cols: 1 }, signal ? { signal } : {})) {
    const h = block[0]?.[0];
    if (typeof h === "string" && h.trim()) columnTitle = h.trim();
  }
  return {
    address,
    value,
    placement: { ...base, columnKey: key, columnTitle, measure: key !== null && !dims.includes(key), header: at.row === a.row, pivot },
  };
}

/** The dashboard picture: put at the selection, or replaced in place. */
export async function putPicture(port: SheetPort, name: string, base64: string, atSelection: boolean) {
  const { sheet, area } = await port.selection();
  const r = await port.putPicture(name, base64, atSelection ? { sheetId: area.sheetId, row: area.row, col: area.col } : undefined);
  return { ...r, address: `${sheet.name}!${areaA1({ ...area, rows: 1, cols: 1 })}` };
}

export async function activeSheetPictures(port: SheetPort): Promise<string[]> {
  const { sheet } = await port.selection();
  return (await port.pictures(sheet.id)).map((p) => p.name);
}
