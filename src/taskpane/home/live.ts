// The Workbook tab's live service: the workbook operations of a Workspace, on the sync engine
// (src/sync) and the Office.js adapter (src/host/excel); turns the engine's typed outcomes into the
// pane's view model (home/types.ts).
import { sessionLastWritten } from "../app/last-written";
import type { DataClient, PlatformClient } from "../../api";
import { areaA1, parseAddress } from "../../host/a1";
import { createExcelPort } from "../../host/excel";
import type { Area, SheetPort, SheetValue } from "../../host/port";
import {
  describeChange,
  factsOf,
  sheetRows,
  groupingKeys,
  parseJsonQuery,
  fork,
  keepIdentity,
  homeCheck,
  SyncEngine,
  type HandEdits,
  type HomeEntry,
  type PlacementCheck,
  type QueueProgress,
  type SyncContext,
} from "../../sync";
import type { HomeData, PlacementView, RefreshAllProgress, RowRefreshState } from "./types";
import type { RowSpan, SelectedCell, SelectedPlacement } from "../types";
import type { Workspace } from "../app/model";
import { freeAreaBeside, readSelectionContext, selectionState, type SelectionDeps } from "../chat/live-selection";

export type WorkbookOps = Pick<
  Workspace,
  "home" | "place" | "refresh" | "refreshAll" | "locate" | "disconnect" | "fork" | "keepIdentity" | "watch" | "close"
