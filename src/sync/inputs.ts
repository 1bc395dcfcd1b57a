// A report's filters from cells (issue 32), pure: no Office, no network.
//
// A placement of a semantic report can take a filter's values from the workbook: one cell (equals its
// value), a range (equals any of its non-empty values), two cells for a time dimension's date range
// (from, to), or a defined name (its range when bound). Each binding's cells are tracked by hidden names
// of their own (`inputName`), so they follow rows inserted above and sheets renamed as the placement's do;
// the binding lives in the placement's record (state.ts), the report on the platform is unchanged.
//
// At refresh the values are read in the same read as the placement (refresh.ts asks for the input names),
// checked here before anything is written (InvalidInput names the cell and says what to type), and put
// into the query: they replace the report's own top-level filter on the member, or add one; a time
// dimension of the query takes them as its dateRange. See docs/SYNC.md "Inputs".
import { z } from "zod";
import { h64Hex, ready as hashReady } from "../checksum/hash.ts";
import { areaA1, parseAddress, quoteSheetName, type ParsedAddress } from "../host/a1.ts";
import type { Area, SheetRef, SheetValue } from "../host/port.ts";
import { isMemberFilter, type Filter, type SemanticQuery } from "./query.ts";

/** Bindings a placement holds at most; a binding's values at most (the rule). */
export const MAX_INPUTS = 20;
export const MAX_INPUT_VALUES = 100;
/** Cells a bound range may cover: a whole column is refused when it is bound, not read at every refresh. */
export const MAX_INPUT_CELLS = 1000;

/** What a person binds: a filter member of the report's query and where its values come from. */
export interface InputRequest {
  member: string;
  /** "Sheet1!B1", "Inputs!B1:B5", "Inputs!B1,Inputs!B2" (a date range's from, to), or a defined name "Region". */
  ref: string;
}

/** An input as a card or `cellbound status` shows it. */
export interface InputView {
  member: string;
  title: string;
  /** Where its cells are now, e.g. "Inputs!B1:B2". */
  where: string;
  /** The values as the filter would use them now. */
  values: string[];
  /** Why it cannot be used now (names the cell), else null. */
  problem: string | null;
}

/** An input's value cannot be used: nothing was written, nothing recorded. The message names the cell and says what to type. */
export class InvalidInput extends Error {
  constructor(
    message: string,
    readonly where: string,
  ) {
    super(message);
    this.name = "InvalidInput";
  }
}

/** A binding cannot be made (a reference that is not there, a SQL report, a circle): the message says why. */
export class CannotBind extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CannotBind";
  }
}

/** A binding as the placement's record keeps it (workbook storage: validated on every read). */
export const InputBinding = z.looseObject({
  member: z.string().min(1).max(300),
  /** "values": equals any of the cells' non-empty values; "dateRange": names[0] is from, names[1] (or the second cell of names[0]) is to. */
  kind: z.enum(["values", "dateRange"]),
  /** The tracking names of its cells (inputName). */
  names: z.array(z.string().min(1).max(80)).min(1).max(2),
  /** The defined name it was bound to, when it was (the summary and the card say so). */
  definedName: z.string().max(255).nullable().optional(),
});
export type InputBinding = z.infer<typeof InputBinding>;

const INPUT_PREFIX = "CBin_";
/** The tracking name of a placement's n-th input cell(s) (n from 1). */
export const inputName = (key: string, n: number) => `${INPUT_PREFIX}${key}_${n}`;
/** Every name a placement's inputs may use: a read asks for them by name, before the record is read. */
export const inputNamesOf = (key: string): string[] => Array.from({ length: 2 * MAX_INPUTS }, (_, i) => inputName(key, i + 1));
/** Is this tracking name an input's (not a placement's)? Also with the host's prefix ("Cellbound_"). */
export const isInputName = (name: string) => /^(cellbound_)?cbin_/i.test(name);

// ---------------------------------------------------------------- references

