// Workbook journeys (issue 30, "A model-based test of workbook journeys"; issue 36, "Done when"): random
// sequences of what people do to a workbook between and during Cellbound's operations, run with fast-check's
// model-based testing (fc.commands, fc.asyncModelRun) against the platform stand-in, on the memory port and
// on the Office.js adapter over dev/excel.
//
// Person steps: edit a cell inside a placement, clear a row inside it, insert rows above it, insert columns
// left of it, delete rows above it, rename the sheet, type below or beside it, and the report changes on the
// platform (more rows, fewer rows, other columns, changed values). Cellbound steps: place (confirming half the
// time when asked "would overwrite"), refresh ("ask", then Overwrite or Keep when edited), Refresh all, check,
// disconnect — each followed by check, as the pane does. A Cellbound step may carry what the person does
// WHILE it waits on the network (issue 36, items 1–3 and 15–17): type into the target or placement, type
// below it, insert a row above it, rename the sheet — or the platform's record (PUT …/refresh,
// connect-workbook) fails with a 5xx or its answer is lost.
//
// The model mirrors every cell of the sheet with who put it there (the person or Cellbound) and where each
// placement must be. After every step it asserts the promise:
//   outside    no cell outside the placements a step concerns is changed by Cellbound (clearing its own
//              stale cells excepted)
//   clobber    no person's cell is changed by Cellbound unless the person chose Overwrite for the placement
//              holding it, or confirmed placing over it (cells typed after confirming excepted)
//   falseEdit  no "edited by hand" (check, refresh, Refresh all) without a person's edit of that placement
//   unseen     a refresh asked ("ask") over a person's edit says so instead of reporting "refreshed"
//   grid       after placed / refreshed / Refresh all's done, the placement's cells are the report's current
//              grid (cells the person typed meanwhile excepted); after kept, every chunk without a kept edit is
//   cannotGrow "cannot grow" only when the rows or columns it grows into hold something
//   where      each placement's tracking name is where the person's moves put it, with the report's shape
//   stale      no cell Cellbound wrote is left outside every placement (rows kept by "Keep my edits" and the
//              area of a write still pending excepted)
//   agree      once nothing is pending (after check): the local record and the platform's record give the
//              same checksum, sheet and address; the cells match it unless a person edited them; the platform
//              records no placement of this workbook that the workbook does not track
//   error      no step fails unless a fault was injected into it
//
// Rows and columns inserted or deleted INSIDE a placement (issue 30): generated with `insideStructural` (on by
// default: INSIDE_STRUCTURAL). Such a placement's area is what the person made it; the platform records the
// report's shape from its first cell; Keep my edits leaves every row from the first one moved as it is.
//
// Used by test/sync/journeys.test.ts (npm test: a fixed seed and budget per port) and test/sync/journeys-main.ts
// (`npm run journeys -- --runs N --seed S`).
import fc from "fast-check";
import { NetworkError, ServerError, type DataClient, type PlatformClient, type Report } from "../../src/api/index.ts";
import { cellA1 } from "../../src/host/a1.ts";
import { shiftArea } from "../../src/host/geometry.ts";
import type { SheetPort, SheetValue } from "../../src/host/port.ts";
import {
  check,
  runReport,
  type CheckReport,
  type HandEdits,
  type RefreshOutcome,
  type RefreshStats,
  type SyncEngine,
} from "../../src/sync/index.ts";
import { fingerprintGrid } from "../../src/sync/fingerprint.ts";
import { movedFrom } from "../../src/sync/rows.ts";
import { loadPlacements, sameGrid, type LocalPlacement } from "../../src/sync/state.ts";
import type { Env, TestWorkbook, WorkbookKind } from "./support.ts";

/**
 * Rows and columns inserted or deleted inside a placement (issue 30: "Rows and columns inserted or deleted
 * inside a placement are named as such"): the default run generates these steps too.
 */
export const INSIDE_STRUCTURAL = true;

// ---------------------------------------------------------------- reports

const statuses = (limit: number) =>
  JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit });
const SOME = { member: "orders.status", operator: "equals", values: ["completed", "shipped"] };
const customers = (limit: number, filtered: boolean) =>
  JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.id", "customers.name"],
    order: [["customers.id", "asc"]],
    limit,
    ...(filtered ? { filters: [SOME] } : {}),
  });
/** Without a limit: it comes in pages of PAGE_ROWS and a place writes it as they arrive (issue 20 §2, issue 36 item 15). */
const customersPaged = (rows: number, filtered: boolean) =>
  JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.id", "customers.name"],
    filters: [{ member: "customers.id", operator: "lte", values: [String(rows)] }, ...(filtered ? [SOME] : [])],
  });
export const PAGE_ROWS = 1000;
const BIG_ROWS = 2100;

/** What a report can be: fewer or more rows, two or three columns, the same rows with other values. */
export const VARIANTS = {
  s2: statuses(2),
  s3: statuses(3),
  s4: statuses(4),
  c5: customers(5, false),
  c5f: customers(5, true),
  c12: customers(12, false),
  c12f: customers(12, true),
  big: customersPaged(BIG_ROWS, false),
  bigf: customersPaged(BIG_ROWS, true),
} as const;
export type Variant = keyof typeof VARIANTS;
const SMALL: Variant[] = ["s2", "s3", "s4", "c5", "c5f", "c12", "c12f"];
const INITIAL: Variant[] = ["s3", "c5"];

// ---------------------------------------------------------------- model and world

interface Rect {
  row: number;
  col: number;
  rows: number;
  cols: number;
}
const inRect = (a: Rect, r: number, c: number) => r >= a.row && r < a.row + a.rows && c >= a.col && c < a.col + a.cols;
const overlaps = (a: Rect, b: Rect) => a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;
const cellKey = (r: number, c: number) => `${r}|${c}`;
const unKey = (k: string) => k.split("|").map(Number) as [number, number];
const a1 = (a: Rect) => `${cellA1(a.row, a.col)}:${cellA1(a.row + a.rows - 1, a.col + a.cols - 1)}`;
const show = (v: SheetValue | undefined) => JSON.stringify(v ?? "");

