// The save of one worksheet part, as bytes (issue 35 §3).
//
// The plan: the rows are found in the inflated part (scan.ts rowsIn, no cell is read), and only the
// rows the model may have changed — a SheetStore's dirty rows, or every row when the model is a plain
// Map built whole — are read and compared cell by cell with the model (sheet.ts rewriteRow: a cell that
// shows the same value and format keeps its bytes); rows before the first changed one are not even
// looked at (scan.ts seekRow). A plan with no edit leaves the part as it is. The new part is deflated
// as it is produced (zip.ts PartDeflater), in groups that start with a row, and never held whole.
//
// A part this port deflated keeps its groups in its zip entry: the next save of it (rewriteGrouped)
// inflates, plans and deflates only the groups that hold a row it changes, and copies the other groups'
// compressed bytes as they are — a refresh that changes the last 1 % of a large placement costs a few
// MiB of zlib work instead of the whole part.
import { rowsIn, seekRow, sheetDataIn, type SheetDataSpan } from "./scan.ts";
import { frozenRowsOf, newRowXml, rewriteRow, withDimension, withFrozenRows, type ModelCells } from "./sheet.ts";
import { SheetStore } from "./store.ts";
import type { Styles } from "./styles.ts";
import { findElement, mainPrefix, withPrefix } from "./xml.ts";
import { PartDeflater, type Deflated, type ZipEntry, type ZipReader } from "./zip.ts";
import { constants, inflateRawSync } from "node:zlib";

export interface SheetEdit {
  sst: readonly string[];
  styles: Styles;
  date1904: boolean;
  /** Frozen rows the model shows (the file's are read from the part). */
  frozenRows: number;
  /** Cells that hold a formula (tables' calculated columns, issue 33), per row. */
  formulas?: (row: number) => ReadonlyMap<number, string> | undefined;
  /** Rows to compare with the file besides the model's changed ones (those with formulas to write). */
  formulaRows?: readonly number[];
}

/** Byte ranges replaced by text, in order (an insertion has start === end); `row`: the row the text starts with. */
type Edit = { start: number; end: number; text: string; row?: number };

export interface SheetPlan {
  /** The part to write (the original with <sheetData> opened when it had none). */
  buf: Buffer;
  span: SheetDataSpan;
  edits: Edit[];
  changed: boolean;
  formulaReplaced: boolean;
  cellsWritten: number;
}

/** A part without <sheetData>, or with <sheetData/>, opened so rows can go inside (a small part: a new sheet). */
function opened(buf: Buffer): { buf: Buffer; span: SheetDataSpan } {
  const found = sheetDataIn(buf);
  if (found && found.inner !== found.end) return { buf, span: found };
  let xml = buf.toString("utf8");
  const px = (s: string) => withPrefix(s, mainPrefix(xml));
  if (found)
    xml = `${buf.subarray(0, found.start).toString("utf8")}${px("<sheetData></sheetData>")}${buf.subarray(found.end).toString("utf8")}`;
  else {
    const ws = findElement(xml, "worksheet");
    if (!ws) throw new Error("a worksheet part has no <worksheet>");
    xml = `${xml.slice(0, ws.innerEnd)}${px("<sheetData></sheetData>")}${xml.slice(ws.innerEnd)}`;
  }
  const out = Buffer.from(xml, "utf8");
  return { buf: out, span: sheetDataIn(out)! };
}

/** The model's rows to compare with the file, ascending; all: every file row is compared too (a plain Map built whole). */
function rowsToCompare(model: ModelCells, more: readonly number[] = []): { rows: number[]; all: boolean } {
  const all = !(model instanceof SheetStore);
  const rows = new Set([...(model instanceof SheetStore ? model.dirty : model.keys()), ...more]);
  return { rows: [...rows].sort((a, b) => a - b), all };
}

const wantOf = (model: ModelCells, r: number) => (model instanceof SheetStore ? model.rowForSave(r) : model.get(r));

interface RowsPlan {
  edits: Edit[];
  formulaReplaced: boolean;
  cellsWritten: number;
}

/**
 * The edits of the rows in buf[span.inner, span.innerEnd): the rows of `rows` the file has are compared
 * with the model (every row when `all`), the others inserted in order, those past the last row at the end.
 */
