// Excel tables in a file (issue 33): the table parts (xl/tables/tableN.xml) read into the memory
// port's model (src/host/memory/tables.ts MemTable) and written back.
//
//   readTable(xml, row/col…)  → a MemTable whose `extra` keeps the part as it was (FileTable): its name,
//                               relationship, XML, column ids and the state it showed, so a table the
//                               engine did not change keeps its part byte for byte.
//   tablePartXml(t, names…)   → the part of a changed table (the original edited: ref, autoFilter,
//                               sortState, tableColumns, style) or of a new one.
//   toFileFormula / toModelFormula: a calculated column's formula as the file holds it
//                               (Sales[[#This Row],[Amount]]*1.2) and as the model does (=[@Amount]*1.2).
//   renameInFormula           → a column's structured references renamed.
//   withTableParts(suffix…)   → a sheet part's text after </sheetData> with its <tableParts>.
import { areaA1, parseAddress } from "../a1.ts";
import { columnNames, type MemTable } from "../memory/tables.ts";
import type { SheetValue, TableRead } from "../port.ts";
import { SheetStore } from "./store.ts";
import { findElement, nextTag, setAttr, tagAttrs, withPrefix, xmlEscape, xmlUnescape } from "./xml.ts";

export const TABLE_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml";
export const TABLE_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/table";
const NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

/** What the file port keeps of a table part in MemTable.extra. */
export interface FileTable {
  part: string;
  rid: string;
  /** The part's text as the package holds it. */
  xml: string;
  /** The table's id attribute. */
  id: number;
  /** Per current column: the id of its <tableColumn> in the part, null for a column added since. */
  ids: Array<number | null>;
  /** The table's state as the part shows it (stateKey), to tell an untouched table. */
  base: string;
}

export function fileTableOf(t: MemTable): FileTable | null {
  const x = t.extra as Partial<FileTable> | undefined;
  return x && typeof x.part === "string" && Array.isArray(x.ids) ? (x as FileTable) : null;
}

/** The state a part must show: what the model holds of the table and its columns' names. */
export function stateKey(t: MemTable, columns: readonly string[], ids: ReadonlyArray<number | null>): string {
  const { name, row, col, rows, cols, style, formulas, totals, sort, filtered } = t;
  return JSON.stringify([name, row, col, rows, cols, style, formulas, totals, sort, filtered, columns, ids]);
}

function rectOf(ref: string | undefined): { row: number; col: number; rows: number; cols: number } | null {
  try {
    const a = parseAddress(ref ?? "");
    return { row: a.row, col: a.col, rows: a.rows, cols: a.cols };
  } catch {
    return null;
  }
}

function openTagAt(xml: string, el: { start: number }): { raw: string; end: number } {
  const t = nextTag(xml, el.start)!;
  return { raw: xml.slice(t.start, t.end), end: t.end };
}

/** The children named `name` directly in xml[from, to) (any depth; tables nest little): raw open tag and inner text. */
function elements(xml: string, name: string, from: number, to: number) {
  const out: Array<{ start: number; end: number; attrs: Record<string, string>; inner: string }> = [];
  for (let at = from; ;) {
    const el = findElement(xml, name, at, to);
    if (!el || el.start >= to) return out;
    out.push({
      start: el.start,
      end: el.end,
      attrs: tagAttrs(openTagAt(xml, el).raw),
      inner: el.inner === el.end ? "" : xml.slice(el.inner, el.innerEnd),
    });
    at = el.end;
  }
}

const textOf = (inner: string) => xmlUnescape(inner.replace(/<[^>]*>/g, ""));