/** A cell as the model knows it: its value and who put it there. `during`: typed while a Cellbound step ran. */
interface MCell {
  v: SheetValue;
  owner: "person" | "cellbound";
  during?: boolean;
}
interface MPlacement {
  key: string;
  report: number;
  area: Rect;
  /** A person edited its cells since Cellbound last wrote it whole (it may read "edited by hand"). */
  touched: boolean;
  /**
   * Rows or columns inserted or deleted inside it since Cellbound last wrote it whole (issue 30): its area is not
   * the report's shape, which is what the platform records (from its first cell).
   */
  resized?: boolean;
}
/** What the Cellbound step under way may change: cells in `allowed`; a person's cells in `overwrite`. */
interface Scope {
  allowed: Rect[];
  overwrite: { area: Rect; during: boolean }[];
}
export interface Model {
  cells: Map<string, MCell>;
  placements: MPlacement[];
  sheetName: string;
  variants: Variant[];
  typed: number;
  scope: Scope | null;
  trace: string[];
}

type When = "load" | "upsert" | "record" | "write";
/** What the person does while a Cellbound step waits on the network, or how the platform's record fails. */
export interface During {
  what: "type" | "typeBelow" | "insertAbove" | "rename" | "fail5xx" | "drop";
  when: When;
  /** Which placement (Refresh all) and which cell of it, taken modulo its shape. */
  i: number;
  r: number;
  c: number;
}
interface Hooks {
  act?: { when: When; fn: () => void };
  fault?: { kind: "5xx" | "drop"; fired: null | { placementId?: string } };
}

export interface JourneyStats {
  runs: number;
  steps: number;
  ops: Record<string, number>;
  outcomes: Record<string, number>;
  /** Time spent per kind of step (ms), its follow-up check included. */
  ms: Record<string, number>;
}

export interface World {
  env: Env;
  wb: TestWorkbook;
  sheetId: string;
  workbookId: string;
  engine: SyncEngine;
  hooks: Hooks;
  /** The two reports as the platform last answered for them (what the pane lists). */
  reports: Report[];
  stats: JourneyStats;
}

export class JourneyViolation extends Error {
  constructor(
    readonly invariant: string,
    detail: string,
    trace: readonly string[],
  ) {
    super(`${invariant}: ${detail}\n  journey so far:\n    ${trace.slice(-40).join("\n    ")}`);
    this.name = "JourneyViolation";
  }
}

const count = (o: Record<string, number>, k: string) => (o[k] = (o[k] ?? 0) + 1);

/** The report's grid for a variant, as the platform answers now (one run per variant and stand-in). */
const grids = new WeakMap<Env, Map<Variant, Promise<SheetValue[][]>>>();
function expectedGrid(env: Env, v: Variant): Promise<SheetValue[][]> {
  let byVariant = grids.get(env);
  if (!byVariant) grids.set(env, (byVariant = new Map()));
  let g = byVariant.get(v);
  if (!g) {
    g = runReport(env.dataClient(), { jsonQuery: VARIANTS[v] }, { pageRows: PAGE_ROWS }).then((o) => o.layout.cells);
    byVariant.set(v, g);
  }
  return g;
}

// ---------------------------------------------------------------- the world's clients: where the person acts

function fire(w: World, when: When): void {
  const act = w.hooks.act;
  if (act?.when !== when) return;
  delete w.hooks.act;
  act.fn();
}

/** The platform client: the person may act while the report is upserted or recorded; the record may fail. */
function personPlatform(inner: PlatformClient, w: () => World): PlatformClient {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      const call = (...args: unknown[]) => (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      if (prop === "upsertReport")
        return (...args: unknown[]) => {
          fire(w(), "upsert");
          return call(...args);
        };
      if (prop !== "refreshReport" && prop !== "connectWorkbook") return v;
      return async (...args: unknown[]) => {
        const input = args[2] as { placementId?: string; addressOnly?: boolean };
        fire(w(), "record");
        const fault = w().hooks.fault;
        if (!fault || fault.fired || input.addressOnly) return call(...args);
        fault.fired = input.placementId ? { placementId: input.placementId } : {};
        count(w().stats.ops, `fault:${fault.kind}`);
        if (fault.kind === "5xx") throw new ServerError("The platform answered 503 (Service Unavailable).", 503);
        await call(...args); // the platform recorded it; its answer is lost
        throw new NetworkError("The connection was reset before the platform's answer arrived.", 0);
      };
    },
  });
}

function personData(inner: DataClient, w: () => World): DataClient {
  return {
    ...inner,
    fetchLoad(q, s) {
      fire(w(), "load");
      return inner.fetchLoad(q, s);
    },
  };
}

function personPort(port: SheetPort, w: () => World): SheetPort {
  const p = Object.create(port) as SheetPort;
  p.commit = async (commands, o) => {
    const out = await port.commit(commands, o);
    if (commands.some((c) => c.kind === "write")) fire(w(), "write");
    return out;
  };
  return p;
}

/** The port of a Cellbound that misbehaves (the journeys' own test). */
function sabotaged(port: SheetPort, sabotage?: Sabotage): SheetPort {
  if (sabotage !== "outside" && sabotage !== "stale" && sabotage !== "grid") return port;
  const p = Object.create(port) as SheetPort;
  p.commit = async (commands, o) => {
    const out = await port.commit(sabotage === "stale" ? commands.filter((c) => c.kind !== "clear") : commands, o);
    const w = commands.find((c) => c.kind === "write");
    if (w?.kind === "write" && !w.anchor && sabotage !== "stale") {
      const cell = sabotage === "outside" ? { ...w.at, row: 0, col: 40 } : w.at;
      await port.write(cell, [[`sabotage`]]);
    }
    return out;
  };
  return p;
}

/** A fresh workbook with two reports, and one engine for the journey (as one pane session). */
export async function newWorld(
  env: Env,
  kind: WorkbookKind,
  n: number,
  stats: JourneyStats,
  sabotage?: Sabotage,
): Promise<{ model: Model; real: World }> {
  const wb = kind(`https://files.example/journey-${n}.xlsx`);
  const reports = await Promise.all(INITIAL.map((v) => env.createReport({ jsonQuery: VARIANTS[v] })));
  const world = {} as World;
  const port = sabotaged(
    personPort(wb.port, () => world),
    sabotage,
  );
  const engine = env.engine({ ...wb, port }, "analyst", {
    platform: personPlatform(env.client(), () => world),
    data: personData(env.dataClient(), () => world),
    filterDefaults: { pageRows: PAGE_ROWS },
  });
  const sheetId = wb.user.firstSheetId();
  if (sabotage === "clobber") {
    const refresh = engine.refresh.bind(engine);
    engine.refresh = (key, choice, o) => refresh(key, choice === "keep" ? "overwrite" : choice, o);
  }
  Object.assign(world, {
    env,
    wb,
    sheetId,
    workbookId: (await wb.port.identity()).workbookId,
    engine,
    hooks: {},
    reports,
    stats,
  } satisfies World);
  stats.runs++;
  const model: Model = {
    cells: new Map(),
    placements: [],
    sheetName: wb.user.sheetName(sheetId),
    variants: [...INITIAL],
    typed: 0,
    scope: null,
    trace: [],
  };
  return { model, real: world };
}