function planRows(buf: Buffer, span: SheetDataSpan, rows: readonly number[], all: boolean, model: ModelCells, edit: SheetEdit): RowsPlan {
  const out: RowsPlan = { edits: [], formulaReplaced: false, cellsWritten: 0 };
  let ri = 0;
  // New rows go in as insertions of about 64 KiB each, so the deflate can start a group between them.
  const insert = (at: number, below: number) => {
    let text = "";
    let first = -1;
    for (; ri < rows.length && rows[ri]! < below; ri++) {
      const r = newRowXml(rows[ri]!, wantOf(model, rows[ri]!), edit, span.p);
      if (!r.xml) continue;
      if (!text) first = rows[ri]!;
      text += r.xml;
      out.cellsWritten += r.cellsWritten;
      if (text.length < 65_536) continue;
      out.edits.push({ start: at, end: at, text, row: first });
      text = "";
    }
    if (text) out.edits.push({ start: at, end: at, text, row: first });
  };
  // Rows before the first the model changed keep their bytes: they are not even looked at.
  const start = all || rows.length === 0 ? { from: span.inner, before: -1 } : seekRow(buf, span, rows[0]!);
  const last = all ? Infinity : (rows.at(-1) ?? -1);
  let end = span.innerEnd;
  for (const row of rowsIn(buf, span, start.from, start.before)) {
    if (row.row > last) {
      end = row.start;
      break;
    }
    insert(row.start, row.row);
    if (ri < rows.length && rows[ri] === row.row) ri++;
    else if (!all) continue;
    const r = rewriteRow(buf.toString("utf8", row.start, row.end), row.row, wantOf(model, row.row), edit, span.p);
    if (!r) continue;
    out.edits.push({ start: row.start, end: row.end, text: r.xml, row: row.row });
    out.cellsWritten += r.cellsWritten;
    out.formulaReplaced ||= r.formulaReplaced;
  }
  insert(end, Infinity);
  return out;
}

/** What the save changes in a sheet part: the rows that differ, new rows, the dimension and the frozen pane. */
export function planSheet(part: Buffer, model: ModelCells, edit: SheetEdit): SheetPlan {
  const { buf, span } = opened(part);
  const { rows, all } = rowsToCompare(model, edit.formulaRows);
  const planned = planRows(buf, span, rows, all, model, edit);
  const edits = planned.edits;
  let changed = edits.length > 0;
  const prefixWas = buf.toString("utf8", 0, span.inner);
  const prefix = prefixOf(prefixWas, changed, model, edit, span.p);
  if (prefix !== prefixWas) {
    edits.unshift({ start: 0, end: span.inner, text: prefix });
    changed = true;
  }
  // Everything after </sheetData> stays: merged cells, conditional formats, validation, drawings…
  return { buf, span, edits, changed, formulaReplaced: planned.formulaReplaced, cellsWritten: planned.cellsWritten };
}

/** The part's text before <sheetData> with the dimension grown (when cells changed) and the frozen pane the model shows. */
function prefixOf(prefix: string, cellsChanged: boolean, model: ModelCells, edit: SheetEdit, p: string): string {
  let out = prefix;
  if (cellsChanged) out = withDimension(out, boundsOf(model), p);
  if (edit.frozenRows !== frozenRowsOf(prefix)) out = withFrozenRows(out, edit.frozenRows, p);
  return out;
}

/** How large a group of a deflated sheet part grows before a row starts the next (tests make it small). */
export const GROUPS = { bytes: 4 << 20 };

/** The new part, deflated as it comes, in groups that start with a row (about `groupBytes` each). */
export function deflatePlan(plan: SheetPlan, groupBytes = GROUPS.bytes): Deflated {
  const d = new PartDeflater(groupBytes);
  const open = Buffer.from(`<${plan.span.p}row`);
  const rowAt = (at: number): number | undefined => {
    const r = /^<(?:\w+:)?row\b[^>]*?\sr="(\d+)"/.exec(plan.buf.toString("latin1", at, Math.min(at + 200, plan.buf.length)))?.[1];
    return r === undefined ? undefined : Number(r) - 1;
  };
  // The original's bytes from `from` to `to`, cut where a row starts about every groupBytes (and at the first row).
  // The first row always starts a group: the first group is the part's beginning alone (rewriteGrouped).
  const original = (from: number, to: number) => {
    let s = from;
    let target = from <= plan.span.inner ? plan.span.inner : from + groupBytes;
    while (s < to) {
      const cut = target < to ? plan.buf.indexOf(open, target) : -1;
      if (cut < 0 || cut >= to) {
        d.push(plan.buf.subarray(s, to), rowAt(s));
        return;
      }
      d.push(plan.buf.subarray(s, cut), rowAt(s));
      s = cut;
      target = cut + groupBytes;
    }
  };
  let at = 0;
  for (const e of plan.edits) {
    original(at, e.start);
    d.push(Buffer.from(e.text, "utf8"), e.row);
    at = e.end;
  }
  original(at, plan.buf.length);
  return d.finish();
}

