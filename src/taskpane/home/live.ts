// The Workbook tab's live service: the workbook operations of a Workspace, on the sync engine
// (src/sync) and the Office.js adapter (src/host/excel); turns the engine's typed outcomes into the
// pane's view model (home/types.ts). openWorkbookOps opens the engine over the workbook; each
// operation is a module function over one small context (the port, the engine, the deployments'
// names); what is under the selection is live-selected.ts.
import { sessionLastWritten } from "../app/last-written";
import type { DataClient, PlatformClient, Report } from "../../api";
import { areaA1, parseAddress } from "../../host/a1";
import { createExcelPort } from "../../host/excel";
import type { Area, SheetPort } from "../../host/port";
import {
  describeChange,
  factsOf,
  handEditsLine,
  structureWords,
  sheetRows,
  fork,
  keepIdentity,
  homeCheck,
  SyncEngine,
  type HandEdits,
  type LocalPlacement,
  type HomeEntry,
  type PlacementCheck,
  type QueueProgress,
  type SyncContext,
} from "../../sync";
import type { HomeData, PlacementView, RefreshAllProgress, RowRefreshState } from "./types";
import type { PlaceOutcome, RowSpan, SelectedCell, SelectedPlacement } from "../types";
import type { Workspace } from "../app/model";
import { freeAreaBeside, readSelectionContext, selectionState, type SelectionDeps } from "../chat/live-selection";
import { activeSheetPictures, putPicture, selectedCell, selectedPlacement } from "./live-selected";
import { bindSelection, inputsDetail, selectionRef, unbindInput, type InputsEngine } from "./live-inputs";

export type WorkbookOps = Pick<
  Workspace,
  "home" | "refresh" | "refreshAll" | "locate" | "disconnect" | "fork" | "keepIdentity" | "watch" | "close"
> &
  Required<
    Pick<
      Workspace,
      "selectionState" | "selectionContext" | "besideArea" | "inputs" | "bindSelection" | "unbindInput" | "setAutoRefresh" | "selectionRef"
    >
  > & {
    /**
     * Place a report by its id, or one not saved yet (the builder's, issue 31 item 1): the engine
     * creates it on the platform only once the target is clear or the overwrite is confirmed.
     */
    place(report: number | Report, options: PlaceOptions): Promise<PlaceOutcome>;
    /** The placement under the Excel selection (for the comments pane's "which dashboard"). */
    selectedPlacement(): Promise<SelectedPlacement | null>;
    /** The selected cell, and the placement column it is in (../types.ts SelectedCell). */
    selectedCell(signal?: AbortSignal): Promise<SelectedCell>;
    /** The dashboard picture (port.putPicture at the selection, or replaced in place). */
    putPicture(name: string, base64: string, atSelection: boolean): Promise<{ sheetId: string; name: string; address: string }>;
    /** Picture names on the active sheet. */
    activeSheetPictures(): Promise<string[]>;
  };

export interface EngineDeps {
  client: PlatformClient;
  data: DataClient;
  deploymentId: number;
  /** Every deployment the user can use, by id → name (cards name them; others are No access). */
  deployments?: ReadonlyMap<number, string>;
  /** The signed-in user's role per deployment (a viewer's placements are view only: src/sync/access.ts). */
  roles?: ReadonlyMap<number, "admin" | "editor" | "viewer">;
  /** The data client of another deployment (one token manager each), for its placements. */
  dataFor?: SyncContext["dataFor"];
  /** Defaults to the Office.js adapter over the global Excel/Office (real Excel or the harness shim). */
  port?: SheetPort;
}

export { factsOf, sheetRows };

/**
 * A placement that is no longer in the workbook (disconnected, here or in another window) while
 * something of it was under way: said with its report's title, never its key or tracking name.
 */
export class PlacementGone extends Error {
  constructor(reportName: string | null) {
    super(`${reportName ? `“${reportName}”` : "This placement"} is no longer in this workbook (it was disconnected).`);
    this.name = "PlacementGone";
  }
}

/**
 * A placement cancelled part way (Cancel, or leaving the tab): rows it wrote stay in the sheet as an
 * unfinished placement, which the home shows as Interrupted and a refresh finishes (issue 36 item 20).
 */