// ---------------------------------------------------------------- the person

function personType(m: Model, w: World, r: number, c: number, v: string): void {
  w.wb.user.edit(w.sheetId, r, c, v);
  m.cells.set(cellKey(r, c), { v, owner: "person", during: m.scope !== null });
  for (const p of m.placements) if (inRect(p.area, r, c)) p.touched = true;
}

const nextValue = (m: Model) => `p${++m.typed}`;

/** Rows or columns inserted (delta > 0) or deleted: the sheet, the mirror and every area the model holds move as in Excel. */
function personShift(m: Model, w: World, axis: "row" | "col", at: number, delta: number): void {
  const u = w.wb.user;
  if (axis === "row") (delta > 0 ? u.insertRows : u.deleteRows)(w.sheetId, at, Math.abs(delta));
  else (delta > 0 ? u.insertColumns : u.deleteColumns)(w.sheetId, at, Math.abs(delta));
  const next = new Map<string, MCell>();
  for (const [k, cell] of m.cells) {
    const [r, c] = unKey(k);
    let p = axis === "row" ? r : c;
    if (delta < 0 && p >= at && p < at - delta) continue;
    if (p >= at) p += delta;
    next.set(axis === "row" ? cellKey(p, c) : cellKey(r, p), cell);
  }
  m.cells = next;
  const move = (a: Rect) => shiftArea(a, axis, at, delta);
  for (const p of m.placements) {
    const a = move(p.area);
    if (!a) throw new Error(`the journey deleted every row of the placement at ${a1(p.area)} (a generator bug)`);
    p.area = a;
  }
  if (m.scope) {
    m.scope.allowed = m.scope.allowed.map(move).filter((a): a is Rect => a !== null);
    m.scope.overwrite = m.scope.overwrite.flatMap((o) => {
      const a = move(o.area);
      return a ? [{ ...o, area: a }] : [];
    });
  }
}

function personRename(m: Model, w: World): void {
  const name = `Sales ${++m.typed}`;
  w.wb.user.renameSheet(w.sheetId, name);
  m.sheetName = name;
}

/** Where rows can be inserted "above" an area without landing inside another placement: its first row, else row 1. */
function rowAbove(m: Model, a: Rect): number {
  return m.placements.some((p) => a.row > p.area.row && a.row < p.area.row + p.area.rows) ? 0 : a.row;
}
function colLeftOf(m: Model, a: Rect): number {
  return m.placements.some((p) => a.col > p.area.col && a.col < p.area.col + p.area.cols) ? 0 : a.col;
}
const outsideAll = (m: Model, r: number, c: number) => !m.placements.some((p) => inRect(p.area, r, c));

/** Arms what the person does (or how the record fails) during the step; `area()` is the placement or target as it is then. */
function arm(m: Model, w: World, d: During | null, area: () => Rect | null): void {
  w.hooks = {};
  if (!d) return;
  if (d.what === "fail5xx" || d.what === "drop") {
    w.hooks.fault = { kind: d.what === "fail5xx" ? "5xx" : "drop", fired: null };
    return;
  }
  w.hooks.act = {
    when: d.when,
    fn: () => {
      const a = area();
      count(w.stats.ops, `during:${d.what}@${d.when}`);
      m.trace.push(`    … meanwhile the person: ${d.what}`);
      if (d.what === "rename") return personRename(m, w);
      if (!a) return;
      if (d.what === "insertAbove") return personShift(m, w, "row", rowAbove(m, a), 1);
      if (d.what === "type") return personType(m, w, a.row + (d.r % a.rows), a.col + (d.c % a.cols), nextValue(m));
      const r = a.row + a.rows + (d.r % 2);
      const c = a.col + (d.c % a.cols);
      if (outsideAll(m, r, c)) personType(m, w, r, c, nextValue(m));
    },
  };
}

// ---------------------------------------------------------------- the promise

function violation(m: Model, invariant: string, detail: string): never {
  throw new JourneyViolation(invariant, detail, m.trace);
}

/**
 * Every cell that differs from the mirror after a Cellbound step must be one it may change (`outside`), and a
 * person's only where they chose it (`clobber`); then the mirror takes the sheet as it is.
 */
function adjudicate(m: Model, w: World, scope: Scope, what: string): void {
  const actual = w.wb.user.cells(w.sheetId);
  for (const k of new Set([...m.cells.keys(), ...actual.keys()])) {
    const old = m.cells.get(k);
    const now = actual.get(k) ?? "";
    if ((old?.v ?? "") === now) continue;
    const [r, c] = unKey(k);
    const at = `${m.sheetName}!${cellA1(r, c)}`;
    const ownStale = old?.owner === "cellbound" && now === "";
    if (!ownStale && !scope.allowed.some((a) => inRect(a, r, c)))
      violation(m, "outside", `${what} changed ${at} from ${show(old?.v)} to ${show(now)}, outside the placements it concerns`);
    if (old?.owner === "person" && !scope.overwrite.some((o) => inRect(o.area, r, c) && (o.during || !old.during)))
      violation(m, "clobber", `${what} changed the person's ${at} from ${show(old.v)} to ${show(now)} (no Overwrite chosen for it)`);
    if (now === "") m.cells.delete(k);
    else m.cells.set(k, { v: now, owner: "cellbound" });
  }
  for (const [k, cell] of m.cells) {
    delete cell.during;
    const [r, c] = unKey(k);
    if (cell.v === "" && outsideAll(m, r, c)) m.cells.delete(k); // a cleared cell outside every placement is just empty
  }
}

