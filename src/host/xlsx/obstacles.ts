// What in a sheet part refuses or breaks a write (issue 36, item 12; the Office.js adapter's
// src/host/excel/obstacles.ts reads the same from Excel): merged cells (<mergeCells>), tables
// (<tableParts> → xl/tables/tableN.xml's ref), a protected sheet (<sheetProtection sheet="1">), the
// results of a dynamic-array formula (a cell with cm= whose <f t="array" ref=…> spills), and rows of an
// AutoFilter that filters (<autoFilter> with a filterColumn holding criteria). Read once per sheet from
// the text around <sheetData> and the spills the row scan found; the engine's pre-write check
// (src/sync/obstacles.ts) asks for them through the port's `obstacles(area)`.
import { areaA1, parseAddress } from "../a1.ts";
import type { Area, Obstacle } from "../port.ts";
import { findElement, nextTag, tagAttrs } from "./xml.ts";

type Rect = Omit<Area, "sheetId">;

export interface SheetFacts {
  merged: Rect[];
  protected: boolean;
  tables: Array<{ name: string; ref: Rect }>;
  /** The AutoFilter's range when it filters (has criteria). */
  filter: Rect | null;
  /** Dynamic-array formulas: their anchor cell and the range they spill into. */
  spills: Array<{ anchor: string; ref: Rect }>;
}

export const NO_FACTS: SheetFacts = { merged: [], protected: false, tables: [], filter: null, spills: [] };

function rect(ref: string | undefined): Rect | null {
  if (!ref) return null;
  try {
    const a = parseAddress(ref);
    return { row: a.row, col: a.col, rows: a.rows, cols: a.cols };
  } catch {
    return null;
  }
}

/** Elements named `name` inside the first `parent` of `xml` (raw attributes). */
function each(xml: string, parent: string, name: string): Array<Record<string, string>> {
  const el = findElement(xml, parent);
  const out: Array<Record<string, string>> = [];
  if (!el) return out;
  for (let t = nextTag(xml, el.inner); t && t.start < el.innerEnd; t = nextTag(xml, t.end))
    if (t.name === name && !t.closing) out.push(tagAttrs(xml.slice(t.start, t.end)));
  return out;
}

const CRITERIA = /<(?:\w+:)?(?:filters|customFilters|top10|dynamicFilter|colorFilter|iconFilter)\b/;

/**
 * The facts of one sheet from the text after </sheetData> (`suffix`: merged cells, protection,
 * AutoFilter, table parts), the sheet's table parts' XML (by relationship id), and the spills the scan found.
 */
export function sheetFacts(suffix: string, tableXml: (rid: string) => string | null, spills: SheetFacts["spills"]): SheetFacts {
  const merged = each(suffix, "mergeCells", "mergeCell")
    .map((a) => rect(a.ref))
    .filter((r): r is Rect => r !== null);
  const prot = findElement(suffix, "sheetProtection");
  const p = prot ? tagAttrs(suffix.slice(prot.start, nextTag(suffix, prot.start)!.end)) : null;
  const tables: SheetFacts["tables"] = [];
  for (const t of each(suffix, "tableParts", "tablePart")) {
    const rid = t["r:id"] ?? Object.entries(t).find(([k]) => k.endsWith(":id"))?.[1];
    const xml = rid ? tableXml(rid) : null;
    const root = xml ? nextTagAttrs(xml, "table") : null;
    const ref = rect(root?.ref);
    if (root && ref) tables.push({ name: root.displayName ?? root.name ?? "", ref });
  }
  const af = findElement(suffix, "autoFilter");
  const filters = af && CRITERIA.test(suffix.slice(af.inner, af.innerEnd));
  return {
    merged,
    protected: p !== null && (p.sheet === "1" || p.sheet === "true"),
    tables,
    filter: filters ? rect(tagAttrs(suffix.slice(af.start, nextTag(suffix, af.start)!.end)).ref) : null,
    spills,
  };
}

function nextTagAttrs(xml: string, name: string): Record<string, string> | null {
  for (let t = nextTag(xml, 0); t; t = nextTag(xml, t.end)) if (t.name === name && !t.closing) return tagAttrs(xml.slice(t.start, t.end));
  return null;
}

const overlaps = (a: Rect, b: Rect) => a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;

/** What would refuse or break a write to `area`, as the Office.js adapter reports it. */
export function obstaclesIn(facts: SheetFacts, area: Area): Obstacle[] {
  const out: Obstacle[] = [];
  if (facts.protected) out.push({ kind: "protected", address: "" });
  for (const m of facts.merged) if (overlaps(m, area)) out.push({ kind: "merged", address: areaA1(m) });
  for (const t of facts.tables) if (overlaps(t.ref, area)) out.push({ kind: "table", address: "", name: t.name });
  for (const s of facts.spills) if (overlaps(s.ref, area)) out.push({ kind: "spill", address: s.anchor });
  if (facts.filter && overlaps(facts.filter, area)) out.push({ kind: "filter", address: areaA1(facts.filter) });
  return out;
}