/** A reference as typed: cell areas with their sheet names, or a defined name. */
export type ParsedRef = { kind: "cells"; parts: ParsedAddress[] } | { kind: "name"; name: string };

const NAME_RE = /^[A-Za-z_\\][A-Za-z0-9_.\\]{0,254}$/;

/** Parse an input's reference; CannotBind in words when it is none of the forms. */
export function parseRef(ref: string): ParsedRef {
  const text = ref.trim();
  if (NAME_RE.test(text) && !looksLikeCell(text)) return { kind: "name", name: text };
  const pieces = splitUnion(text);
  if (pieces.length > 2) throw new CannotBind(`“${ref}” names ${pieces.length} areas: bind one cell, one range, or two cells (from, to).`);
  const parts = pieces.map((p) => {
    let a: ParsedAddress;
    try {
      a = parseAddress(p);
    } catch {
      throw new CannotBind(`“${ref}” is not a cell, a range or a defined name: write it as Sheet1!B1, Sheet1!B1:B5 or a name.`);
    }
    if (a.sheet === null) throw new CannotBind(`“${ref}” does not say which sheet: write it as Sheet1!${p.replace(/\$/g, "")}.`);
    return a;
  });
  return { kind: "cells", parts };
}

function looksLikeCell(s: string): boolean {
  return /^\$?[A-Za-z]{1,3}\$?[0-9]{1,7}$/.test(s) || /^R[0-9]*C[0-9]*$/i.test(s);
}

/** "A!B1,A!B2" → two pieces; commas inside a quoted sheet name stay. */
function splitUnion(s: string): string[] {
  const out: string[] = [];
  let quoted = false,
    start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "'") quoted = !quoted;
    else if (s[i] === "," && !quoted) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** How a member's values are read: a date range, numbers, or text. */
export type MemberKind = "time" | "number" | "text";

/** A binding planned: its kind and the areas its tracking names will cover. */
export interface PlannedBinding {
  binding: InputBinding;
  areas: Area[];
  /** As the person gave it (names the areas in words). */
  label: string;
}

/**
 * Plan the bindings of placement `key`: where each one's cells are (`sheets`; defined names resolved by
 * the caller in `named`), its kind (`kindOf`), one tracking name per area. CannotBind in words for a reference
 * that is not there, a time dimension without two cells, too many cells or bindings.
 */
export function planBindings(
  key: string,
  requests: readonly InputRequest[],
  sheets: readonly SheetRef[],
  named: ReadonlyMap<string, { sheet: SheetRef; area: Area } | null>,
  kindOf: (member: string) => MemberKind,
): PlannedBinding[] {
  if (requests.length > MAX_INPUTS) throw new CannotBind(`A placement takes at most ${MAX_INPUTS} inputs; ${requests.length} were given.`);
  const seen = new Set<string>();
  let n = 0;
  return requests.map((r) => {
    if (!/^[A-Za-z_][\w]*\.[\w.]+$/.test(r.member))
      throw new CannotBind(`“${r.member}” is not a member of the report's cubes (cube.member).`);
    if (seen.has(r.member)) throw new CannotBind(`${r.member} is bound twice: bind each filter once.`);
    seen.add(r.member);
    const parsed = parseRef(r.ref);
    const areas = parsed.kind === "name" ? [namedAreaOf(parsed.name, named)] : parsed.parts.map((p) => sheetArea(p, sheets, r.ref));
    const kind = kindOf(r.member) === "time" ? "dateRange" : "values";
    checkAreas(r, kind, areas);
    const names = areas.map(() => inputName(key, ++n));
    const binding: InputBinding = { member: r.member, kind, names, ...(parsed.kind === "name" ? { definedName: parsed.name } : {}) };
    return { binding, areas, label: r.ref.trim() };
  });
}

function namedAreaOf(name: string, named: ReadonlyMap<string, { sheet: SheetRef; area: Area } | null>): Area {
  const hit = named.get(name);
  if (!hit) throw new CannotBind(`This workbook has no defined name “${name}” that refers to cells.`);
  return hit.area;
}

