// Inputs (issue 32): bind a placement's filters to cells, read them for a refresh, show them on a card.
// read → plan (inputs.ts, pure) → write, as the other operations (docs/SYNC.md "Inputs").
//
//   bindInputs     the placement's bindings replaced: one tracking name per bound area, the record's `inputs`;
//                  nothing refreshed (the card then says "Inputs changed — refresh").
//   bindForPlace   a new placement's bindings, planned and read before its query runs.
//   boundReport    a refresh's report with the inputs' values in its query, read from the refresh's own read.
//   inputsView     what a card and `cellbound status` show: each input's cells, values and problem.
import type { Report } from "../api/index.ts";
import type { Area, SheetPort, SheetRef, SheetValue, TrackedArea } from "../host/port.ts";
import { viewOnlyReason } from "./access.ts";
import { readArea, reportsById } from "./context.ts";
import { ViewOnly } from "./errors.ts";
import {
  applyInputs,
  CannotBind,
  circleWords,
  findCircle,
  InvalidInput,
  inputNamesOf,
  inputSources,
  inputsHash,
  parseRef,
  planBindings,
  producers,
  resolveInputs,
  serialToDate,
  whereOf,
  type BoundInputs,
  type InputBinding,
  type InputGraphNode,
  type InputRequest,
  type InputView,
  type MemberKind,
  type PlannedBinding,
  type ReadInput,
  type ResolvedInput,
} from "./inputs.ts";
import { parseJsonQuery, type SemanticQuery } from "./query.ts";
import type { RunnableReport } from "./run-report.ts";
import type { Session } from "./session.ts";
import { loadPlacements, updatePlacement, type LocalPlacement } from "./state.ts";
import type { Engine } from "./types.ts";

/** What the data client may offer for titles and types of members (/v1/meta). */
type MetaSource = { meta?: (signal?: AbortSignal) => Promise<{ cubes: Array<{ measures: MetaMember[]; dimensions: MetaMember[] }> }> };
type MetaMember = { name: string; shortTitle: string; type: string };

export const SQL_NOT_BINDABLE = "SQL reports cannot take inputs: their filters are in the SQL text.";

/** Titles ("region") and kinds of a query's members: from the query, then /v1/meta when the data client has it. */
export async function membersOf(
  data: unknown,
  query: SemanticQuery,
  members: readonly string[],
  signal?: AbortSignal,
): Promise<{ title: (m: string) => string; kindOf: (m: string) => MemberKind; unknown: (m: string) => boolean }> {
  const times = new Set((query.timeDimensions ?? []).map((t) => t.dimension));
  const measures = new Set(query.measures ?? []);
  const known = new Map<string, MetaMember>();
  const meta = (data as MetaSource | null)?.meta;
  if (meta && members.some((m) => !times.has(m) && !measures.has(m))) {
    try {
      for (const c of (await meta(signal)).cubes) {
        for (const m of c.dimensions) known.set(m.name, m);
        for (const m of c.measures) known.set(m.name, { ...m, type: "number" }); // every measure filters on numbers
      }
    } catch (e) {
      if (signal?.aborted) throw e; // no titles and types from meta: the query's own are used
    }
  }
  return {
    // Only where /v1/meta was read and does not list it (a query's own members are known).
    unknown: (m) => known.size > 0 && !known.has(m) && !times.has(m) && !measures.has(m),
    title: (m) => (known.get(m)?.shortTitle ?? m.slice(m.lastIndexOf(".") + 1).replace(/_/g, " ")).toLowerCase(),
    kindOf: (m) => {
      const type = known.get(m)?.type;
      if (times.has(m) || type === "time") return "time";
      return measures.has(m) || type === "number" ? "number" : "text";
    },
  };
}

/** A reader of input names from a read of the workbook (a session holding their values reads nothing more). */
async function readerOf(port: SheetPort, signal?: AbortSignal): Promise<(names: readonly string[]) => Promise<ReadInput>> {
  const tracked = await port.tracked();
  return async (names) => {
    const got = new Map<string, { where: string; grid: SheetValue[][] } | null>();
    for (const n of names) {
      const t = tracked.find((x) => x.name.toLowerCase() === n.toLowerCase());
      got.set(n, t?.area && t.sheet ? { where: whereOf(t.sheet, t.area), grid: await readArea(port, t.area, signal) } : null);
    }
    return (n) => got.get(n) ?? null;
  };
}