/** A table part read into the model (null when it has no readable ref). */
export function readTablePart(xml: string, part: string, rid: string): { table: MemTable; columns: string[] } | null {
  const root = findElement(xml, "table");
  if (!root) return null;
  const a = tagAttrs(openTagAt(xml, root).raw);
  const area = rectOf(a.ref);
  if (!area) return null;
  const name = a.displayName ?? a.name ?? "";
  const cols = elements(xml, "tableColumn", root.inner, root.innerEnd);
  const formulas = Array.from({ length: area.cols }, (_, c) => {
    const f = cols[c] ? findElement(cols[c].inner, "calculatedColumnFormula") : null;
    return f && cols[c] ? toModelFormula(textOf(cols[c].inner.slice(f.inner, f.innerEnd)), name) : null;
  });
  const style = elements(xml, "tableStyleInfo", root.inner, root.innerEnd)[0]?.attrs.name ?? "";
  const sort = elements(xml, "sortCondition", root.inner, root.innerEnd).flatMap((s) => {
    const r = rectOf(s.attrs.ref);
    return r && r.col >= area.col && r.col < area.col + area.cols
      ? [{ column: r.col - area.col, ascending: !(s.attrs.descending === "1" || s.attrs.descending === "true") }]
      : [];
  });
  const table: MemTable = {
    name,
    ...area,
    style,
    formulas,
    totals: Number(a.totalsRowCount ?? 0) > 0,
    sort,
    filtered: elements(xml, "filterColumn", root.inner, root.innerEnd).length > 0,
  };
  const columns = Array.from({ length: area.cols }, (_, c) => cols[c]?.attrs.name ?? `Column${c + 1}`);
  const ids = Array.from({ length: area.cols }, (_, c) => Number(cols[c]?.attrs.id) || null);
  const extra: FileTable = { part, rid, xml, id: Number(a.id) || 0, ids, base: stateKey(table, columns, ids) };
  table.extra = extra;
  return { table, columns };
}

/** A sheet's cells as the model holds them (a SheetStore, or a Map for a sheet the port added). */
type Cells = Map<number, Map<number, { v: SheetValue }>>;

/** A cell's value without marking its row changed (a SheetStore's get() would). */
export function peekValue(cells: Cells, row: number, col: number): SheetValue {
  return (cells instanceof SheetStore ? cells.peek(row, col) : cells.get(row)?.get(col))?.v ?? "";
}

/** The table as Snapshot.tables lists it, its header cells read in place (src/host/memory/tables.ts readTable). */
export function tableRead(sheetId: string, cells: Cells, t: MemTable): TableRead {
  return {
    name: t.name,
    area: { sheetId, row: t.row, col: t.col, rows: t.rows, cols: t.cols },
    columns: columnNames(Array.from({ length: t.cols }, (_, c) => peekValue(cells, t.row, t.col + c))),
    style: t.style,
    totals: t.totals,
    sort: t.sort.map((s) => ({ ...s })),
    filtered: t.filtered,
  };
}

// ---------------------------------------------------------------- structured references

