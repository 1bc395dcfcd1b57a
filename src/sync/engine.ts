// The sync engine's facade: the lock, the write clock and the context every operation shares, and one
// method per operation. The operations themselves are rooms of their own, each read → plan → write over
// one Session (docs/ARCHITECTURE.md "The sync engine"):
//   place.ts        place a report (whole, or page by page as a large one arrives)
//   refresh.ts      refresh one placement (prepare, read, plan in refresh-plan.ts, confirm, write)
//   refresh-all.ts  every placement of the workbook, queries concurrent, one writer
//   disconnect.ts   forget a placement on the platform and in the workbook
//   check.ts        check, fork and the workbook home
//   bind.ts         a placement's filters from cells (inputs, issue 32)
// They receive the engine as the narrow `Engine` of types.ts, never this class, so the arrows run one
// way: this file imports them, they import leaf modules (types.ts, errors.ts, plan.ts, state.ts…).
//
// Write protocol of place and refresh (docs/SYNC.md "The write journal"): journal the intent, write
// the cells, journal the completion and re-track the name, record with the platform, commit. Round
// trips (docs/SYNC.md "Round trips"): one read of the workbook per operation (a Session), its writes
// sent as one commit, the record's state update as another.
import type { Report } from "../api/index.ts";
import type { SheetPort, SheetValue, SnapshotRequest } from "../host/port.ts";
import { mayChangePlacements } from "./access.ts";
import { classifyCells } from "./classify.ts";
import { Lock, reportsById, type LastWrittenStore, type SyncContext } from "./context.ts";
import { bindInputs, inputsView, setAutoRefresh } from "./bind.ts";
import { disconnect } from "./disconnect.ts";
import type { InputRequest, InputView } from "./inputs.ts";
import type { Grid } from "./fingerprint.ts";
import { place } from "./place.ts";
import type { QueueProgress } from "./queue.ts";
import { refreshAll, type RefreshAllOptions } from "./refresh-all.ts";
import { applyRefresh, prepareRefresh, refresh } from "./refresh.ts";
import { clocked, Session, WriteClock } from "./session.ts";
import { loadPlacements, type CellState, type LocalPlacement } from "./state.ts";
import type { Engine, PlaceOptions, PlaceOutcome, PreparedRefresh, RefreshChoice, RefreshOutcome } from "./types.ts";

export class SyncEngine implements Engine {
  private readonly lock = new Lock();
  readonly lastWritten: LastWrittenStore;
  readonly asked = new Map<string, ReadonlyMap<string, SheetValue>>();
  /** Counts this engine's writes: a session planned before one of them is read again (session.ts). */
  private readonly clock = new WriteClock();
  /** The port as given; `ctx.port` is the same port with its writes counted on the clock. */
  private readonly raw: SheetPort;
  readonly ctx: SyncContext;
  /** Deployments whose platform refused a placement's record (a 403): view only from then on (access.ts). */
  private readonly refused = new Set<number>();

  constructor(ctx: SyncContext) {
    this.raw = ctx.port;
    this.ctx = { ...ctx, port: clocked(ctx.port, this.clock) };
    this.lastWritten = ctx.lastWritten ?? new Map<string, Grid>();
  }

  // ---- what the operations share (Engine) ----------------------------------------------------

  placements(): Promise<LocalPlacement[]> {
    return loadPlacements(this.ctx.port);
  }

  session(req: SnapshotRequest = {}): Promise<Session> {
    return Session.open(this.raw, req, this.clock);
  }

  async current(s: Session | null, req: SnapshotRequest): Promise<Session> {
    return s?.current ? s : this.session(req);
  }

  exclusive<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.lock.run(fn, signal);
  }

  viewOnly(deploymentId: number): boolean {
    return !mayChangePlacements(this.ctx.roleOf?.(deploymentId)) || this.refused.has(deploymentId);
  }

  refusedIn(deploymentId: number): void {
    this.refused.add(deploymentId);
  }

  async placement(key: string, view?: SheetPort): Promise<LocalPlacement> {
    const p = (await loadPlacements(view ?? this.ctx.port)).find((x) => x.key === key);
    if (!p) throw new Error(`No placement ${key} is tracked in this workbook.`);
    return p;
  }

  // ---- the operations --------------------------------------------------------------------------

  /** Find one of this deployment's reports by id (a paged listing). */
  async report(reportId: number, signal?: AbortSignal): Promise<Report> {
    const r = (await reportsById(this.ctx, this.ctx.deploymentId, undefined, signal)).get(reportId);
    if (!r) throw new Error(`Report ${reportId} was not found in deployment ${this.ctx.deploymentId}, or you cannot read it.`);
    return r;
  }

  place(report: Report, o: PlaceOptions = {}): Promise<PlaceOutcome> {
    return place(this, report, o);
  }

  /** Run the query and lay out the result (no sheet access: runs concurrently in Refresh all). */
  prepareRefresh(key: string, report?: Report, signal?: AbortSignal, view?: Session): Promise<PreparedRefresh> {
    return prepareRefresh(this, key, report, signal, view);
  }

  refresh(key: string, choice: RefreshChoice = "ask", o: { signal?: AbortSignal } = {}): Promise<RefreshOutcome> {
    return refresh(this, key, choice, o);
  }

  /** Compare, plan and write a prepared refresh (the single writer); `view`: the session read before its query. */
  applyRefresh(prep: PreparedRefresh, choice: RefreshChoice, signal?: AbortSignal, view: Session | null = null): Promise<RefreshOutcome> {
    return applyRefresh(this, prep, choice, signal, view);
  }

  refreshAll(o: RefreshAllOptions = {}): Promise<QueueProgress> {
    return refreshAll(this, o);
  }

  disconnect(key: string, o: { clear?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    return disconnect(this, key, o);
  }

  /** Bind a placement's filters to cells (issue 32); [] removes its inputs. Nothing is refreshed. */
  bindInputs(key: string, inputs: readonly InputRequest[], o: { signal?: AbortSignal } = {}): Promise<void> {
    return bindInputs(this, key, inputs, o);
  }

  /** A placement's inputs as a card shows them, and whether they changed since it was last written. */
  inputs(key: string, o: { signal?: AbortSignal } = {}): Promise<{ inputs: InputView[]; changed: boolean; autoRefresh: boolean }> {
    return inputsView(this, key, o.signal);
  }

  /** The switch "Refresh when inputs change". */
  setAutoRefresh(key: string, on: boolean): Promise<void> {
    return setAutoRefresh(this, key, on);
  }

  /** Classify a placement's current cells (read in the union of its shapes) against its fingerprints. */
  classifyCells(p: LocalPlacement, current: Grid): Promise<CellState> {
    return classifyCells(p, current);
  }

  /** The grid this engine last wrote for a placement in this session (exact edited rows in check). */
  lastWrittenGrid(key: string): Grid | undefined {
    return this.lastWritten.get(key);
  }
}