/** The workbook's date system, asked only when a date range's cell holds a date serial (a read of its own where the snapshot has none). */
async function dateSystemFor(port: SheetPort, bindings: readonly InputBinding[], read: ReadInput): Promise<1900 | 1904> {
  const serial = (n: string) => read(n)?.grid.some((row) => row.some((v) => typeof v === "number")) === true;
  const serials = bindings.some((b) => b.kind === "dateRange" && b.names.some(serial));
  return serials && port.dateSystem ? port.dateSystem() : 1900;
}

/**
 * The report with the placement's inputs in its query, read from `port` (a refresh's session holds their
 * values: no round trip more), and the hash of the values used; the report as it is when it has none.
 * InvalidInput (naming the cell) before anything is written.
 */
export async function boundReport(
  data: unknown,
  p: LocalPlacement,
  report: Report,
  port: SheetPort,
  signal?: AbortSignal,
): Promise<{ report: Report & RunnableReport; used: string | null }> {
  const bindings = p.inputs ?? [];
  if (!bindings.length) return { report, used: null };
  if (!report.jsonQuery) throw new InvalidInput(`${SQL_NOT_BINDABLE} Remove the inputs of “${p.reportName ?? "the report"}”.`, "");
  const query = parseJsonQuery(report.jsonQuery);
  const { title, kindOf } = await membersOf(
    data,
    query,
    bindings.map((b) => b.member),
    signal,
  );
  const read = await (await readerOf(port, signal))(bindings.flatMap((b) => b.names));
  const resolved = resolveInputs(bindings, read, title, kindOf, await dateSystemFor(port, bindings, read));
  const bound = { ...report, jsonQuery: JSON.stringify(applyInputs(query, resolved)), inputsFrom: inputSources(resolved) };
  return { report: bound, used: await inputsHash(resolved) };
}

/** Each input of a placement as a card shows it, and whether its values differ from those last written. */
export async function inputsView(
  e: Engine,
  key: string,
  signal?: AbortSignal,
): Promise<{ inputs: InputView[]; changed: boolean; autoRefresh: boolean }> {
  const s = await e.session({ trackedValues: inputNamesOf(key), ...(signal ? { signal } : {}) });
  return inputsOn(s, await e.placement(key, s), signal);
}

/**
 * A placement's inputs as read in `port` (a session holding their values reads nothing more: check reads every
 * tracked name). No network: a card asks on every change, so titles and kinds come from the member names.
 */
export async function inputsOn(
  port: SheetPort,
  p: LocalPlacement,
  signal?: AbortSignal,
): Promise<{ inputs: InputView[]; changed: boolean; autoRefresh: boolean }> {
  const bindings = p.inputs ?? [];
  const read = await (await readerOf(port, signal))(bindings.flatMap((b) => b.names));
  const { title, kindOf } = await membersOf(null, {}, []);
  const dateSystem = await dateSystemFor(port, bindings, read);
  const views: InputView[] = [];
  const ok: ResolvedInput[] = [];
  for (const b of bindings) {
    const where = b.names.map((n) => read(n)?.where ?? "(deleted)").join(", ");
    try {
      const [r] = resolveInputs([b], read, title, kindOf, dateSystem);
      ok.push(r!);
      views.push({ member: b.member, title: title(b.member), where: r!.where, values: r!.values, problem: null });
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      views.push({ member: b.member, title: title(b.member), where, values: heldBy(b, read, dateSystem), problem: err.message });
    }
  }
  const changed = bindings.length > 0 && (ok.length < bindings.length || (await inputsHash(ok)) !== (p.inputsUsed ?? null));
  return { inputs: views, changed, autoRefresh: p.autoRefresh === true };
}

