// src/sync — the sync engine: turns reports into cells and keeps them true.
//
// Surface for the task pane (plain async functions and one class; typed outcomes; no UI):
//
//   const engine = new SyncEngine({ port, platform, data, deploymentId, filterDefaults? });
//
//   engine.place(report, { at?, confirmed?, onProgress?, signal? })   → PlaceOutcome
//       "wouldOverwrite" {count, addresses, target}: ask the user, call again with confirmed: true.
//       "collides" {placements}: the target overlaps another placement; never written.
//       "placed" {key, placementId, publicId, range, notices, stats}.
//   engine.refresh(key, "ask" | "overwrite" | "keep", { signal? })     → RefreshOutcome
//       "handEdited" {edits: {rows, ranges, cells: [{address, lastWritten?, now, incoming}]}}: ask,
//       then call again with "overwrite" or "keep" (keep skips edited chunks; stays marked edited).
//       "cannotGrow" {reason}, "missing" {reason}, "refreshed" / "kept" {stats}.
//   engine.refreshAll({ onProgress, signal })                           → QueueProgress
//       {done, total, items: {key: queued | refreshing | done(detail = what changed) | not-refreshed(reason)}};
//       abort = Stop (between placements: a write under way finishes). Every local placement is
//       listed; those the user cannot refresh end not-refreshed "No access: …".
//   engine.disconnect(key, { clear?, signal? })                         → void (idempotent on 404)
//   engine.place(report, { inputs: [{ member, ref }] }) / engine.bindInputs(key, inputs) / engine.inputs(key)
//       / engine.setAutoRefresh(key, on): a report's filters from cells (issue 32, bind.ts, inputs.ts);
//       InvalidInput (names the cell, nothing written) and CannotBind (SQL report, no such cells, a circle).
//   Every operation takes `signal`: Cancel rejects at once and frees the single-writer lock.
//   engine.placements()                                                 → LocalPlacement[]
//   check(engine, { signal? }) → CheckReport (syncStatus, edit state + exact edited rows, corrections
//                  made, missing, copied → fork; finishes a write whose cells all landed)
//   placementStatus(facts) → the one status of a placement (badge, lines); describeChange(stats).
//   SyncContext: deploymentName / deploymentNames / dataFor(deploymentId) for several deployments.
//   fork(engine)   → ForkOutcome   (copied workbook: new workbook id, placements re-connected; one the
//                                   platform did not take is connected by the copy's next check or refresh)
//   keepIdentity(engine)           (not a copy: the same file renamed or moved; records its new URL)
//   home(engine)   → HomeData      (all platform placements of the workbook + local; DENIED read-only;
//                                   on 422 the workbook's own, UNLISTED, and platformProblem: limits.ts)
//   PlacementLimitReached: place refused a placement past the platform's limits per workbook (limits.ts)
//   homeCheck(engine) → { checked, data }: the pane's home reload, check and home on one snapshot
//   upsertReport / assignNewPublicId / UpsertStopped — upsert semantics (409 causes).
//   layout / runReport / totalsQuery — the pure layout and query pieces (preview, builder).
//
// Design and the choices where the seeds are silent: docs/SYNC.md.
export { SyncEngine } from "./engine.ts";
export { MAX_DIFF } from "./types.ts";
export { DoesNotFit, NoAccess, ViewOnly } from "./errors.ts";
export { viewOnlyPrefix, viewOnlyReason, viewerRule, roleLimit, mayChangePlacements, refusedRecordReason } from "./access.ts";
export type { DeploymentRole } from "./access.ts";
export {
  noAccessPrefix,
  placementStatus,
  factsOf,
  sheetRows,
  describeChange,
  describeRows,
  editedRowsLine,
  structureWords,
  handEditsLine,
  handEditsAt,
  STATUS_LABELS,
} from "./status.ts";
export type { PlacementStatus, StatusFacts, StatusKind } from "./status.ts";
export type {
  PlaceOptions,
  PlaceOutcome,
  RefreshChoice,
  RefreshOutcome,
  RefreshStats,
  HandEdits,
  Structure,
  CellDiff,
  PreparedRefresh,
  Engine,
} from "./types.ts";
export { check, fork, home, homeCheck, HomeLimitError, keepIdentity } from "./check.ts";
export { PlacementLimitReached } from "./limits.ts";
export { InvalidInput, CannotBind, isInputName, parseRef, MAX_INPUTS, MAX_INPUT_VALUES } from "./inputs.ts";
export type { InputRequest, InputView, InputBinding } from "./inputs.ts";
export { SQL_NOT_BINDABLE } from "./bind.ts";
export type { CheckReport, PlacementCheck, EditState, ForkOutcome, HomeData, HomeEntry } from "./types.ts";
export type { EarlierCopy } from "./check.ts";
export { upsertReport, assignNewPublicId, UpsertStopped } from "./upsert.ts";
export type { UpsertOutcome } from "./upsert.ts";
export { runQueue, NotRefreshed } from "./queue.ts";
export type { QueueProgress, ItemState } from "./queue.ts";
export { layout, flatTable, pivotTable, isPivot, TOTAL_LABEL } from "./layout.ts";
export type { Layout, LayoutInput, PivotSettings, PivotTotals, DisplayScale } from "./layout.ts";
export { MAX_PLACED_ROWS, runReport } from "./run-report.ts";
export type { FilterDefaults, RowCut, RunOutput } from "./run-report.ts";
export { totalsQuery, parseJsonQuery, groupingKeys } from "./query.ts";
export { showAppliedFilters, filterSummaryRows } from "./filters.ts";
export type { SyncContext } from "./context.ts";
export type { LocalPlacement, CellState } from "./state.ts";