/** After placed / refreshed / done (and kept, outside the kept chunks): the cells are the report's current grid. */
async function assertGrid(
  m: Model,
  w: World,
  p: MPlacement,
  keptRows: { from: number; to: number }[] = [],
  /** Kept over rows or columns moved inside (issue 30): its area is what it holds, not the report's shape. */
  moved = false,
): Promise<void> {
  const grid = await expectedGrid(w.env, m.variants[p.report]!);
  const shape = { rows: grid.length, cols: grid[0]!.length };
  if (!moved && (p.area.rows !== shape.rows || p.area.cols !== shape.cols))
    violation(m, "grid", `the placement at ${a1(p.area)} should have the report's shape ${shape.rows}×${shape.cols}`);
  const chunk = (r: number) => Math.floor(r / 1000);
  const keptChunks = new Set(
    keptRows.flatMap((k) => Array.from({ length: chunk(Math.min(k.to, shape.rows)) - chunk(k.from) + 1 }, (_, i) => chunk(k.from) + i)),
  );
  for (let r = 0; r < shape.rows; r++) {
    if (keptChunks.has(chunk(r))) continue;
    for (let c = 0; c < shape.cols; c++) {
      const cell = m.cells.get(cellKey(p.area.row + r, p.area.col + c));
      if (cell?.owner === "person") continue; // typed while the step ran
      if ((cell?.v ?? "") !== grid[r]![c])
        violation(
          m,
          "grid",
          `${m.sheetName}!${cellA1(p.area.row + r, p.area.col + c)} holds ${show(cell?.v)}, the report has ${show(grid[r]![c])}`,
        );
    }
  }
}

/** Where a write still pending may have left cells (its journal's shapes from where the placement is). */
function pendingZones(m: Model, locals: readonly LocalPlacement[]): Rect[] {
  return locals.flatMap((l) => {
    const p = m.placements.find((x) => x.key === l.key);
    if (!p || !l.pending) return [];
    const rows = Math.max(p.area.rows, l.shape.rows, l.pending.shape.rows);
    const cols = Math.max(p.area.cols, l.shape.cols, l.pending.shape.cols);
    return [{ row: p.area.row, col: p.area.col, rows, cols }];
  });
}

/** where, stale (after every step); falseEdit, agree (after a check). */
async function assertPromise(m: Model, w: World, checked: CheckReport | null): Promise<void> {
  const locals = await loadPlacements(w.wb.port);
  const tracked = await w.wb.port.tracked();
  const keys = (xs: readonly { key: string }[]) => xs.map((x) => x.key).sort();
  if (JSON.stringify(keys(locals)) !== JSON.stringify(keys(m.placements)))
    violation(m, "where", `the workbook tracks ${locals.length} placement(s), the person made ${m.placements.length}`);
  for (const p of m.placements) {
    const l = locals.find((x) => x.key === p.key)!;
    const t = tracked.find((x) => x.name.toLowerCase() === l.name.toLowerCase())?.area;
    if (!t || t.row !== p.area.row || t.col !== p.area.col || t.rows !== p.area.rows || t.cols !== p.area.cols)
      violation(m, "where", `a placement is tracked at ${t ? a1(t) : "nothing"}; it is at ${a1(p.area)}`);
  }
  const zones = [...m.placements.map((p) => p.area), ...pendingZones(m, locals)];
  for (const [k, cell] of m.cells) {
    const [r, c] = unKey(k);
    if (cell.owner === "cellbound" && !zones.some((z) => inRect(z, r, c)))
      violation(m, "stale", `${m.sheetName}!${cellA1(r, c)} still holds ${show(cell.v)} written by Cellbound, outside every placement`);
  }
  if (!checked) return;
  for (const pc of checked.placements) {
    const p = m.placements.find((x) => x.key === pc.key);
    if (pc.edit === "edited" && !p?.touched)
      violation(m, "falseEdit", `check says the placement at ${pc.range} is edited by hand (rows ${JSON.stringify(pc.editedRows)})`);
  }
  await assertAgree(m, w, locals);
}

async function assertAgree(m: Model, w: World, locals: readonly LocalPlacement[]): Promise<void> {
  const records = w.env.platform.state.placements().filter((x) => x.workbookId === w.workbookId);
  const actual = w.wb.user.cells(w.sheetId);
  for (const p of m.placements) {
    const l = locals.find((x) => x.key === p.key)!;
    if (l.pending) continue;
    const rec = records.find((x) => x.id === l.placementId);
    const where = `the placement at ${a1(p.area)}`;
    if (!rec || !l.committed) violation(m, "agree", `${where} has no record on the platform (nothing pending)`);
    if (!sameGrid(l.committed, rec.resultChecksum))
      violation(m, "agree", `${where}: the workbook's checksum and the platform's differ with nothing pending`);
    const start = cellA1(p.area.row, p.area.col);
    // Resized by hand inside (issue 30): the platform records the report's shape from its first cell.
    const shape = p.resized ? l.shape : p.area;
    const end = cellA1(p.area.row + shape.rows - 1, p.area.col + shape.cols - 1);
    if (rec.sheetName !== m.sheetName || rec.anchorCell !== start || rec.endResultCell !== end || l.anchorCell !== start)
      violation(m, "agree", `${where} on ${m.sheetName}: the platform records ${rec.sheetName}!${rec.anchorCell}:${rec.endResultCell}`);
    if (!p.touched) {
      const cells = Array.from({ length: p.area.rows }, (_, r) =>
        Array.from({ length: p.area.cols }, (_, c) => actual.get(cellKey(p.area.row + r, p.area.col + c)) ?? ""),
      );
      if (!sameGrid(await fingerprintGrid(cells), rec.resultChecksum))
        violation(m, "agree", `${where}: its cells do not match the recorded checksum, and no person edited them`);
    }
  }
  if (locals.some((l) => l.pending)) return;
  const ids = new Set(locals.map((l) => l.placementId));
  for (const rec of records)
    if (!ids.has(rec.id))
      violation(m, "agree", `the platform records a placement at ${rec.resultLocation} that the workbook does not track`);
}

/** Check, as the pane does after every operation: it may finish a write (clear leftovers, record); then the promise. */
async function followUpCheck(m: Model, w: World): Promise<void> {
  const locals = await loadPlacements(w.wb.port);
  const scope: Scope = { allowed: [...m.placements.map((p) => p.area), ...pendingZones(m, locals)], overwrite: [] };
  let report: CheckReport;
  try {
    report = await check(w.engine);
  } catch (e) {
    violation(m, "error", `check failed: ${(e as Error).message}`);
  }
  count(w.stats.outcomes, `check:${report.placements.map((p) => p.edit).join(",") || "none"}`);
  adjudicate(m, w, scope, "check");
  await assertPromise(m, w, report);
}

/**
 * One Cellbound step: arm the person's action, run it (with `scope` saying what it may change), hold the sheet to
 * the scope, assert the promise, then check as the pane does.
 */