/** What an input's cells hold, as text (a card shows them beside why they cannot be used); dates of a date range as dates. */
function heldBy(b: InputBinding, read: ReadInput, dateSystem: 1900 | 1904): string[] {
  const cells = b.names.flatMap((n) => read(n)?.grid.flat() ?? []).filter((v) => v !== "");
  return cells.map((v) => (b.kind === "dateRange" && typeof v === "number" ? serialToDate(v, dateSystem) : String(v)));
}

/** Plan the bindings of placement `key` on what `port` holds (sheets, defined names). */
async function planOn(
  port: SheetPort,
  key: string,
  requests: readonly InputRequest[],
  query: SemanticQuery,
  data: unknown,
  signal?: AbortSignal,
): Promise<{ planned: PlannedBinding[]; kindOf: (m: string) => MemberKind; title: (m: string) => string; sheets: SheetRef[] }> {
  const sheets = await port.sheets();
  const named = new Map<string, { sheet: SheetRef; area: Area } | null>();
  const lookup = port.namedArea?.bind(port);
  for (const r of requests) {
    const ref = parseRef(r.ref);
    if (ref.kind === "name" && !named.has(ref.name)) named.set(ref.name, lookup ? await lookup(ref.name) : null);
  }
  const members = requests.map((r) => r.member);
  const { kindOf, title, unknown } = await membersOf(data, query, members, signal);
  const stranger = members.find(unknown);
  if (stranger) throw new CannotBind(`“${stranger}” is not a member of the data model: check its name (cube.member).`);
  return { planned: planBindings(key, requests, sheets, named, kindOf), kindOf, title, sheets };
}

/** A report's query for binding; CannotBind for a SQL report. */
function bindableQuery(report: Pick<Report, "jsonQuery" | "sqlQuery">): SemanticQuery {
  if (!report.jsonQuery) throw new CannotBind(SQL_NOT_BINDABLE);
  return parseJsonQuery(report.jsonQuery);
}

/**
 * A new placement's inputs (place.ts): planned, their values read and checked, before the query runs.
 * `key`: the key the placement will have (its inputs' names carry it).
 */
export async function bindForPlace(
  e: Engine,
  report: Report,
  key: string,
  requests: readonly InputRequest[],
  signal?: AbortSignal,
): Promise<{ bound: BoundInputs; report: Report & RunnableReport }> {
  const query = bindableQuery(report);
  const port = e.ctx.port;
  const { planned, kindOf, title, sheets } = await planOn(port, key, requests, query, e.ctx.data, signal); // one look at the sheets
  const grids = new Map<string, { where: string; grid: SheetValue[][] }>();
  for (const pb of planned)
    for (const [i, name] of pb.binding.names.entries()) {
      const area = pb.areas[i]!;
      const sheet = sheets.find((x) => x.id === area.sheetId)!;
      grids.set(name, { where: whereOf(sheet, area), grid: await readArea(port, area, signal) });
    }
  const read: ReadInput = (n) => grids.get(n) ?? null;
  const bindings = planned.map((pb) => pb.binding);
  const resolved = resolveInputs(bindings, read, title, kindOf, await dateSystemFor(port, bindings, read));
  const bound: BoundInputs = { key, planned, used: await inputsHash(resolved) };
  return { bound, report: { ...report, jsonQuery: JSON.stringify(applyInputs(query, resolved)), inputsFrom: inputSources(resolved) } };
}

/** Queue a new placement's input names (in the commit that tracks the placement's own name). */
export async function trackInputs(s: SheetPort, bound: BoundInputs): Promise<void> {
  for (const pb of bound.planned) for (const [i, name] of pb.binding.names.entries()) await s.track(name, pb.areas[i]!);
}

/** Queue the untracking of a placement's input names (a placement taken back or disconnected). */
export async function untrackInputs(s: SheetPort, p: LocalPlacement): Promise<void> {
  const names = (p.inputs ?? []).flatMap((b) => b.names);
  if (!names.length) return;
  const tracked = new Set((await s.tracked()).map((x) => x.name.toLowerCase()));
  for (const name of names) if (tracked.has(name.toLowerCase())) await s.untrack(name);
}

/**
 * Replace a placement's bindings ([] removes them): nothing refreshed. CannotBind for a SQL report, a
 * reference that is not there, or a circle (its inputs would come from placements that take theirs from it).
 */
