// A placement's inputs (issue 32) on the live workbook: filters of its report taking their values from
// cells. Module functions over the workbook (port) and the engine's bindings (src/sync/inputs.ts): what
// the Inputs panel shows, binding a filter to the selected cells, the card's facts, and the selection as
// a reference for the builder's "Use selected cell".
import { areaA1, quoteSheetName } from "../../host/a1";
import type { SheetPort } from "../../host/port";
import { parseJsonQuery, SQL_NOT_BINDABLE, type InputRequest, type InputView, type LocalPlacement, type SyncEngine } from "../../sync";
import { isMemberFilter, type Filter } from "../../sync/query";
import type { BindableMember, InputsDetail, InputsFacts } from "./types";

/** The engine's operations this module uses. */
export type InputsEngine = Pick<SyncEngine, "placements" | "report" | "bindInputs" | "inputs" | "setAutoRefresh">;

/** The cells selected now as a reference: "Sheet1!B1", "'My sheet'!B1:B5". */
export async function selectionRef(port: Pick<SheetPort, "selection">): Promise<string> {
  const { sheet, area } = await port.selection();
  return `${quoteSheetName(sheet.name)}!${areaA1(area)}`;
}

/**
 * The bindings a placement holds, as requests to bind them again (bindInputs replaces them all): each by its
 * defined name when it was bound to one, else by where its cells are now ("Inputs!B1, Inputs!B2" → two cells).
 * One whose cells were deleted cannot be bound again and is left out.
 */
export function requestsOf(p: LocalPlacement, views: readonly InputView[]): InputRequest[] {
  return (p.inputs ?? []).flatMap((b) => {
    const where = views.find((v) => v.member === b.member)?.where ?? "";
    const ref = b.definedName ?? where.replace(/,\s+/g, ",");
    return ref && !where.includes("(deleted)") ? [{ member: b.member, ref }] : [];
  });
}

/** The placement's other bindings, as they are now, to keep when `member`'s changes. */
async function othersThan(engine: InputsEngine, key: string, member: string, signal?: AbortSignal): Promise<InputRequest[]> {
  const p = await placementOf(engine, key);
  const now = await engine.inputs(key, signal ? { signal } : {});
  return requestsOf(p, now.inputs).filter((b) => b.member !== member);
}

function memberFilters(filters: readonly Filter[]): string[] {
  return filters.flatMap((f) => (isMemberFilter(f) ? [f.member] : memberFilters([...(f.and ?? []), ...(f.or ?? [])])));
}

/** The filters a report's query may take from cells: its filters' members, its dimensions and time dimensions. */
export function bindableOf(jsonQuery: string): BindableMember[] {
  const q = parseJsonQuery(jsonQuery);
  const time = new Set((q.timeDimensions ?? []).map((t) => t.dimension));
  const members = [...memberFilters(q.filters ?? []), ...(q.dimensions ?? []), ...time];
  return [...new Set(members)].map((member) => ({ member, title: member, time: time.has(member) }));
}

async function placementOf(engine: InputsEngine, key: string): Promise<LocalPlacement> {
  const p = (await engine.placements()).find((x) => x.key === key);
  if (!p) throw new Error("This placement is no longer in this workbook (it was disconnected).");
  return p;
}

/** What the Inputs panel shows: the bindings now, and the filters that can be bound (none for a SQL report). */
export async function inputsDetail(engine: InputsEngine, key: string, signal?: AbortSignal): Promise<InputsDetail> {
  const p = await placementOf(engine, key);
  const [report, now] = await Promise.all([engine.report(p.reportId, signal), engine.inputs(key, signal ? { signal } : {})]);
  const sql = !report.jsonQuery && !!report.sqlQuery;
  return {
    inputs: now.inputs.map((i) => ({ member: i.member, title: i.title, where: i.where, values: [...i.values], problem: i.problem })),
    bindable: sql || !report.jsonQuery ? [] : bindableOf(report.jsonQuery),
    notBindable: sql ? SQL_NOT_BINDABLE : null,
    changed: now.changed,
    autoRefresh: now.autoRefresh,
  };
}

/** Bind `member` to the cells selected now (replacing its binding, keeping the others); returns the reference. */
export async function bindSelection(
  port: Pick<SheetPort, "selection">,
  engine: InputsEngine,
  key: string,
  member: string,
  signal?: AbortSignal,
): Promise<string> {
  const ref = await selectionRef(port);
  const others = await othersThan(engine, key, member, signal);
  await engine.bindInputs(key, [...others, { member, ref }], signal ? { signal } : {});
  return ref;
}

/** `member` takes the report's own values again. */
export async function unbindInput(engine: InputsEngine, key: string, member: string, signal?: AbortSignal): Promise<void> {
  const left = await othersThan(engine, key, member, signal);
  await engine.bindInputs(key, left, signal ? { signal } : {});
}

/** The cards' facts of the placements that have bindings (the others have none to show). */
export async function inputsFacts(engine: InputsEngine, placements: LocalPlacement[]): Promise<Map<string, InputsFacts>> {
  const bound = placements.filter((p) => (p.inputs?.length ?? 0) > 0);
  const out = new Map<string, InputsFacts>();
  await Promise.all(
    bound.map(async (p) => {
      const now = await engine.inputs(p.key).catch(() => null);
      if (!now) return;
      const problem = now.inputs.find((i) => i.problem)?.problem ?? null;
      out.set(p.key, { count: now.inputs.length, changed: now.changed, autoRefresh: now.autoRefresh, problem });
    }),
  );
  return out;
}