export class PlaceInterrupted extends Error {
  constructor(
    readonly reportName: string,
    /** Sheet!A1:C100001, where the rows written so far are. */
    readonly where: string,
    /** Data rows written so far (without the header). */
    readonly rows: number,
  ) {
    super(
      `${rows.toLocaleString("en-US")} ${rows === 1 ? "row" : "rows"} of “${reportName}” ${rows === 1 ? "was" : "were"} written to ${where} before it stopped: ${rows === 1 ? "it stays" : "they stay"} there, as a placement not finished.`,
    );
    this.name = "PlaceInterrupted";
  }
}

function rowsOfRanges(ranges: string[]): RowSpan[] {
  return ranges.map((a) => {
    const p = parseAddress(a);
    return { from: p.row + 1, to: p.row + p.rows };
  });
}

export function toView(e: HomeEntry, c: PlacementCheck | undefined, usable?: ReadonlyMap<number, string>): PlacementView {
  const sheetName = c?.sheetName ?? e.sheetName;
  const range = c?.range ?? e.range;
  return {
    id: e.key ?? `remote:${e.placementId ?? "?"}`,
    sheetName,
    range,
    reportId: e.reportId,
    reportName: e.reportName,
    refreshedAt: e.refreshedAt,
    facts: factsOf(e, c, usable),
    owner: e.owner,
    deploymentId: e.deploymentId,
    deploymentName: usable?.get(e.deploymentId) ?? e.deploymentName,
  };
}

function rowState(s: QueueProgress["items"][string]): RowRefreshState {
  if (s.state === "not-refreshed") return { state: "failed", reason: s.reason };
  if (s.state === "done") return s.detail ? { state: "done", summary: s.detail } : { state: "done" };
  return { state: s.state };
}

export function progressOf(p: QueueProgress): RefreshAllProgress {
  return { done: p.done, total: p.total, rows: Object.fromEntries(Object.entries(p.items).map(([k, v]) => [k, rowState(v)])) };
}

/** What every workbook operation works over: the workbook (port), the engine on it, the deployments' names. */
interface Ops {
  port: SheetPort;
  engine: SyncEngine;
  /** The same engine, by its input operations (issue 32). */
  inputs: InputsEngine;
  names: ReadonlyMap<number, string> | undefined;
  /** The workbook's change listeners (watch), removed by the watcher or on close. */
  unsubscribers: (() => Promise<void>)[];
}

function openEngine(deps: EngineDeps, port: SheetPort): SyncEngine {
  const names = deps.deployments;
  return new SyncEngine({
    port,
    platform: deps.client,
    data: deps.data,
    deploymentId: deps.deploymentId,
    lastWritten: sessionLastWritten(),
    ...(names?.get(deps.deploymentId) ? { deploymentName: names.get(deps.deploymentId)! } : {}),
    ...(names ? { deploymentNames: (id: number) => names.get(id) } : {}),
    ...(deps.roles ? { roleOf: (id: number) => deps.roles!.get(id) } : {}),
    // Only deployments this sign-in can use get a data client; the others say No access.
    ...(deps.dataFor ? { dataFor: (id: number) => (names === undefined || names.has(id) ? deps.dataFor!(id) : undefined) } : {}),
  });
}

async function localPlacement(o: Ops, key: string): Promise<LocalPlacement> {
  const p = (await o.engine.placements()).find((x) => x.key === key);
  if (!p) throw new PlacementGone(null);
  return p;
}

/** `e`, or in words when the placement's record went away meanwhile (the engine's error names its key). */
async function orGone(o: Ops, e: unknown, key: string, reportName: string | null): Promise<unknown> {
  const still = await o.engine.placements().then(
    (all) => all.some((x) => x.key === key),
    () => true,
  );
  return still ? e : new PlacementGone(reportName);
}

/** The unfinished placement a cancelled place left (its record begun at or after `since`, never recorded), in words. */
async function leftBehind(o: Ops, reportName: string, since: string): Promise<PlaceInterrupted | null> {
  const mine = (await o.engine.placements().catch(() => [])).filter((p) => !p.placementId && p.pending && p.pending.at >= since);
  const p = mine.at(-1);
  if (!p) return null;
  const t = (await o.port.tracked().catch(() => [])).find((x) => x.name.toLowerCase() === p.name.toLowerCase());
  if (!t?.area || !t.sheet) return null;
  return new PlaceInterrupted(reportName, `${t.sheet.name}!${areaA1(t.area)}`, Math.max(0, t.area.rows - 1));
}