function sheetArea(p: ParsedAddress, sheets: readonly SheetRef[], ref: string): Area {
  const sheet = sheets.find((s) => s.name.toLowerCase() === p.sheet!.toLowerCase());
  if (!sheet) throw new CannotBind(`There is no sheet “${p.sheet}” in this workbook (in “${ref}”).`);
  return { sheetId: sheet.id, row: p.row, col: p.col, rows: p.rows, cols: p.cols };
}

function checkAreas(r: InputRequest, kind: InputBinding["kind"], areas: readonly Area[]): void {
  const cells = areas.reduce((n, a) => n + a.rows * a.cols, 0);
  if (kind === "dateRange") {
    if (cells !== 2 || (areas.length === 2 && cells !== 2))
      throw new CannotBind(`${r.member} is a date: bind two cells, its range's start and end (e.g. Inputs!B1:B2 or Inputs!B1,Inputs!D1).`);
    return;
  }
  if (areas.length !== 1) throw new CannotBind(`Bind ${r.member} to one cell or one range (“${r.ref}” names two areas).`);
  if (cells > MAX_INPUT_CELLS)
    throw new CannotBind(
      `“${r.ref}” covers ${cells.toLocaleString("en-US")} cells: bind at most ${MAX_INPUT_CELLS.toLocaleString("en-US")}.`,
    );
}

/** A new placement's inputs, planned and read before its query (place.ts): its key, bindings, the values' hash. */
export interface BoundInputs {
  key: string;
  planned: PlannedBinding[];
  used: string;
}

// ---------------------------------------------------------------- values

/** An input read: where its cells are now and what they hold (null: its cells were deleted). */
export interface InputCells {
  where: string;
  grid: SheetValue[][];
}

/** A binding's values as the query uses them, and where they came from (the summary says so). */
export interface ResolvedInput {
  member: string;
  kind: InputBinding["kind"];
  values: string[];
  where: string;
}

const ERROR_RE =
  /^#(NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A|GETTING_DATA|SPILL!|CALC!|FIELD!|BLOCKED!|CONNECT!|BUSY!|UNKNOWN!|PYTHON!)$/;

/** The cells of one binding: each area's grid (one for values, one or two for a date range), in order. */
export type ReadInput = (name: string) => InputCells | null;

/**
 * The values of every binding, or the first problem (InvalidInput, naming the cell). `title` names a member
 * in words ("region"), `kindOf` says whether it wants numbers, dates or text; `dateSystem` reads date serials.
 */
export function resolveInputs(
  bindings: readonly InputBinding[],
  read: ReadInput,
  title: (member: string) => string,
  kindOf: (member: string) => MemberKind,
  dateSystem: 1900 | 1904 = 1900,
): ResolvedInput[] {
  return bindings.map((b) => {
    const cells = b.names.map((n) => read(n));
    const gone = cells.findIndex((c) => c === null);
    if (gone >= 0) throw new InvalidInput(`The input cells of ${title(b.member)} were deleted: bind it again (Inputs…).`, "");
    const areas = cells as InputCells[];
    if (b.kind === "dateRange") return dateRange(b, areas, title, dateSystem);
    return valuesOf(b, areas[0]!, title, kindOf(b.member));
  });
}