/** A column name inside brackets: ' [ ] # escaped with ' (Excel's rule). */
const escapeCol = (name: string) => name.replace(/['[\]#]/g, "'$&");
const unescapeCol = (s: string) => s.replace(/'(.)/g, "$1");
/** [@Amount] or, for a name Excel brackets (spaces, punctuation), [@[Unit price]]. */
const thisRow = (name: string) => (/^[\p{L}_][\p{L}\p{N}_.]*$/u.test(name) ? `[@${name}]` : `[@[${escapeCol(name)}]]`);
const COL = "((?:[^\\]'\\[]|'.)+)";
const reEsc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The file's form (no "=", qualified, [#This Row]) of a model formula of table `table`. */
export function toFileFormula(formula: string, table: string): string {
  return formula
    .replace(/^=/, "")
    .replace(
      new RegExp(`(^|[^\\p{L}\\p{N}_.\\]])\\[@\\[${COL}\\]\\]`, "gu"),
      (_, pre: string, c: string) => `${pre}${table}[[#This Row],[${c}]]`,
    )
    .replace(new RegExp(`(^|[^\\p{L}\\p{N}_.\\]])\\[@${COL}\\]`, "gu"), (_, pre: string, c: string) => `${pre}${table}[[#This Row],[${c}]]`)
    .replace(
      new RegExp(`(^|[^\\p{L}\\p{N}_.\\]\\[,])\\[(?![#@\\[])${COL}\\]`, "gu"),
      (_, pre: string, c: string) => `${pre}${table}[${c}]`,
    );
}

/** The model's form (=[@Amount]*1.2) of a calculated column's formula as the file holds it. */
export function toModelFormula(formula: string, table: string): string {
  const t = reEsc(table);
  const out = formula
    .replace(
      new RegExp(`(^|[^\\p{L}\\p{N}_.])${t}\\[\\[#This Row\\],\\[${COL}\\]\\]`, "giu"),
      (_, pre: string, c: string) => pre + thisRow(unescapeCol(c)),
    )
    .replace(new RegExp(`(^|[^\\p{L}\\p{N}_.])${t}\\[(?![#@\\[])${COL}\\]`, "giu"), (_, pre: string, c: string) => `${pre}[${c}]`);
  return `=${out}`;
}

/** A model formula with column `from`'s references ([@From], [@[From]], [From]) naming `to`. */
export function renameInFormula(formula: string, from: string, to: string): string {
  const f = reEsc(escapeCol(from));
  return formula
    .replace(new RegExp(`\\[@\\[${f}\\]\\]|\\[@${f}\\]`, "gi"), () => thisRow(to))
    .replace(new RegExp(`\\[${f}\\]`, "gi"), () => `[${escapeCol(to)}]`);
}

// ---------------------------------------------------------------- writing

/** The rows of the table's body (no header, no totals row). */
export function bodyRows(t: MemTable): { first: number; count: number } {
  return { first: t.row + 1, count: Math.max(0, t.rows - 1 - (t.totals ? 1 : 0)) };
}

function sortXml(t: MemTable): string {
  if (!t.sort.length) return "";
  const { first, count } = bodyRows(t);
  const body = { row: first, col: t.col, rows: Math.max(count, 1), cols: t.cols };
  const conds = t.sort
    .map((s) => `<sortCondition${s.ascending ? "" : ' descending="1"'} ref="${areaA1({ ...body, col: t.col + s.column, cols: 1 })}"/>`)
    .join("");
  return `<sortState ref="${areaA1(body)}">${conds}</sortState>`;
}

function columnXml(id: number, name: string, formula: string | null, table: string, original?: string): string {
  const f = formula === null ? "" : `<calculatedColumnFormula>${xmlEscape(toFileFormula(formula, table))}</calculatedColumnFormula>`;
  if (!original) return `<tableColumn id="${id}" name="${xmlEscape(name)}"${f ? `>${f}</tableColumn>` : "/>"}`;
  const open = nextTag(original, 0)!;
  let tag = setAttr(original.slice(open.start, open.end), "name", name);
  let inner = open.selfClosing ? "" : original.slice(open.end, original.lastIndexOf("<"));
  inner = inner.replace(/<(\w+:)?calculatedColumnFormula\b[^>]*(?:\/>|>[\s\S]*?<\/(\w+:)?calculatedColumnFormula>)/, "");
  inner = f + inner;
  if (!inner) return tag.endsWith("/>") ? tag : tag.replace(/>$/, "/>");
  tag = tag.replace(/\s*\/>$/, ">");
  const prefix = /^<(\w+:)?/.exec(tag)?.[1] ?? "";
  return `${tag}${inner}</${prefix}tableColumn>`;
}

/** Ids for the current columns: the kept ones, then new ones past every id the table used. */
function columnIds(ids: ReadonlyArray<number | null>): number[] {
  let next = Math.max(0, ...ids.map((x) => x ?? 0)) + 1;
  const seen = new Set<number>();
  return ids.map((x) => {
    if (x !== null && !seen.has(x)) return (seen.add(x), x);
    return next++;
  });
}

/**
 * The part of table `t` with column names `columns`: `file` is the part it had (edited in place: the
 * rest of its XML stays), null for a new table (id `newId`).
 */
export function tablePartXml(t: MemTable, columns: readonly string[], file: FileTable | null, newId: number): string {
  const ref = areaA1(t);
  const filterRef = areaA1({ ...t, rows: t.rows - (t.totals ? 1 : 0) });
  if (!file) {
    const cols = columns.map((n, i) => columnXml(i + 1, n, t.formulas[i] ?? null, t.name)).join("");
    return (
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<table xmlns="${NS_MAIN}" id="${newId}" name="${xmlEscape(t.name)}" ` +
      `displayName="${xmlEscape(t.name)}" ref="${ref}" totalsRowShown="0"><autoFilter ref="${filterRef}"/>${sortXml(t)}` +
      `<tableColumns count="${columns.length}">${cols}</tableColumns><tableStyleInfo name="${xmlEscape(t.style)}" ` +
      `showFirstColumn="0" showLastColumn="0" showRowStripes="1" showColumnStripes="0"/></table>`
    );
  }
  const xml = file.xml;
  const root = findElement(xml, "table")!;
  const p = /^<(\w+:)?/.exec(openTagAt(xml, root).raw)?.[1] ?? "";
  const px = (s: string) => withPrefix(s, p ? p.slice(0, -1) : "");
  let open = setAttr(setAttr(setAttr(openTagAt(xml, root).raw, "ref", ref), "name", t.name), "displayName", t.name);
  let inner = xml.slice(openTagAt(xml, root).end, root.innerEnd);
  // Columns: each kept one's own element (its totals function, formats, uid) renamed; new ones added.
  const originals = new Map(elements(inner, "tableColumn", 0, inner.length).map((c) => [Number(c.attrs.id), inner.slice(c.start, c.end)]));
  const oldIndex = new Map([...originals.keys()].map((id, i) => [id, i]));
  const ids = columnIds(file.ids);
  const cols = columns.map((n, i) =>
    columnXml(ids[i]!, n, t.formulas[i] ?? null, t.name, file.ids[i] != null ? originals.get(file.ids[i]!) : undefined),
  );
  const tc = findElement(inner, "tableColumns");
  const tcXml = px(`<tableColumns count="${columns.length}">`) + cols.map(px).join("") + px("</tableColumns>");
  inner = tc ? inner.slice(0, tc.start) + tcXml + inner.slice(tc.end) : inner + tcXml;
  // Sort: the model's, where the part had one (or after the filter).
  inner = inner.replace(/<(\w+:)?sortState\b[^>]*(?:\/>|>[\s\S]*?<\/(\w+:)?sortState>)/, "");
  const af = findElement(inner, "autoFilter");
  if (af) {
    let afXml = setAttr(inner.slice(af.start, af.inner === af.end ? af.end : af.inner), "ref", filterRef);
    let afInner = af.inner === af.end ? "" : inner.slice(af.inner, af.innerEnd);
    // A column's filter follows its column (colId: its index), and goes with it.
    afInner = afInner.replace(/<(\w+:)?filterColumn\b([^>]*?)(\/>|>[\s\S]*?<\/(\w+:)?filterColumn>)/g, (m: string, _p, attrs: string) => {
      const old = Number(tagAttrs(attrs).colId);
      const id = [...oldIndex].find(([, i]) => i === old)?.[0];
      const now = id === undefined ? -1 : file.ids.indexOf(id);
      return now < 0 ? "" : m.replace(/colId="\d+"/, `colId="${now}"`);
    });
    if (afInner) afXml = afXml.replace(/\s*\/>$/, ">") + afInner + px("</autoFilter>");
    else if (!afXml.endsWith("/>")) afXml = afXml.replace(/>$/, "/>");
    inner = inner.slice(0, af.start) + afXml + px(sortXml(t)) + inner.slice(af.end);
  } else if (t.sort.length) {
    const at = findElement(inner, "tableColumns")!.start;
    inner = inner.slice(0, at) + px(sortXml(t)) + inner.slice(at);
  }
  const style = findElement(inner, "tableStyleInfo");
  if (style)
    inner = inner.slice(0, style.start) + setAttr(openTagAt(inner, style).raw, "name", t.style) + inner.slice(openTagAt(inner, style).end);
  if (open.endsWith("/>")) open = open.replace(/\s*\/>$/, ">");
  return xml.slice(0, root.start) + open + inner + xml.slice(root.innerEnd);
}

// CT_Worksheet's elements after <sheetData> (ECMA-376 Part 1, 18.3.1.99), in order: <tableParts> comes
// after all of them but <extLst> (the worksheet's own, the last; other elements have extLst children too).

/** The sheet part's text after </sheetData> with <tableParts> listing `rids` (removed when none); `rAttr`: id="…" in the relationships namespace. */
export function withTableParts(suffix: string, rids: readonly string[], rAttr: (id: string) => string, p: string): string {
  const el = findElement(suffix, "tableParts");
  const xml = rids.length
    ? withPrefix(`<tableParts count="${rids.length}">`, p) +
      rids.map((id) => withPrefix(`<tablePart ${rAttr(id)}/>`, p)).join("") +
      withPrefix("</tableParts>", p)
    : "";
  if (el) return suffix.slice(0, el.start) + xml + suffix.slice(el.end);
  if (!xml) return suffix;
  // The worksheet's children: the first top-level <extLst>, else the closing </worksheet>.
  let depth = 0;
  for (let t = nextTag(suffix, 0); t; t = nextTag(suffix, t.end)) {
    if (depth === 0 && ((t.name === "extLst" && !t.closing) || (t.name === "worksheet" && t.closing)))
      return suffix.slice(0, t.start) + xml + suffix.slice(t.start);
    if (!t.selfClosing) depth += t.closing ? -1 : 1;
  }
  return suffix + xml;
}

/** The relationship ids a sheet part's <tableParts> lists, in order. */
export function tablePartIds(suffix: string): string[] {
  const el = findElement(suffix, "tableParts");
  if (!el) return [];
  return elements(suffix, "tablePart", el.inner, el.innerEnd).map(
    (t) => t.attrs["r:id"] ?? Object.entries(t.attrs).find(([k]) => k.endsWith(":id"))?.[1] ?? "",
  );
}