async function cellboundStep(m: Model, w: World, name: string, scope: Scope, body: () => Promise<Outcome>): Promise<void> {
  m.scope = scope;
  let out: Outcome;
  try {
    out = await body();
  } finally {
    w.hooks = {};
    m.scope = null;
  }
  m.trace.push(`  → ${out.outcome}`);
  count(w.stats.outcomes, `${name}:${out.outcome}`);
  adjudicate(m, w, scope, name);
  await out.after?.();
  await assertPromise(m, w, null);
  await followUpCheck(m, w);
}

/** How a Cellbound step ended, and what to assert once the mirror holds the sheet as it is. */
interface Outcome {
  outcome: string;
  after?: () => Promise<void> | void;
}

/** An error is a violation unless a fault was injected into the step (then the journal covers it). */
function injected(m: Model, w: World, e: unknown): { placementId?: string } {
  if (e instanceof JourneyViolation) throw e;
  const fired = w.hooks.fault?.fired;
  if (!fired) violation(m, "error", `the step failed with no fault injected: ${(e as Error).message}`);
  if (!(e instanceof Error) || !e.message.trim()) violation(m, "error", `the step failed without saying why (${String(e)})`);
  return fired;
}

// ---------------------------------------------------------------- Cellbound's steps

const shapeOf = (grid: SheetValue[][]) => ({ rows: grid.length, cols: grid[0]!.length });
const at = (w: World, r: Rect) => ({ sheetId: w.sheetId, row: r.row, col: r.col });
const personCellsIn = (m: Model, a: Rect, typedBefore = false) =>
  [...m.cells].filter(([k, c]) => c.owner === "person" && !(typedBefore && c.during) && inRect(a, ...unKey(k)));

/** A placement whose cells were just written whole: it is the grid, and edited only where the person typed since. */
function written(m: Model, w: World, p: MPlacement): () => Promise<void> {
  return async () => {
    p.touched = personCellsIn(m, p.area).length > 0;
    await assertGrid(m, w, p);
  };
}

async function place(
  m: Model,
  w: World,
  o: { report: number; row: number; col: number; confirm: boolean; during: During | null },
): Promise<void> {
  const grid = await expectedGrid(w.env, m.variants[o.report]!);
  const target: Rect = { row: o.row, col: o.col, ...shapeOf(grid) };
  const scope: Scope = { allowed: [target], overwrite: [] };
  // Where the person aimed: the cell chosen, or where it moved while Cellbound waited (either is where they aimed).
  const aimed = { ...target };
  arm(m, w, o.during, () => scope.allowed[0] ?? null);
  await cellboundStep(m, w, "place", scope, async () => {
    const report = w.reports[o.report]!;
    let asked = "";
    try {
      let out = await w.engine.place(report, { at: at(w, aimed) });
      scope.allowed.push(aimed);
      if (out.kind === "wouldOverwrite" && o.confirm) {
        for (const cell of m.cells.values()) delete cell.during; // what the person saw when asked
        const there: Rect = { ...out.at, ...shapeOf(grid) };
        scope.allowed.push(there);
        scope.overwrite.push({ area: there, during: false });
        asked = "wouldOverwrite→confirmed:";
        out = await w.engine.place(report, { at: out.at, confirmed: true });
      }
      if (out.kind !== "placed") return { outcome: asked + out.kind };
      return { outcome: asked + "placed", after: placedAt(m, w, o.report, await keyAndArea(w, out.key), scope) };
    } catch (e) {
      injected(m, w, e);
      scope.allowed.push(aimed);
      const fresh = (await loadPlacements(w.wb.port)).find((l) => !m.placements.some((p) => p.key === l.key));
      if (!fresh) return { outcome: `${asked}failed before writing (${w.hooks.fault?.kind})` };
      return {
        outcome: `${asked}written, record failed (${w.hooks.fault?.kind})`,
        after: placedAt(m, w, o.report, await keyAndArea(w, fresh.key), scope),
      };
    }
  });
}

async function keyAndArea(w: World, key: string): Promise<{ key: string; area: Rect | null }> {
  const l = (await loadPlacements(w.wb.port)).find((x) => x.key === key)!;
  const t = (await w.wb.port.tracked()).find((x) => x.name.toLowerCase() === l.name.toLowerCase())?.area ?? null;
  return { key, area: t && { row: t.row, col: t.col, rows: t.rows, cols: t.cols } };
}

/** A new placement: where the person aimed (or where their moves meanwhile took that cell), with the report's shape. */
function placedAt(m: Model, w: World, report: number, found: { key: string; area: Rect | null }, scope: Scope): () => Promise<void> {
  const a = found.area;
  if (!a || !scope.allowed.some((s) => s.row === a.row && s.col === a.col && s.rows === a.rows && s.cols === a.cols))
    violation(m, "where", `placed at ${a ? a1(a) : "nothing"}; the person aimed at ${scope.allowed.map(a1).join(" or ")}`);
  const p: MPlacement = { key: found.key, report, area: a, touched: false };
  m.placements.push(p);
  return written(m, w, p);
}

async function refresh(m: Model, w: World, o: { i: number; choice: "overwrite" | "keep"; during: During | null }): Promise<void> {
  const p = m.placements[o.i % m.placements.length]!;
  const grid = await expectedGrid(w.env, m.variants[p.report]!);
  const scope: Scope = { allowed: [p.area], overwrite: [] };
  // Its area is not what it records (rows or columns moved inside, kept before): Keep leaves all of it (issue 30).
  const rec = (await loadPlacements(w.wb.port)).find((x) => x.key === p.key);
  const reshaped = !!rec && !rec.pending && (rec.shape.rows !== p.area.rows || rec.shape.cols !== p.area.cols);
  arm(m, w, o.during, () => p.area);
  await cellboundStep(m, w, "refresh", scope, async () => {
    let via = "";
    let out: RefreshOutcome;
    let asked: HandEdits | null = null;
    try {
      out = await w.engine.refresh(p.key, "ask");
      if (out.kind === "handEdited") {
        if (!p.touched) violation(m, "falseEdit", `refresh says ${out.edits.ranges.join(", ")} edited by hand; no person edited it`);
        asked = out.edits;
        via = `handEdited→${o.choice}:`;
        if (o.choice === "overwrite") scope.overwrite.push({ area: p.area, during: true });
        out = await w.engine.refresh(p.key, o.choice);
      } else if (out.kind === "refreshed") {
        const missed = personCellsIn(m, p.area, true);
        if (missed.length)
          violation(
            m,
            "unseen",
            `refresh ("ask") said refreshed over the person's ${missed.map(([k, c]) => `${cellA1(...unKey(k))}=${show(c.v)}`).join(", ")}`,
          );
      }
    } catch (e) {
      injected(m, w, e);
      // Written, not recorded: as after the same refresh recorded (Keep: with the rows the person was asked about).
      const as: RefreshOutcome = asked && o.choice === "keep" ? { kind: "kept", edits: asked, stats: {} as RefreshStats } : REFRESHED;
      return { outcome: `${via}written, record failed (${w.hooks.fault?.kind})`, after: afterRefresh(m, w, p, as, grid, scope, reshaped) };
    }
    return { outcome: via + out.kind, after: afterRefresh(m, w, p, out, grid, scope, reshaped) };
  });
}