function valuesOf(b: InputBinding, c: InputCells, title: (m: string) => string, kind: MemberKind): ResolvedInput {
  const single = c.grid.length === 1 && (c.grid[0]?.length ?? 0) === 1;
  const values: string[] = [];
  c.grid.forEach((row, i) =>
    row.forEach((v, j) => {
      if (v === "" || v === null || v === undefined) return;
      const at = single ? c.where : cellIn(c.where, i, j);
      if (typeof v === "string" && ERROR_RE.test(v.trim()))
        throw new InvalidInput(`${at} holds an error (${v.trim()}): fix the cell or its formula, then refresh.`, at);
      if (kind === "number" && typeof v !== "number" && !Number.isFinite(Number(String(v).trim())))
        throw new InvalidInput(`${at} holds text (“${String(v)}”) where a number is needed: type a number for ${title(b.member)}.`, at);
      values.push(typeof v === "boolean" ? String(v) : String(v).trim());
    }),
  );
  const what = title(b.member);
  if (values.length === 0)
    throw new InvalidInput(
      single
        ? `${c.where} is empty: type ${article(what)} ${what}.`
        : `${c.where} is empty: type ${article(what)} ${what} in at least one of its cells.`,
      c.where,
    );
  if (values.length > MAX_INPUT_VALUES)
    throw new InvalidInput(
      `${c.where} holds ${values.length} values: at most ${MAX_INPUT_VALUES} can filter a report. Bind a smaller range.`,
      c.where,
    );
  return { member: b.member, kind: b.kind, values: [...new Set(values)], where: c.where };
}

function dateRange(b: InputBinding, areas: InputCells[], title: (m: string) => string, dateSystem: 1900 | 1904): ResolvedInput {
  // Two names (two cells), or one name over two cells.
  const cells: Array<{ where: string; v: SheetValue }> =
    areas.length === 2
      ? areas.map((a) => ({ where: a.where, v: a.grid[0]?.[0] ?? "" }))
      : areas[0]!.grid.flatMap((row, i) => row.map((v, j) => ({ where: cellIn(areas[0]!.where, i, j), v })));
  const [from, to] = cells.map((c, i) => asDate(c.where, c.v, i === 0 ? "start" : "end", title(b.member), dateSystem)) as [string, string];
  if (to < from)
    throw new InvalidInput(
      `${cells[1]!.where} (${to}) is before ${cells[0]!.where} (${from}): the end of a date range cannot be before its start.`,
      cells[1]!.where,
    );
  const where = areas.length === 2 ? `${areas[0]!.where}, ${areas[1]!.where}` : areas[0]!.where;
  return { member: b.member, kind: b.kind, values: [from, to], where };
}

/** A cell's value as a date ("YYYY-MM-DD" or with a time): a date serial, or text in ISO form. */
function asDate(where: string, v: SheetValue, which: "start" | "end", what: string, dateSystem: 1900 | 1904): string {
  if (v === "" || v === null || v === undefined) throw new InvalidInput(`${where} is empty: type the ${which} date of ${what}.`, where);
  if (typeof v === "string" && ERROR_RE.test(v.trim()))
    throw new InvalidInput(`${where} holds an error (${v.trim()}): fix the cell or its formula, then refresh.`, where);
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return serialToDate(v, dateSystem);
  const text = String(v).trim();
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?$/.test(text) && !Number.isNaN(Date.parse(text.slice(0, 10)))) return text;
  throw new InvalidInput(
    `${where} holds “${String(v)}” where a date is needed: type the ${which} date of ${what} (e.g. 2025-01-31).`,
    where,
  );
}

/** An Excel date serial as "YYYY-MM-DD" (with "THH:MM:SS" when it has a time of day). */
export function serialToDate(serial: number, dateSystem: 1900 | 1904 = 1900): string {
  // 1900 system: serial 1 is 1900-01-01 and Excel counts a 29 Feb 1900 that never was (serial 60).
  const days = dateSystem === 1904 ? serial + 1462 : serial < 60 ? serial + 1 : serial;
  const iso = new Date(Date.UTC(1899, 11, 30) + Math.round(days * 86_400_000)).toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19);
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/** The A1 address of cell (i, j) of an area written "Sheet!B1:B5". */
function cellIn(where: string, i: number, j: number): string {
  const bang = where.lastIndexOf("!");
  const a = parseAddress(where.slice(bang + 1));
  return `${where.slice(0, bang)}!${areaA1({ row: a.row + i, col: a.col + j, rows: 1, cols: 1 })}`;
}

/** "Sheet1!B1" for an area on a sheet, quoted as Excel does. */
export function whereOf(sheet: SheetRef, area: Area): string {
  return `${quoteSheetName(sheet.name)}!${areaA1(area)}`;
}