> &
  Required<Pick<Workspace, "selectionState" | "selectionContext" | "besideArea">> & {
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

export async function openWorkbookOps(deps: EngineDeps): Promise<WorkbookOps> {
  const port = deps.port ?? createExcelPort();
  const names = deps.deployments;
  const engine = new SyncEngine({
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
  const unsubscribers: (() => Promise<void>)[] = [];
  const selection: SelectionDeps = {
    port,
    engine,
    deploymentId: deps.deploymentId,
    deploymentName: names?.get(deps.deploymentId) ?? null,
    ...(names ? { deploymentNames: names } : {}),
  };

  const localName = async (key: string) => {
    const p = (await engine.placements()).find((x) => x.key === key);
    if (!p) throw new PlacementGone(null);
    return p;
  };
  /** `e`, or in words when the placement's record went away meanwhile (the engine's error names its key). */
  const orGone = async (e: unknown, key: string, reportName: string | null): Promise<unknown> => {
    const still = await engine.placements().then(
      (all) => all.some((x) => x.key === key),
      () => true,
    );
    return still ? e : new PlacementGone(reportName);
  };
  /** The unfinished placement a cancelled place left (its record begun at or after `since`, never recorded), in words. */
  const leftBehind = async (reportName: string, since: string): Promise<PlaceInterrupted | null> => {
    const mine = (await engine.placements().catch(() => [])).filter((p) => !p.placementId && p.pending && p.pending.at >= since);
    const p = mine.at(-1);
    if (!p) return null;
    const t = (await port.tracked().catch(() => [])).find((x) => x.name.toLowerCase() === p.name.toLowerCase());
    if (!t?.area || !t.sheet) return null;
    return new PlaceInterrupted(reportName, `${t.sheet.name}!${areaA1(t.area)}`, Math.max(0, t.area.rows - 1));
  };
  const currentArea = async (key: string): Promise<Area> => {
    const p = await localName(key);
    const t = (await port.tracked()).find((x) => x.name.toLowerCase() === p.name.toLowerCase());
    if (!t?.area) throw new Error("The placement's cells were deleted (its sheet or range is gone).");
    return t.area;
  };

  return {
    async home(signal): Promise<HomeData> {
      const { checked, data } = await homeCheck(engine, signal ? { signal } : {}); // one snapshot of the workbook
      const byKey = new Map(checked.placements.map((c) => [c.key, c]));
      return {
        workbookName: data.workbookName,
        copied: data.copied,
        placements: data.entries.map((e) => toView(e, e.key ? byKey.get(e.key) : undefined, names)),
        ...(data.platformProblem ? { platformProblem: data.platformProblem } : {}),
      };
    },
    async place(reportId, o) {
      // Where the user chose: the selection when Place was pressed, before anything is fetched.
      const at = o.at ?? (await port.selection()).area;
      const report = await engine.report(reportId, o.signal);
      const since = new Date().toISOString();
      const placing = engine.place(report, {
        at,
        confirmed: o.confirmed,
        ...(o.valuesOnly ? { valuesOnly: true } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onProgress
          ? {
              onProgress: (done: number, total: number, known: boolean) =>
                o.onProgress!({ done, total, label: "Writing rows", ...(known ? {} : { atLeast: true }) }),
            }
          : {}),
      });
      // Cancelled after rows were written: say what stays and how to finish it, not only "cancelled".
      const out = await placing.catch(async (e: unknown) => {
        throw (o.signal?.aborted ? await leftBehind(report.name, since) : null) ?? e;
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
    },
    async refresh(key, choice, o) {
      const p = await localName(key);
      const out = await engine.refresh(key, choice, o?.signal ? { signal: o.signal } : {}).catch(async (e: unknown) => {
        throw await orGone(e, key, p.reportName);
      });
      const edits = (e: HandEdits) => rowsOfRanges(e.ranges);
      switch (out.kind) {
        case "refreshed":
          return {
            kind: "refreshed",
            cellsWritten: out.stats.cellsWritten,
            summary: describeChange(out.stats),
            ...(out.notices.length ? { notices: out.notices } : {}),
          };
        case "kept":
          return { kind: "kept", editedRows: edits(out.edits) };
        case "handEdited": {
          // The number formats of the placement's columns (its first data row), so the diff shows
          // "$15,294,788.18" where the sheet does, not 15294788.18.
          const area = await currentArea(key).catch(() => null);
          const style = area && area.rows > 1 ? await port.readStyle({ ...area, row: area.row + 1, rows: 1 }).catch(() => null) : null;
          const formatOf = (cell: string) => (area && style ? style.numberFormats[0]?.[parseAddress(cell).col - area.col] : undefined);
          return {
            kind: "handEdited",
            reportName: p.reportName ?? "this report",
            editedRows: edits(out.edits),
            editedCells: out.edits.cellCount,
            diff: out.edits.cells.map((c) => {
              const format = formatOf(c.address);
              return { cell: c.address, lastWritten: c.lastWritten, now: c.now, incoming: c.incoming, ...(format ? { format } : {}) };
            }),
          };
        }
        case "cannotGrow":
        case "missing":
          return { kind: "notRefreshed", reason: out.reason };
      }
    },
    async refreshAll(o) {
      return progressOf(await engine.refreshAll({ signal: o.signal, onProgress: (p) => o.onProgress(progressOf(p)) }));
    },
    async locate(key, rows) {
      const area = await currentArea(key);
      if (!rows) return port.select(area);
      await port.select({ sheetId: area.sheetId, row: rows.from - 1, col: area.col, rows: rows.to - rows.from + 1, cols: area.cols });
    },
    disconnect: (key, signal) => engine.disconnect(key, signal ? { signal } : {}),
    selectionState: () => selectionState(selection),
    selectionContext: (signal) => readSelectionContext(selection, signal),
    besideArea: (beside, size, signal) => freeAreaBeside(selection, beside, size, signal),
    async selectedPlacement() {
      const [{ area: at }, tracked, placements] = await Promise.all([port.selection(), port.tracked(), engine.placements()]);
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
          return { deploymentId: p.deploymentId, reportId: p.reportId, reportName: p.reportName, range: `${t.sheet.name}!${areaA1(a)}` };
        }
      }
      return null;
    },
    async selectedCell(signal) {
      const { sheet, area: at } = await port.selection();
      const one = { sheetId: at.sheetId, row: at.row, col: at.col, rows: 1, cols: 1 };
      let value: SheetValue = "";
      for await (const block of port.read(one, signal ? { signal } : {})) value = block[0]?.[0] ?? "";
      const address = `${sheet.name}!${areaA1(one)}`;
      const [tracked, placements] = await Promise.all([port.tracked(), engine.placements()]);
      for (const p of placements) {
        const t = tracked.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
        const a = t?.area;
        if (
          !a ||
          !t.sheet ||
          a.sheetId !== at.sheetId ||
          at.row < a.row ||
          at.row >= a.row + a.rows ||
          at.col < a.col ||
          at.col >= a.col + a.cols
        )
          continue;
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
          range: `${t.sheet.name}!${areaA1(a)}`,
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
          placement: {
            ...base,
            columnKey: key,
            columnTitle,
            measure: key !== null && !dims.includes(key),
            header: at.row === a.row,
            pivot,
          },
        };
      }
      return { address, value, placement: null };
    },
    async putPicture(name, base64, atSelection) {
      const { sheet, area } = await port.selection();
      const r = await port.putPicture(name, base64, atSelection ? { sheetId: area.sheetId, row: area.row, col: area.col } : undefined);
      return { ...r, address: `${sheet.name}!${areaA1({ ...area, rows: 1, cols: 1 })}` };
    },
    async activeSheetPictures() {
      const { sheet } = await port.selection();
      return (await port.pictures(sheet.id)).map((p) => p.name);
    },
    async keepIdentity() {
      await keepIdentity(engine);
    },
    async fork(signal) {
      const out = await fork(engine, signal ? { signal } : {});
      return { reconnected: Object.keys(out.reconnected).length, failed: Object.values(out.failed) };
    },
    watch(listener) {
      let live = true;
      void port
        .onChange((change) => {
          if (change.source !== "ThisLocalAddin") listener();
        })
        .then((off) => (live ? unsubscribers.push(off) : void off()));
      // Removing the listeners can fail (Excel refuses it while a cell is being edited): the pane stops
      // listening either way, and a late event finds no workspace to re-check.
      return () => {
        live = false;
        for (const off of unsubscribers.splice(0)) void off().catch(() => undefined);
      };
    },
    async close() {
      for (const off of unsubscribers.splice(0)) await off().catch(() => undefined);
    },
  };
}