async function currentArea(o: Ops, key: string): Promise<Area> {
  const p = await localPlacement(o, key);
  const t = (await o.port.tracked()).find((x) => x.name.toLowerCase() === p.name.toLowerCase());
  if (!t?.area) throw new Error("The placement's cells were deleted (its sheet or range is gone).");
  return t.area;
}

async function home(o: Ops, signal?: AbortSignal): Promise<HomeData> {
  const { checked, data } = await homeCheck(o.engine, signal ? { signal } : {}); // one snapshot of the workbook
  const byKey = new Map(checked.placements.map((c) => [c.key, c]));
  return {
    workbookName: data.workbookName,
    copied: data.copied,
    placements: data.entries.map((e) => {
      const c = e.key ? byKey.get(e.key) : undefined;
      const view = toView(e, c, o.names);
      // Inputs (issue 32): read in the check's own snapshot, whether their cells changed and can be used.
      const named = c?.table ? { ...view, tableName: c.table } : view; // issue 33
      return c?.inputs ? { ...named, inputs: c.inputs } : named;
    }),
    ...(data.platformProblem ? { platformProblem: data.platformProblem } : {}),
  };
}

type PlaceOptions = Parameters<Workspace["place"]>[1];

async function place(o: Ops, what: number | Report, opts: PlaceOptions): Promise<PlaceOutcome> {
  // Where the user chose: the selection when Place was pressed, before anything is fetched.
  const at = opts.at ?? (await o.port.selection()).area;
  const report = typeof what === "number" ? await o.engine.report(what, opts.signal) : what;
  const since = new Date().toISOString();
  const placing = o.engine.place(report, {
    at,
    confirmed: opts.confirmed,
    ...(opts.valuesOnly ? { valuesOnly: true } : {}),
    ...(opts.asTable ? { asTable: true } : {}),
    ...(opts.inputs?.length ? { inputs: opts.inputs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onProgress
      ? {
          onProgress: (done: number, total: number, known: boolean) =>
            opts.onProgress!({ done, total, label: "Writing rows", ...(known ? {} : { atLeast: true }) }),
        }
      : {}),
  });
  // Cancelled after rows were written: say what stays and how to finish it, not only "cancelled".
  const out = await placing.catch(async (e: unknown) => {
    throw (opts.signal?.aborted ? await leftBehind(o, report.name, since) : null) ?? e;
  });
  switch (out.kind) {
    case "placed":
      return {
        kind: "placed",
        placementId: out.key,
        range: out.range,
        sheetName: out.sheetName,
        ...(out.notices.length ? { notices: out.notices } : {}),
      };
    case "wouldOverwrite":
      return out;
    case "collides":
      return out;
  }
}

type RefreshArgs = Parameters<WorkbookOps["refresh"]>;

async function refresh(o: Ops, key: string, choice: RefreshArgs[1], opts: RefreshArgs[2]): ReturnType<WorkbookOps["refresh"]> {
  const p = await localPlacement(o, key);
  const out = await o.engine.refresh(key, choice, opts?.signal ? { signal: opts.signal } : {}).catch(async (e: unknown) => {
    throw await orGone(o, e, key, p.reportName);
  });
  switch (out.kind) {
    case "refreshed":
      return {
        kind: "refreshed",
        cellsWritten: out.stats.cellsWritten,
        summary: describeChange(out.stats),
        ...(out.notices.length ? { notices: out.notices } : {}),
      };
    case "kept": {
      const line = out.edits.structure ? await movedWords(o, key, out.edits) : null;
      return { kind: "kept", editedRows: rowsOfRanges(out.edits.ranges), ...(line ? { line: line.line } : {}) };
    }
    case "handEdited":
      return handEdited(o, key, p.reportName, out.edits);
    case "cannotGrow":
    case "missing":
      return { kind: "notRefreshed", reason: out.reason };
  }
}

/** The hand edits a refresh found, with the number formats of the placement's columns (its first data row), so
 * the diff shows "$15,294,788.18" where the sheet does, not 15294788.18. */
async function handEdited(o: Ops, key: string, reportName: string | null, edits: HandEdits) {
  const area = await currentArea(o, key).catch(() => null);
  const moved = edits.structure && area ? movedSentences(edits, area) : null;
  const style = area && area.rows > 1 ? await o.port.readStyle({ ...area, row: area.row + 1, rows: 1 }).catch(() => null) : null;
  const formatOf = (cell: string) => (area && style ? style.numberFormats[0]?.[parseAddress(cell).col - area.col] : undefined);
  return {
    kind: "handEdited" as const,
    reportName: reportName ?? "this report",
    editedRows: rowsOfRanges(edits.ranges),
    editedCells: edits.cellCount,
    ...(moved ? { line: moved.line, moved: moved.each } : {}),
    diff: edits.cells.map((c) => {
      const format = formatOf(c.address);
      const inserted = c.inserted ? { inserted: true } : {};
      return { cell: c.address, lastWritten: c.lastWritten, now: c.now, incoming: c.incoming, ...(format ? { format } : {}), ...inserted };
    }),
  };
}

/** Rows or columns inserted or deleted inside the placement at `area` (issue 30): the card's sentence and each of them. */
function movedSentences(edits: HandEdits, area: Area): { line: string; each: string[] } {
  const s = edits.structure!;
  return { line: handEditsLine(s, edits.rows, area.row, area.col), each: structureWords(s, area.row, area.col) };
}

async function movedWords(o: Ops, key: string, edits: HandEdits): Promise<{ line: string; each: string[] } | null> {
  const area = await currentArea(o, key).catch(() => null);
  return area ? movedSentences(edits, area) : null;
}

async function locate(o: Ops, key: string, rows: RowSpan | undefined): Promise<void> {
  const area = await currentArea(o, key);
  if (!rows) return o.port.select(area);
  await o.port.select({ sheetId: area.sheetId, row: rows.from - 1, col: area.col, rows: rows.to - rows.from + 1, cols: area.cols });
}

function watch(o: Ops, listener: () => void): () => void {
  let live = true;
  void o.port
    .onChange((change) => {
      if (change.source !== "ThisLocalAddin") listener();
    })
    .then((off) => (live ? o.unsubscribers.push(off) : void off()));
  // Removing the listeners can fail (Excel refuses it while a cell is being edited): the pane stops
  // listening either way, and a late event finds no workspace to re-check.
  return () => {
    live = false;
    for (const off of o.unsubscribers.splice(0)) void off().catch(() => undefined);
  };
}

export async function openWorkbookOps(deps: EngineDeps): Promise<WorkbookOps> {
  const port = deps.port ?? createExcelPort();
  const names = deps.deployments;
  const engine = openEngine(deps, port);
  const o: Ops = { port, engine, inputs: engine, names, unsubscribers: [] };
  const selection: SelectionDeps = {
    port,
    engine,
    deploymentId: deps.deploymentId,
    deploymentName: names?.get(deps.deploymentId) ?? null,
    ...(names ? { deploymentNames: names } : {}),
  };
  return {
    home: (signal) => home(o, signal),
    place: (reportId, opts) => place(o, reportId, opts),
    refresh: (key, choice, opts) => refresh(o, key, choice, opts),
    async refreshAll(opts) {
      return progressOf(await engine.refreshAll({ signal: opts.signal, onProgress: (p) => opts.onProgress(progressOf(p)) }));
    },
    locate: (key, rows) => locate(o, key, rows),
    disconnect: (key, signal) => engine.disconnect(key, signal ? { signal } : {}),
    selectionState: () => selectionState(selection),
    selectionContext: (signal) => readSelectionContext(selection, signal),
    besideArea: (beside, size, signal) => freeAreaBeside(selection, beside, size, signal),
    selectedPlacement: () => selectedPlacement(port, engine),
    selectedCell: (signal) => selectedCell(port, engine, signal),
    putPicture: (name, base64, atSelection) => putPicture(port, name, base64, atSelection),
    activeSheetPictures: () => activeSheetPictures(port),
    inputs: (key, signal) => inputsDetail(o.inputs, key, signal),
    bindSelection: (key, member, signal) => bindSelection(port, o.inputs, key, member, signal),
    unbindInput: (key, member, signal) => unbindInput(o.inputs, key, member, signal),
    setAutoRefresh: (key, on) => o.inputs.setAutoRefresh(key, on),
    selectionRef: () => selectionRef(port),
    async keepIdentity() {
      await keepIdentity(engine);
    },
    async fork(signal) {
      const out = await fork(engine, signal ? { signal } : {});
      return { reconnected: Object.keys(out.reconnected).length, failed: Object.values(out.failed) };
    },
    watch: (listener) => watch(o, listener),
    async close() {
      for (const off of o.unsubscribers.splice(0)) await off().catch(() => undefined);
    },
  };
}