const REFRESHED: RefreshOutcome = { kind: "refreshed", stats: {} as RefreshStats, notices: [] };

/** The model after a refresh's outcome (its area, its kept rows) and what to assert. */
function afterRefresh(
  m: Model,
  w: World,
  p: MPlacement,
  out: RefreshOutcome,
  grid: SheetValue[][],
  scope: Scope,
  reshaped = false,
): () => Promise<void> {
  const old = p.area;
  const moved = out.kind === "kept" && (out.edits.structure !== undefined || reshaped);
  // Keep my edits over rows or columns inserted or deleted inside (issue 30): it keeps covering what it holds.
  const shape = shapeOf(grid);
  const next = moved ? { ...old, cols: Math.max(old.cols, shape.cols) } : { row: old.row, col: old.col, ...shape };
  if (out.kind === "missing") violation(m, "where", `refresh says the placement at ${a1(old)} is missing: ${out.reason}`);
  if (out.kind === "handEdited") violation(m, "error", `refresh with a choice asked again`);
  if (out.kind === "cannotGrow") return async () => assertBlocked(m, old, next, out.reason);
  scope.allowed.push(next);
  p.area = next;
  if (!moved) p.resized = false;
  if (out.kind === "refreshed") return written(m, w, p);
  return async () => {
    // Keep my edits: kept rows the placement no longer covers stay as they were, the person's now.
    for (const [k, c] of m.cells) {
      const [r, col] = unKey(k);
      const rel = r - old.row;
      if (
        c.owner === "cellbound" &&
        inRect(old, r, col) &&
        !inRect(next, r, col) &&
        out.edits.rows.some((x) => rel >= x.from && rel <= x.to)
      )
        c.owner = "person";
    }
    p.touched = true;
    // Rows or columns moved inside: every row from the first of them down is left as the person left it.
    const first = out.edits.structure ? movedFrom(out.edits.structure) : 0;
    const kept = moved ? [...out.edits.rows, { from: first, to: Number.MAX_SAFE_INTEGER }] : out.edits.rows;
    await assertGrid(m, w, p, kept, moved);
  };
}

/** "Cannot grow" only when what it grows into holds something: a value, or another placement. */
function assertBlocked(m: Model, old: Rect, next: Rect, reason: string): void {
  const grows = (r: number, c: number) => inRect(next, r, c) && !inRect(old, r, c);
  const held = [...m.cells].some(([k, c]) => c.v !== "" && grows(...unKey(k)));
  const other = m.placements.some((q) => (q.area.row !== old.row || q.area.col !== old.col) && overlaps(q.area, next));
  if (!held && !other) violation(m, "cannotGrow", `refresh says "${reason}", but ${a1(next)} beyond ${a1(old)} is empty`);
}

