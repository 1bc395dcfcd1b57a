// Ask about the selection, the workbook side (issue 23): which placement the selection is in, the
// context of the selected cells (the report's query, each cell's row and column members and value),
// and the first free area beside a placement for "Place beside". Uses only the SheetPort and the
// sync engine's public functions (placements, report). Never sends a value the user could not read:
// only cells inside a placement of the current deployment whose report the platform lets the user
// read (engine.report answers 404 otherwise), never cells outside the placement, at most 50.
import { areaA1 } from "../../host/a1";
import type { Area, SheetPort, SheetValue } from "../../host/port";
import { groupingKeys, parseJsonQuery, type SyncEngine } from "../../sync";
import { describeFilter, MAX_ASKED_CELLS, type AskedCell, type SelectionRead, type SelectionState } from "./ask-selection";

export interface SelectionDeps {
  port: SheetPort;
  engine: SyncEngine;
  deploymentId: number;
  deploymentName: string | null;
  /** Names of the deployments the user can use (for "belongs to deployment X"). */
  deploymentNames?: ReadonlyMap<number, string>;
}

const OUTSIDE = "Select cells inside a placed report to ask about them (the selection is not in one).";

const contains = (a: Area, r: number, c: number) => r >= a.row && r < a.row + a.rows && c >= a.col && c < a.col + a.cols;

/** The placement under the active cell (the selection's top-left), with its current area. */
async function underSelection(d: SelectionDeps) {
  const [{ sheet, area: sel }, tracked, placements] = await Promise.all([d.port.selection(), d.port.tracked(), d.engine.placements()]);
  for (const p of placements) {
    const t = tracked.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
    if (t?.area && t.sheet && t.area.sheetId === sel.sheetId && contains(t.area, sel.row, sel.col))
      return { p, area: t.area, sheetName: t.sheet.name, sel, selSheet: sheet };
  }
  return null;
}

function otherDeployment(d: SelectionDeps, id: number): string | null {
  if (id === d.deploymentId) return null;
  const name = d.deploymentNames?.get(id);
  return `This report belongs to ${name ? `the deployment “${name}”` : "another deployment"}; the chat here answers for “${d.deploymentName ?? "this deployment"}”. Switch deployments to ask about it.`;
}

/** Cheap check for the button: inside a placement of this deployment? (The report's readability is checked on Ask.) */
export async function selectionState(d: SelectionDeps): Promise<SelectionState> {
  const u = await underSelection(d);
  if (!u) return { ok: false, reason: OUTSIDE };
  const other = otherDeployment(d, u.p.deploymentId);
  if (other) return { ok: false, reason: other };
  return { ok: true, reportName: u.p.reportName, range: `${u.sheetName}!${areaA1(u.area)}` };
}

async function readArea(port: SheetPort, area: Area, signal?: AbortSignal): Promise<SheetValue[][]> {
  const rows: SheetValue[][] = [];
  for await (const block of port.read(area, signal ? { signal } : {})) rows.push(...block);
  return rows;
}

const isLabel = (v: SheetValue) => typeof v === "string" && v !== "";

/** A date written to the sheet is an Excel serial (days since 1899-12-30): as ISO text, the way the agent reads dates. */
export function serialToIso(v: SheetValue): SheetValue {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 1 || v > 2_958_465) return v;
  const iso = new Date(Math.round((v - 25569) * 86_400_000)).toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19);
}

type Report = Awaited<ReturnType<SyncEngine["report"]>>;
type Query = ReturnType<typeof parseJsonQuery>;
type Bounds = { top: number; bottom: number; left: number; right: number };