export function bindInputs(e: Engine, key: string, requests: readonly InputRequest[], o: { signal?: AbortSignal } = {}): Promise<void> {
  return e.exclusive(async () => {
    const s = await e.session(o.signal ? { signal: o.signal } : {});
    const p = await e.placement(key, s);
    refuseViewOnly(e, p);
    let planned: PlannedBinding[] = [];
    if (requests.length) {
      const report = (await reportsById(e.ctx, p.deploymentId, (await s.identity()).workbookId, o.signal)).get(p.reportId);
      if (!report) throw new CannotBind(`“${p.reportName ?? "The report"}” cannot be read with your access: its inputs cannot be changed.`);
      planned = (await planOn(s, key, requests, bindableQuery(report), e.ctx.data, o.signal)).planned;
      await refuseCircles(s, p, planned);
    }
    const kept = new Set(planned.flatMap((pb) => pb.binding.names.map((n) => n.toLowerCase())));
    for (const old of (p.inputs ?? []).flatMap((b) => b.names)) if (!kept.has(old.toLowerCase())) await s.untrack(old);
    await trackInputs(s, { key, planned, used: "" });
    await updatePlacement(s, key, (x) => {
      const { inputs: _i, inputsUsed: _u, ...rest } = x;
      return planned.length ? { ...rest, inputs: planned.map((pb) => pb.binding), inputsUsed: x.inputsUsed ?? null } : rest;
    });
    await s.flush(o.signal);
  }, o.signal);
}

/** CannotBind when the new bindings of `p` would make a circle (its own cells included). */
async function refuseCircles(s: Session, p: LocalPlacement, planned: readonly PlannedBinding[]): Promise<void> {
  const nodes = graphNodes(await s.tracked(), await loadPlacements(s), { key: p.key, inputs: planned.flatMap((pb) => pb.areas) });
  const circle = findCircle(nodes);
  if (!circle) return;
  if (circle.length === 2 && circle[0] === circle[1])
    throw new CannotBind(`The input cells of “${circle[0]}” are inside its own cells: bind cells outside it.`);
  throw new CannotBind(circleWords(circle));
}

/** The switch "Refresh when inputs change". */
export async function setAutoRefresh(e: Engine, key: string, on: boolean): Promise<void> {
  await e.exclusive(async () => {
    refuseViewOnly(e, await e.placement(key));
    await updatePlacement(e.ctx.port, key, (x) => ({ ...x, autoRefresh: on }));
  });
}

/** A viewer may read a placement but not change it, its inputs included (access.ts): nothing is written. */
function refuseViewOnly(e: Engine, p: LocalPlacement): void {
  if (e.viewOnly(p.deploymentId)) throw new ViewOnly(viewOnlyReason().replace("not refresh it", "not change its inputs"));
}

/** Per placement, the placements (of `queued`) its input cells lie in (producers; Refresh all and the command line take those first). */
export async function producersOf(view: SheetPort, queued: readonly LocalPlacement[]): Promise<Map<string, string[]>> {
  if (!queued.some((p) => p.inputs?.length)) return new Map();
  const edges = producers(graphNodes(await view.tracked(), queued));
  for (const [k, ps] of edges)
    edges.set(
      k,
      ps.filter((x) => x !== k),
    ); // its own cells: refused when bound
  return edges;
}

/** Each placement's cells and its input cells, where their names are now (`planned`: one placement's inputs about to be bound). */
function graphNodes(
  tracked: readonly TrackedArea[],
  placements: readonly LocalPlacement[],
  planned?: { key: string; inputs: Area[] },
): InputGraphNode[] {
  const areaOf = (name: string) => tracked.find((t) => t.name.toLowerCase() === name.toLowerCase())?.area ?? null;
  return placements.map((x) => ({
    key: x.key,
    label: x.reportName ?? "a placement",
    area: areaOf(x.name),
    inputs:
      x.key === planned?.key ? planned.inputs : (x.inputs ?? []).flatMap((b) => b.names.map(areaOf).filter((a): a is Area => a !== null)),
  }));
}