/** The new part as pieces (for a part that is edited again before it is written: pictures). */
export function planPieces(plan: SheetPlan): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const e of plan.edits) {
    out.push(plan.buf.subarray(at, e.start), Buffer.from(e.text, "utf8"));
    at = e.end;
  }
  out.push(plan.buf.subarray(at));
  return out;
}

/**
 * The save of a part this port deflated before (its entry has groups): only the groups holding a row
 * the model changed, and the first group when the dimension or the frozen pane change, are inflated,
 * planned and deflated again; the others are copied compressed. null when nothing changes; undefined
 * when the groups do not have the shape this needs (the caller plans the whole part).
 */
export function rewriteGrouped(
  zip: ZipReader,
  entry: ZipEntry,
  model: SheetStore,
  edit: SheetEdit,
): { deflated: Deflated; formulaReplaced: boolean; cellsWritten: number } | null | undefined {
  const groups = entry.groups!;
  const rowGroups = groups.map((g, i) => (g.row >= 0 ? i : -1)).filter((i) => i > 0);
  if (groups[0]!.row !== -1 || rowGroups.length === 0) return undefined;
  const data = zip.compressed(entry);
  const offsets = groups.reduce<number[]>((acc, g) => [...acc, acc.at(-1)! + g.compressedSize], [0]);
  const compressedOf = (i: number) => data.subarray(offsets[i]!, offsets[i + 1]!);
  const inflate = (i: number) =>
    inflateRawSync(compressedOf(i), { finishFlush: constants.Z_SYNC_FLUSH, chunkSize: Math.max(64, groups[i]!.size + 1) });
  const prefixText = inflate(0).toString("utf8");
  // The first group must be the part's beginning up to <sheetData> and no further (no row in it).
  if (!/<(?:\w+:)?sheetData\b[^>]*>\s*$/.test(prefixText)) return undefined;
  const p = mainPrefix(prefixText);
  // Which group each dirty row belongs to: the last whose first row is not above it (the first row group for rows before all).
  const rows = rowsToCompare(model, edit.formulaRows).rows;
  const byGroup = new Map<number, number[]>();
  for (const r of rows) {
    let g = rowGroups[0]!;
    for (const i of rowGroups) if (groups[i]!.row <= r) g = i;
    byGroup.set(g, [...(byGroup.get(g) ?? []), r]);
  }
  const d = new PartDeflater(GROUPS.bytes);
  const out = { formulaReplaced: false, cellsWritten: 0 };
  const planned = new Map<number, { buf: Buffer; edits: Edit[] }>();
  for (const [i, groupRows] of byGroup) {
    const buf = inflate(i);
    const last = i === groups.length - 1;
    const close = last ? buf.indexOf(`</${p}sheetData>`) : buf.length;
    if (close < 0) return undefined;
    const span: SheetDataSpan = { p, start: 0, inner: 0, innerEnd: close, end: close };
    const r = planRows(buf, span, groupRows, false, model, edit);
    out.formulaReplaced ||= r.formulaReplaced;
    out.cellsWritten += r.cellsWritten;
    if (r.edits.length) planned.set(i, { buf, edits: r.edits });
  }
  const prefix = prefixOf(prefixText, planned.size > 0, model, edit, p);
  if (planned.size === 0 && prefix === prefixText) return null;
  groups.forEach((g, i) => {
    const plan =
      i === 0
        ? prefix === prefixText
          ? null
          : { buf: Buffer.from(prefixText), edits: [{ start: 0, end: prefixText.length, text: prefix }] }
        : planned.get(i);
    if (!plan) return d.pushGroup(compressedOf(i), g);
    // Each piece says the row it starts with, so every group written starts with its first row's number.
    const first = (at: number) => (i > 0 && at === 0 ? g.row : undefined);
    let at = 0;
    for (const e of plan.edits) {
      d.push(plan.buf.subarray(at, e.start), first(at));
      d.push(Buffer.from(e.text, "utf8"), e.row);
      at = e.end;
    }
    d.push(plan.buf.subarray(at), first(at));
  });
  return { deflated: d.finish(), ...out };
}

function boundsOf(model: ModelCells): { r0: number; r1: number; c0: number; c1: number } | null {
  if (model instanceof SheetStore) return model.bounds();
  let [r0, r1, c0, c1] = [Infinity, -1, Infinity, -1];
  for (const [r, cells] of model) {
    if (cells.size === 0) continue;
    r0 = Math.min(r0, r);
    r1 = Math.max(r1, r);
    for (const c of cells.keys()) {
      c0 = Math.min(c0, c);
      c1 = Math.max(c1, c);
    }
  }
  return r1 < 0 ? null : { r0, r1, c0, c1 };
}