async function refreshAll(m: Model, w: World, o: { during: During | null }): Promise<void> {
  const scope: Scope = { allowed: m.placements.map((p) => p.area), overwrite: [] };
  arm(m, w, o.during, () => m.placements[(o.during?.i ?? 0) % m.placements.length]?.area ?? null);
  await cellboundStep(m, w, "refreshAll", scope, async () => {
    const out = await w.engine.refreshAll();
    const locals = await loadPlacements(w.wb.port);
    const failedId = w.hooks.fault?.fired?.placementId;
    const after: (() => Promise<void>)[] = [];
    for (const [key, item] of Object.entries(out.items)) {
      const p = m.placements.find((x) => x.key === key)!;
      const failed = failedId !== undefined && locals.find((l) => l.key === key)?.placementId === failedId;
      const next = { row: p.area.row, col: p.area.col, ...shapeOf(await expectedGrid(w.env, m.variants[p.report]!)) };
      if (item.state === "not-refreshed" && !failed) {
        const old = { ...p.area };
        if (/^Edited by hand| by hand at (rows?|columns?) /.test(item.reason)) {
          if (!p.touched) violation(m, "falseEdit", `Refresh all says "${item.reason}"; no person edited it`);
        } else if (/would grow into|does not fit/.test(item.reason)) after.push(async () => assertBlocked(m, old, next, item.reason));
        else violation(m, "error", `Refresh all did not refresh a placement: ${item.reason}`);
      }
      if (item.state !== "done" && !failed) continue;
      scope.allowed.push(next);
      p.area = next;
      p.resized = false;
      after.push(written(m, w, p));
    }
    const states = Object.values(out.items).map((x) => (x.state === "not-refreshed" ? x.reason.split(/[:(]/)[0]!.trim() : x.state));
    return {
      outcome: states.join(", ") || "nothing",
      after: async () => {
        for (const f of after) await f();
      },
    };
  });
}

async function disconnect(m: Model, w: World, o: { i: number }): Promise<void> {
  const p = m.placements[o.i % m.placements.length]!;
  await cellboundStep(m, w, "disconnect", { allowed: [], overwrite: [] }, async () => {
    await w.engine.disconnect(p.key);
    m.placements.splice(m.placements.indexOf(p), 1);
    return {
      outcome: "disconnected",
      after: () => {
        // Its cells stay as plain values: the person's from now on.
        for (const [k, c] of m.cells) if (inRect(p.area, ...unKey(k))) c.owner = "person";
      },
    };
  });
}

// ---------------------------------------------------------------- commands

type Cmd = fc.AsyncCommand<Model, World>;

/** A step of a journey: counted, traced (the trace is in every violation's message), named in a counterexample. */
function cmd(name: string, check: (m: Readonly<Model>) => boolean, run: (m: Model, w: World) => Promise<void> | void): Cmd {
  return {
    check,
    run: async (m, w) => {
      w.stats.steps++;
      const op = name.replace(/\(.*/, "");
      count(w.stats.ops, op);
      m.trace.push(name);
      const t0 = performance.now();
      await run(m, w);
      w.stats.ms[op] = (w.stats.ms[op] ?? 0) + Math.round(performance.now() - t0);
    },
    toString: () => name,
  };
}

const any = (m: Readonly<Model>) => m.placements.length > 0;
const pick = (m: Readonly<Model>, i: number) => m.placements[i % m.placements.length]!;
const rowsOf = (m: Readonly<Model>, from: number, to: number) =>
  m.placements.some((p) => p.area.row < to && from < p.area.row + p.area.rows);

const duringArb = (whens: When[]): fc.Arbitrary<During | null> =>
  fc.option(
    fc.record({
      what: fc.constantFrom<During["what"]>("type", "typeBelow", "insertAbove", "rename", "fail5xx", "drop"),
      when: fc.constantFrom(...whens),
      i: fc.nat(3),
      r: fc.nat(40),
      c: fc.nat(3),
    }),
    { freq: 2 },
  );
const duringName = (d: During | null) =>
  d ? `, meanwhile ${d.what}${d.what === "fail5xx" || d.what === "drop" ? "" : `@${d.when} r${d.r} c${d.c}`}` : "";

/** What a person does to the workbook between Cellbound's steps. */
function personCommands(): fc.Arbitrary<Cmd>[] {
  const value = (m: Model) => nextValue(m);
  return [
    fc.record({ i: fc.nat(3), r: fc.nat(40), c: fc.nat(3) }).map(({ i, r, c }) =>
      cmd(`editInside(#${i} r${r} c${c})`, any, (m, w) => {
        const a = pick(m, i).area;
        personType(m, w, a.row + (r % a.rows), a.col + (c % a.cols), value(m));
      }),
    ),
    fc.record({ i: fc.nat(3), r: fc.nat(40) }).map(({ i, r }) =>
      cmd(`clearRowInside(#${i} r${r})`, any, (m, w) => {
        const a = pick(m, i).area;
        for (let c = a.col; c < a.col + a.cols; c++) personType(m, w, a.row + (r % a.rows), c, "");
      }),
    ),
    fc
      .record({ i: fc.nat(3), k: fc.integer({ min: 1, max: 2 }) })
      .map(({ i, k }) => cmd(`insertRowsAbove(#${i} ×${k})`, any, (m, w) => personShift(m, w, "row", rowAbove(m, pick(m, i).area), k))),
    fc.nat(3).map((i) => cmd(`insertColumnLeft(#${i})`, any, (m, w) => personShift(m, w, "col", colLeftOf(m, pick(m, i).area), 1))),
    fc.record({ i: fc.nat(3), k: fc.integer({ min: 1, max: 2 }) }).map(({ i, k }) =>
      cmd(
        `deleteRowsAbove(#${i} ×${k})`,
        (m) => any(m) && pick(m, i).area.row >= k && !rowsOf(m, pick(m, i).area.row - k, pick(m, i).area.row),
        (m, w) => personShift(m, w, "row", pick(m, i).area.row - k, -k),
      ),
    ),
    fc.constant(
      cmd(
        "renameSheet",
        () => true,
        (m, w) => personRename(m, w),
      ),
    ),
    fc.record({ i: fc.nat(3), r: fc.nat(1), c: fc.nat(3) }).map(({ i, r, c }) => {
      const cell = (m: Readonly<Model>) => {
        const a = pick(m, i).area;
        return [a.row + a.rows + r, a.col + (c % a.cols)] as const;
      };
      return cmd(
        `typeBelow(#${i} +${r} c${c})`,
        (m) => any(m) && outsideAll(m as Model, ...cell(m)),
        (m, w) => personType(m, w, ...cell(m), value(m)),
      );
    }),
    fc.record({ i: fc.nat(3), r: fc.nat(40) }).map(({ i, r }) => {
      const cell = (m: Readonly<Model>) => {
        const a = pick(m, i).area;
        return [a.row + (r % a.rows), a.col + a.cols] as const;
      };
      return cmd(
        `typeBeside(#${i} r${r})`,
        (m) => any(m) && outsideAll(m as Model, ...cell(m)),
        (m, w) => personType(m, w, ...cell(m), value(m)),
      );
    }),
  ];
}

/** The report changes on the platform (someone edits it): more or fewer rows, other columns, other values. */
function reportChange(): fc.Arbitrary<Cmd> {
  const variant = fc.oneof(
    { arbitrary: fc.constantFrom(...SMALL), weight: 8 },
    { arbitrary: fc.constantFrom<Variant>("big", "bigf"), weight: 1 },
  );
  return fc.record({ report: fc.nat(1), v: variant }).map(({ report, v }) =>
    cmd(
      `reportChanges(R${report + 1} → ${v})`,
      (m) => m.variants[report] !== v,
      async (m, w) => {
        w.reports[report] = await w.env.client().updateReport(w.env.deploymentId, w.reports[report]!.id, { jsonQuery: VARIANTS[v] });
        m.variants[report] = v;
      },
    ),
  );
}

/** Rows and columns inserted or deleted inside a placement (issue 30's next piece; off by default). */
function insideStructuralCommands(): fc.Arbitrary<Cmd>[] {
  const insideOf = (m: Model, axis: "row" | "col", at: number) => {
    for (const p of m.placements) {
      const [start, size] = axis === "row" ? [p.area.row, p.area.rows] : [p.area.col, p.area.cols];
      if (at > start && at < start + size) p.touched = true;
    }
  };
  const inserted = (m: Model, axis: "row" | "col", at: number) => {
    // The new empty cells inside a placement are the person's (an inserted row is their edit).
    for (const p of m.placements)
      for (let k = 0; k < (axis === "row" ? p.area.cols : p.area.rows); k++) {
        const [r, c] = axis === "row" ? [at, p.area.col + k] : [p.area.row + k, at];
        if (inRect(p.area, r, c)) m.cells.set(cellKey(r, c), { v: "", owner: "person", during: m.scope !== null });
      }
  };
  const structural = (verb: "insert" | "delete", axis: "row" | "col") =>
    fc.record({ i: fc.nat(3), k: fc.nat(40) }).map(({ i, k }) => {
      const where = (m: Readonly<Model>) => {
        const a = pick(m, i).area;
        const [start, size] = axis === "row" ? [a.row, a.rows] : [a.col, a.cols];
        return verb === "insert" ? start + 1 + (k % (size - 1)) : start + (k % size);
      };
      const big = (m: Readonly<Model>) => (axis === "row" ? pick(m, i).area.rows : pick(m, i).area.cols) >= (verb === "insert" ? 2 : 3);
      return cmd(
        `${verb}${axis === "row" ? "Row" : "Column"}Inside(#${i} k${k})`,
        (m) => any(m) && big(m),
        (m, w) => {
          const atIndex = where(m);
          // A row or column deleted inside a placement, or inserted inside it, is the person's edit of it.
          if (verb === "delete") {
            for (const p of m.placements)
              if (
                inRect(
                  { ...p.area, ...(axis === "row" ? { col: 0, cols: 1e9 } : { row: 0, rows: 1e9 }) },
                  axis === "row" ? atIndex : 0,
                  axis === "row" ? 0 : atIndex,
                )
              )
                p.touched = true;
          } else insideOf(m, axis, atIndex);
          const before = m.placements.map((p) => ({ ...p.area }));
          personShift(m, w, axis, atIndex, verb === "insert" ? 1 : -1);
          m.placements.forEach((p, j) => {
            if (p.area.rows !== before[j]!.rows || p.area.cols !== before[j]!.cols) p.resized = true;
          });
          if (verb === "insert") inserted(m, axis, atIndex);
        },
      );
    });
  return [structural("insert", "row"), structural("delete", "row"), structural("insert", "col"), structural("delete", "col")];
}

/** Cellbound's steps, each with what the person may do while it waits on the network. */
function cellboundCommands(): { arb: fc.Arbitrary<Cmd>; weight: number }[] {
  const place$ = fc
    .record({
      report: fc.nat(1),
      row: fc.constantFrom(0, 1, 3, 8),
      col: fc.constantFrom(0, 2, 4, 7),
      confirm: fc.boolean(),
      during: duringArb(["upsert", "write", "load"]),
    })
    .map((o) =>
      cmd(
        `place(R${o.report + 1} at ${cellA1(o.row, o.col)}${o.confirm ? ", confirm" : ""}${duringName(o.during)})`,
        () => true,
        (m, w) => place(m, w, o),
      ),
    );
  const refresh$ = fc
    .record({
      i: fc.nat(3),
      choice: fc.constantFrom<"overwrite" | "keep">("overwrite", "keep"),
      during: duringArb(["load", "record", "write"]),
    })
    .map((o) => cmd(`refresh(#${o.i}, else ${o.choice}${duringName(o.during)})`, any, (m, w) => refresh(m, w, o)));
  const all$ = duringArb(["load", "write"]).map((during) =>
    cmd(`refreshAll(${duringName(during).slice(2)}${during ? ` on #${during.i}` : ""})`, any, (m, w) => refreshAll(m, w, { during })),
  );
  const check$ = fc.constant(
    cmd(
      "check",
      () => true,
      (m, w) => followUpCheck(m, w),
    ),
  );
  const disconnect$ = fc.nat(3).map((i) => cmd(`disconnect(#${i})`, any, (m, w) => disconnect(m, w, { i })));
  return [
    { arb: place$, weight: 5 },
    { arb: refresh$, weight: 6 },
    { arb: all$, weight: 2 },
    { arb: check$, weight: 1 },
    { arb: disconnect$, weight: 1 },
  ];
}

export function journeyCommands(o: { insideStructural: boolean }): fc.Arbitrary<Cmd>[] {
  const weighted = [
    ...personCommands().map((arb, k) => ({ arb, weight: [5, 2, 2, 1, 1, 1, 2, 1][k]! })),
    { arb: reportChange(), weight: 5 },
    ...(o.insideStructural ? insideStructuralCommands().map((arb) => ({ arb, weight: 1 })) : []),
    ...cellboundCommands(),
  ];
  // fc.commands picks among its arbitraries uniformly: an arbitrary listed `weight` times is picked that much more often.
  return weighted.flatMap(({ arb, weight }) => Array.from({ length: weight }, () => arb));
}

// ---------------------------------------------------------------- running journeys

export interface JourneyOptions {
  seed: number;
  /** Journeys (fast-check runs). */
  runs: number;
  /** Most steps per journey. */
  steps: number;
  insideStructural?: boolean;
  /** Stop starting journeys after this long (then the run fails: it did not do what it was asked). */
  timeLimitMs?: number;
  /** Replay one journey: the `path` fast-check printed with the seed. */
  path?: string;
  /** false: report the first failing journey as it is (no shrinking). */
  shrink?: boolean;
  /**
   * For the journeys' own test only: Cellbound misbehaves — a stray cell beside its writes ("outside"), a shrink's
   * clears dropped ("stale"), Keep my edits done as Overwrite ("clobber"), a cell of a placement changed after its
   * write ("grid") — so that the promise is seen to catch it.
   */
  sabotage?: Sabotage;
}
export type Sabotage = "outside" | "stale" | "clobber" | "grid";

export interface JourneyResult {
  stats: JourneyStats;
  durationMs: number;
  /** fast-check's report of the failure (seed, path, shrunk counterexample, the violation), or null. */
  failure: string | null;
}

/** Runs `o.runs` journeys on one workbook kind against `env`; never throws on a violation (it is in `failure`). */
export async function runJourneys(env: Env, kind: WorkbookKind, o: JourneyOptions): Promise<JourneyResult> {
  const stats: JourneyStats = { runs: 0, steps: 0, ops: {}, outcomes: {}, ms: {} };
  let n = 0;
  const t0 = performance.now();
  const property = fc.asyncProperty(
    fc.commands(journeyCommands({ insideStructural: o.insideStructural ?? INSIDE_STRUCTURAL }), { maxCommands: o.steps, size: "max" }),
    async (cmds) => {
      await fc.asyncModelRun(() => newWorld(env, kind, ++n, stats, o.sabotage), cmds);
    },
  );
  const details = await fc.check(property, {
    seed: o.seed,
    numRuns: o.runs,
    ...(o.path ? { path: o.path } : {}),
    ...(o.path || o.shrink === false ? { endOnFailure: true } : {}),
    plugins: o.timeLimitMs ? [fc.interruptAfterTimeLimit(o.timeLimitMs, { failOnInterrupt: true })] : [],
  });
  return {
    stats,
    durationMs: Math.round(performance.now() - t0),
    failure: details.failed || details.interrupted ? failureReport(details) : null,
  };
}

function failureReport(details: fc.RunDetails<unknown>): string {
  const why = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? "");
  return `${fc.defaultReportMessage(details) ?? "failed"}\n\n${why}`;
}