/** The context of the selected cells (see the module comment for what is never included). */
export async function readSelectionContext(d: SelectionDeps, signal?: AbortSignal): Promise<SelectionRead> {
  const u = await underSelection(d);
  if (!u) return { ok: false, reason: OUTSIDE };
  const other = otherDeployment(d, u.p.deploymentId);
  if (other) return { ok: false, reason: other };
  const report = await readableReport(d, u.p.reportId, signal);
  if (!report) {
    return {
      ok: false,
      reason:
        "You cannot read this report on the platform (it is someone else’s or no longer shared), so Cellbound sends none of its cells.",
    };
  }
  const a = u.area;
  const cols = reportColumns(report);
  // The selected data cells, clipped to the placement (never outside it), header rows left out.
  const b: Bounds = {
    top: Math.max(u.sel.row, a.row + cols.headerRows),
    bottom: Math.min(u.sel.row + u.sel.rows, a.row + a.rows),
    left: Math.max(u.sel.col, a.col),
    right: Math.min(u.sel.col + u.sel.cols, a.col + a.cols),
  };
  if (b.top >= b.bottom || b.left >= b.right)
    return { ok: false, reason: "Select data cells of the report (not only its header) to ask about them." };
  const total = (b.bottom - b.top) * (b.right - b.left);
  const rowsToRead = Math.min(b.bottom - b.top, MAX_ASKED_CELLS);
  const header = await readArea(d.port, { sheetId: a.sheetId, row: a.row, col: a.col, rows: cols.headerRows, cols: a.cols }, signal);
  const body = await readArea(d.port, { sheetId: a.sheetId, row: b.top, col: a.col, rows: rowsToRead, cols: a.cols }, signal);
  const cells = askedCells(cols, a, b, header, body, rowsToRead);
  const selection = { sheetId: a.sheetId, row: b.top, col: b.left, rows: b.bottom - b.top, cols: b.right - b.left };
  return {
    ok: true,
    context: {
      deployment: { id: d.deploymentId, name: d.deploymentName },
      report: { id: report.id, name: report.title || report.name },
      placementRange: `${u.sheetName}!${areaA1(a)}`,
      selectionRange: `${u.sheetName}!${areaA1(selection)}`,
      query: querySent(cols.q, report),
      cells,
      omitted: total - cells.length,
      area: { sheetId: a.sheetId, row: a.row, col: a.col, rows: a.rows, cols: a.cols },
    },
  };
}

/** The placement's report, or null when the platform does not let the user read it (then none of its cells is sent). */
async function readableReport(d: SelectionDeps, reportId: number, signal?: AbortSignal): Promise<Report | null> {
  try {
    return await d.engine.report(reportId, signal);
  } catch (e) {
    if ((e as { kind?: string }).kind === "not-found" || (e as { kind?: string }).kind === "forbidden") return null;
    throw e;
  }
}

/** What the report's columns are: its query's members (or a pivot's row members), its header rows and label columns. */
function reportColumns(report: Report) {
  const pivotRows = report.pivotItems?.rows ?? [];
  const pivot = (report.pivotItems?.columns?.length ?? 0) > 0;
  const q = report.jsonQuery ? parseJsonQuery(report.jsonQuery) : null;
  const dims = q ? groupingKeys(q) : [];
  const keys = q ? [...dims, ...(q.measures ?? [])] : [];
  // Time columns (a time dimension with a granularity) hold date serials: sent as ISO dates.
  const timeKeys = new Set(dims.filter((k) => !(q?.dimensions ?? []).includes(k)));
  const keyAt = (j: number): string | null => (pivot ? (pivotRows[j] ?? null) : (keys[j] ?? null));
  const valueAt = (row: SheetValue[], j: number): SheetValue => {
    const k = keyAt(j);
    return k !== null && timeKeys.has(k) ? serialToIso(row[j] ?? "") : (row[j] ?? "");
  };
  const headerRows = pivot ? (report.pivotItems!.columns.length || 0) + 1 : 1;
  const labelCols = pivot ? pivotRows.length : dims.length;
  return { q, pivot, keys, keyAt, valueAt, headerRows, labelCols };
}