// ---------------------------------------------------------------- the query

/**
 * The query with the inputs' values: each replaces the report's own top-level filters on its member (a
 * nested and/or group naming it stays as it is), or is added; a date range on a time dimension of the
 * query becomes that time dimension's dateRange, else an inDateRange filter.
 */
export function applyInputs(query: SemanticQuery, inputs: readonly ResolvedInput[]): SemanticQuery {
  const bound = new Set(inputs.map((i) => i.member));
  const filters: Filter[] = (query.filters ?? []).filter((f) => !(isMemberFilter(f) && bound.has(f.member)));
  let timeDimensions = query.timeDimensions;
  for (const i of inputs) {
    if (i.kind === "dateRange" && (timeDimensions ?? []).some((t) => t.dimension === i.member)) {
      timeDimensions = timeDimensions!.map((t) =>
        t.dimension === i.member ? { ...t, dateRange: [i.values[0]!, i.values[1]!] as [string, string] } : t,
      );
      continue;
    }
    filters.push({ member: i.member, operator: i.kind === "dateRange" ? "inDateRange" : "equals", values: [...i.values] });
  }
  return { ...query, filters, ...(timeDimensions ? { timeDimensions } : {}) };
}

/** Member → where its values came from (the filter summary: "Region is West (from Sheet1!B1)"). */
export function inputSources(inputs: readonly ResolvedInput[]): Map<string, string> {
  return new Map(inputs.map((i) => [i.member, i.where]));
}

/** A hash of the values used: equal when the inputs hold what the placement was last refreshed with. */
export async function inputsHash(inputs: readonly ResolvedInput[]): Promise<string> {
  await hashReady();
  const text = JSON.stringify(inputs.map((i) => [i.member, i.values]));
  return h64Hex(new TextEncoder().encode(text));
}

// ---------------------------------------------------------------- producers and circles

/** A placement's inputs as areas, and the area of its own cells. */
export interface InputGraphNode {
  key: string;
  label: string;
  area: Area | null;
  inputs: readonly Area[];
}

function inside(a: Area, b: Area): boolean {
  return a.sheetId === b.sheetId && a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;
}

/** The placements whose cells hold a placement's input cells (its producers), per key. */
export function producers(nodes: readonly InputGraphNode[]): Map<string, string[]> {
  return new Map(
    nodes.map((n) => [n.key, nodes.filter((m) => m.area && n.inputs.some((i) => inside(i, m.area!))).map((m) => m.key)] as const),
  );
}

/** A circle through the producers, as labels in order ("A", "B", "A"), or null when there is none. */
export function findCircle(nodes: readonly InputGraphNode[]): string[] | null {
  const edges = producers(nodes);
  const label = new Map(nodes.map((n) => [n.key, n.label]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (k: string): string[] | null => {
    if (state.get(k) === "done") return null;
    if (state.get(k) === "open") return [...path.slice(path.indexOf(k)), k].map((x) => label.get(x) ?? x);
    state.set(k, "open");
    path.push(k);
    for (const p of edges.get(k) ?? []) {
      const c = visit(p);
      if (c) return c;
    }
    path.pop();
    state.set(k, "done");
    return null;
  };
  for (const n of nodes) {
    const c = visit(n.key);
    if (c) return c;
  }
  return null;
}

/** Keys in an order where each placement comes after the placements its inputs come from (a circle, refused when bound, keeps its order). */
export function producersFirst(keys: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const wanted = new Set(keys);
  const visit = (k: string) => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const p of edges.get(k) ?? []) if (wanted.has(p)) visit(p);
    out.push(k);
  };
  keys.forEach(visit);
  return out;
}

/** A circle in words. */
export function circleWords(circle: readonly string[]): string {
  const [first, ...rest] = circle.map((c) => `“${c}”`);
  return `That would make a circle: ${first} takes its inputs from ${rest.join(", which takes its inputs from ")}. Bind it to cells outside these placements.`;
}