/** The selected cells (within `b`, at most MAX_ASKED_CELLS), each with its column's header and its row's members. */
function askedCells(
  cols: ReturnType<typeof reportColumns>,
  a: Area,
  b: Bounds,
  header: SheetValue[][],
  body: SheetValue[][],
  rowsToRead: number,
): AskedCell[] {
  const { q, pivot, keys, keyAt, valueAt, labelCols } = cols;
  const headerOf = (j: number) =>
    header
      .map((r) => r[j] ?? "")
      .filter((v) => v !== "")
      .map(String)
      .join(" / ");
  const cells: AskedCell[] = [];
  for (let i = 0; i < rowsToRead && cells.length < MAX_ASKED_CELLS; i++) {
    const row = body[i] ?? [];
    // Row members: the row-label columns (dimensions; a SQL report's text columns).
    const labels = q || pivot ? [...Array(labelCols).keys()] : row.map((v, j) => (isLabel(v) ? j : -1)).filter((j) => j >= 0);
    for (let c = b.left; c < b.right && cells.length < MAX_ASKED_CELLS; c++) {
      const j = c - a.col;
      cells.push({
        address: areaA1({ row: b.top + i, col: c, rows: 1, cols: 1 }),
        value: valueAt(row, j),
        column: { key: pivot ? null : (keys[j] ?? null), header: headerOf(j) },
        row: labels.filter((k) => k !== j).map((k) => ({ key: keyAt(k), header: headerOf(k), value: valueAt(row, k) })),
      });
    }
  }
  return cells;
}

/** The report's query as sent with the question: its members and filters in words, or a SQL report's SQL. */
function querySent(q: Query | null, report: Report) {
  return q
    ? {
        measures: q.measures ?? [],
        dimensions: q.dimensions ?? [],
        timeDimensions: (q.timeDimensions ?? []).map((t) => ({
          dimension: t.dimension,
          ...(t.granularity ? { granularity: t.granularity } : {}),
          ...(t.dateRange !== undefined ? { dateRange: t.dateRange as string | string[] } : {}),
        })),
        filters: (q.filters ?? []).map(describeFilter),
      }
    : { measures: [], dimensions: [], timeDimensions: [], filters: [], ...(report.sqlQuery ? { sql: report.sqlQuery } : {}) };
}

/**
 * Where "Place beside" puts a result of `rows` × `cols` next to `beside` (a placement's area): the
 * first free area to the right (one empty column between), else below (one empty row between), else
 * to the right anyway — the engine then asks before overwriting anything there. Free = every cell
 * empty and no placement overlapping.
 */
export async function freeAreaBeside(
  d: Pick<SelectionDeps, "port">,
  beside: Area,
  size: { rows: number; cols: number },
  signal?: AbortSignal,
): Promise<{ sheetId: string; row: number; col: number; free: boolean }> {
  const tracked = (await d.port.tracked()).filter((t) => t.area && t.area.sheetId === beside.sheetId).map((t) => t.area!);
  const overlaps = (x: Area, y: Area) =>
    x.row < y.row + y.rows && y.row < x.row + x.rows && x.col < y.col + y.cols && y.col < x.col + x.cols;
  const candidates: Area[] = [
    { sheetId: beside.sheetId, row: beside.row, col: beside.col + beside.cols + 1, rows: size.rows, cols: size.cols },
    { sheetId: beside.sheetId, row: beside.row + beside.rows + 1, col: beside.col, rows: size.rows, cols: size.cols },
  ];
  for (const c of candidates) {
    if (c.row + c.rows > 1_048_576 || c.col + c.cols > 16_384) continue;
    if (tracked.some((t) => overlaps(t, c))) continue;
    const values = await readArea(d.port, c, signal);
    if (values.every((r) => r.every((v) => v === ""))) return { sheetId: c.sheetId, row: c.row, col: c.col, free: true };
  }
  const first = candidates[0]!;
  return { sheetId: first.sheetId, row: first.row, col: first.col, free: false };
}
