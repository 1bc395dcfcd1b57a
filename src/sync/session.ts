// A session: one engine operation's view of the workbook (docs/SYNC.md "Round trips").
//
// It opens with one snapshot (the port's read step): identity, sheets, tracked areas, every data key,
// and the values the operation will compare. It is itself a SheetPort, so the engine's helpers
// (state.ts, styling.ts, plan reads) run on it unchanged:
//   - reads are answered from the snapshot when it holds them (a miss sends what is queued, then reads);
//   - writes — data, cells, clears, styles, tracking — are queued in order and sent by flush() as one
//     commit; a data write equal to what the workbook holds, or a re-track to the same area, is no
//     command at all;
//   - its own queued writes are visible to its own reads (the cache is updated as they are queued).
// Order is the write-ahead log: a journal entry queued before the cells it covers reaches Excel before
// them (a failing sync leaves a prefix applied), so batching never weakens the journal (state.ts).
//
// Co-authors (issue 22, item 5): a data write made with modifyData (the placements store) is sent with
// `ifUnchanged` = what the workbook held when this session read it; the port reads what is there in the
// same round trip, just before writing, and reports a difference (CommitStats.conflicts). When someone
// else saved the key in between (a co-author's Cellbound, a second pane), the session re-applies its
// changes of that key to what it replaced (each change touches only its own placement's record) and
// writes the merge — at most MAX_STATE_ATTEMPTS times. No round trip of its own unless there was a
// conflict. (A part deleted meanwhile stops the commit with DataChangedError: read again, send again.)
import {
  DataChangedError,
  type Anchor,
  type WriteGuard,
  type Area,
  type AreaStyle,
  type AreaStyleRead,
  type Command,
  type CommitStats,
  type Obstacle,
  type ReadOptions,
  type Recheck,
  type RecheckRequest,
  type SheetChange,
  type SheetPort,
  type SheetRef,
  type SheetValue,
  type Snapshot,
  type SnapshotRequest,
  type TableRead,
  type TrackedArea,
  type WorkbookIdentity,
  type WriteOptions,
  type WriteStats,
  type SetDataOptions,
} from "../host/port.ts";
import { MAX_STATE_ATTEMPTS, type ModifiesData } from "./state.ts";

export const noCommit: CommitStats = { syncs: 0, maxSyncBytes: 0, bytes: 0, cellsWritten: 0 };

export function addCommitStats(a: CommitStats, b: CommitStats): CommitStats {
  const cellConflicts = [...(a.cellConflicts ?? []), ...(b.cellConflicts ?? [])];
  const moved = [...(a.moved ?? []), ...(b.moved ?? [])];
  return {
    syncs: a.syncs + b.syncs,
    maxSyncBytes: Math.max(a.maxSyncBytes, b.maxSyncBytes),
    bytes: a.bytes + b.bytes,
    cellsWritten: a.cellsWritten + b.cellsWritten,
    ...(cellConflicts.length ? { cellConflicts } : {}),
    ...(moved.length ? { moved } : {}),
    ...((b.sheets ?? a.sheets) ? { sheets: b.sheets ?? a.sheets } : {}),
  };
}

/**
 * Counts the commits of one engine (its sessions' and its own port's): a session planned on a snapshot
 * is still true only while nobody else of this engine wrote since.
 */
export class WriteClock {
  count = 0;
}

/** A data command as the session queues it (its value is recomputed when a co-author's change is merged). */
type DataCommand = Extract<Command, { kind: "data" }>;
/** A change to one data key's value: the old value in, the new one out (modifyData). */
export type DataChange = (current: unknown) => unknown;

export class Session implements SheetPort, ModifiesData {
  readonly host: SheetPort["host"];
  private seen: number;
  private queue: Command[] = [];
  private readonly data: Map<string, string>;
  /** What the workbook holds per data key as far as this session knows (its snapshot, then its own commits), as JSON. */
  private stored: Map<string, string>;
  /** Data commands to send with ifUnchanged, and the change that re-applies each one to a fresh value (null: none). */
  private readonly guarded = new Map<DataCommand, DataChange | null>();
  private tracks: TrackedArea[];
  private readonly values: Array<{ area: Area; grid: SheetValue[][] }>;
  /** Round trips and bytes this session's commits took (reads are counted by the port). */
  stats: CommitStats = noCommit;

  private constructor(
    private readonly port: SheetPort,
    private snap: Snapshot,
    private readonly clock: WriteClock,
  ) {
    this.host = port.host;
    this.seen = clock.count;
    this.data = new Map([...snap.data].map(([k, v]) => [k, JSON.stringify(v)]));
    this.stored = new Map(this.data);
    this.tracks = snap.tracked.map((t) => ({ ...t }));
    this.values = snap.values.map((v) => ({ area: v.area, grid: v.grid }));
  }

  static async open(port: SheetPort, req: SnapshotRequest = {}, clock = new WriteClock()): Promise<Session> {
    const seen = clock.count;
    const s = new Session(port, await port.snapshot(req), clock);
    s.seen = seen;
    return s;
  }

  /** Nothing of this engine wrote to the workbook since this session's snapshot, except the session itself. */
  get current(): boolean {
    return this.seen === this.clock.count;
  }

  /** The port underneath (for work that is not the workbook's cells or data). */
  get base(): SheetPort {
    return this.port;
  }

  /** The workbook's tables as read (issue 33), when the snapshot asked for them. */
  get tables(): TableRead[] | undefined {
    return this.snap.tables;
  }

  /** Does the snapshot hold the values of this area? */
  holds(area: Area): boolean {
    return this.values.some((v) => contains(v.area, area));
  }

  /** Commands queued and not sent yet. */
  get queued(): number {
    return this.queue.length;
  }

  /** Send what is queued as one commit (nothing when nothing is queued). */
  async flush(signal?: AbortSignal): Promise<CommitStats> {
    if (this.queue.length === 0) return noCommit;
    const queued = this.queue;
    this.queue = [];
    this.tick();
    let s: CommitStats = noCommit;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const sent = await this.port.commit(this.guard(coalesce(queued)), { basis: this.snap, ...(signal ? { signal } : {}) });
          s = addCommitStats(s, sent);
          // It wrote over someone else's save (the port read what was there in the same round trip): merge.
          if (sent.conflicts?.length) s = addCommitStats(s, await this.repair(queued, sent.conflicts, signal));
          break;
        } catch (e) {
          // A part this commit reads was deleted by someone else: the commit stopped. Merge and send again.
          if (!(e instanceof DataChangedError) || e.cellsWritten || attempt >= MAX_STATE_ATTEMPTS || !this.canReapply(queued)) throw e;
          await this.reapply(queued, signal);
        }
      }
    } catch (e) {
      this.seen = -1; // what landed is unknown: whoever uses this session next reads the workbook again
      throw e;
    } finally {
      for (const c of queued) if (c.kind === "data") this.guarded.delete(c);
    }
    for (const c of queued) if (c.kind === "data") this.stored.set(c.key, JSON.stringify(c.value));
    if (s.sheets) this.renamed(s.sheets);
    this.stats = addCommitStats(this.stats, s);
    return s;
  }

  /** The first data command of each guarded key carries what the workbook held when this session read it. */
  private guard(commands: Command[]): Command[] {
    const keys = new Set<string>();
    for (const c of this.guarded.keys()) keys.add(c.key);
    const done = new Set<string>();
    return commands.map((c) => {
      if (c.kind !== "data" || !keys.has(c.key) || done.has(c.key)) return c;
      done.add(c.key);
      const json = this.stored.get(c.key);
      return { ...c, ifUnchanged: { value: json === undefined ? undefined : (JSON.parse(json) as unknown) } };
    });
  }

  /**
   * The commit stored a key over someone else's save (`conflicts`: what it replaced, read in the same
   * round trip). Re-apply this commit's changes of that key — each touches only its own placement's
   * record — to what was there, and write the merge, checked the same way; again while someone keeps
   * saving, at most MAX_STATE_ATTEMPTS times. Costs a commit only when there was a conflict; a conflict
   * whose replaced value is unknown (a second part appeared) reads the data first.
   */
  private async repair(
    queued: readonly Command[],
    conflicts: NonNullable<CommitStats["conflicts"]>,
    signal?: AbortSignal,
  ): Promise<CommitStats> {
    let stats = noCommit;
    let pending = conflicts;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_STATE_ATTEMPTS || !this.canReapply(queued)) throw new DataChangedError(pending[0]!.key, true);
      let fresh: Map<string, unknown> | null = null;
      if (pending.some((c) => c.found === null)) {
        const f = await this.port.snapshot(signal ? { signal } : {});
        this.snap = { ...this.snap, data: f.data, ...(f.basis !== undefined ? { basis: f.basis } : {}) };
        fresh = f.data;
      }
      const fixes: Command[] = [];
      for (const key of new Set(pending.map((c) => c.key))) {
        const last = pending.filter((c) => c.key === key).at(-1)!;
        const mine = queued.filter((c): c is DataCommand => c.kind === "data" && c.key === key);
        if (mine.some((c) => !this.guarded.get(c))) throw new DataChangedError(key, true); // a plain write: nothing to re-apply
        const ours = mine.at(-1)!.value; // what the workbook should hold now, had nobody else saved
        let value = last.found ? last.found.value : fresh!.get(key);
        for (const c of mine) value = this.guarded.get(c)!(value);
        mine.at(-1)!.value = value;
        this.data.set(key, JSON.stringify(value));
        fixes.push({ kind: "data", key, value, ifUnchanged: { value: ours } });
      }
      const sent = await this.port.commit(fixes, { basis: this.snap, ...(signal ? { signal } : {}) });
      stats = addCommitStats(stats, sent);
      pending = sent.conflicts ?? [];
    }
    return stats;
  }

  /** Every guarded data command of the queue knows how to re-apply its change. */
  private canReapply(queued: readonly Command[]): boolean {
    return queued.every((c) => c.kind !== "data" || !this.guarded.has(c) || this.guarded.get(c) !== null);
  }

  /**
   * Read the data again (a fresh snapshot of the data, no cells) and re-apply the queued changes to it
   * in order: a guarded command's change runs on the fresh value; a plain one replaces it as before.
   */
  private async reapply(queued: readonly Command[], signal?: AbortSignal): Promise<void> {
    const fresh = await this.port.snapshot(signal ? { signal } : {});
    this.snap = { ...this.snap, data: fresh.data, ...(fresh.basis !== undefined ? { basis: fresh.basis } : {}) };
    this.stored = new Map([...fresh.data].map(([k, v]) => [k, JSON.stringify(v)]));
    const now = new Map(fresh.data);
    for (const c of queued) {
      if (c.kind !== "data") continue;
      const change = this.guarded.get(c);
      c.value = change ? change(now.get(c.key)) : c.value;
      now.set(c.key, c.value);
    }
    for (const [key, value] of now) this.data.set(key, JSON.stringify(value));
  }

  /** The commit found sheets named otherwise than the snapshot says (renamed meanwhile): use their names now. */
  private renamed(sheets: readonly SheetRef[]): void {
    const names = new Map(sheets.map((x) => [x.id, x.name]));
    this.snap = { ...this.snap, sheets: this.snap.sheets.map((x) => ({ ...x, name: names.get(x.id) ?? x.name })) };
    this.tracks = this.tracks.map((t) => (t.sheet ? { ...t, sheet: { ...t.sheet, name: names.get(t.sheet.id) ?? t.sheet.name } } : t));
  }

  /** This session writes: others of the engine are no longer current; this one stays current if it was. */
  private tick(): void {
    const own = this.current;
    this.clock.count++;
    if (own) this.seen = this.clock.count;
  }

  /** Forget cached values (they may have changed outside this session); data and tracking stay. */
  forgetValues(): void {
    this.values.length = 0;
  }

  // ---- SheetPort: reads from the snapshot --------------------------------------------------
  async snapshot(req: SnapshotRequest = {}): Promise<Snapshot> {
    await this.flush(req.signal);
    this.snap = await this.port.snapshot(req);
    return this.snap;
  }
  async commit(commands: readonly Command[]): Promise<CommitStats> {
    this.queue.push(...commands);
    for (const c of commands) if (c.kind === "restore") this.patch(c.cells.area, (r, k) => c.cells.values[r]?.[k] ?? "");
    return noCommit;
  }
  /** Where things are now (issue 36): sends what is queued, then one read of the workbook (not cached). */
  async recheck(req: RecheckRequest = {}): Promise<Recheck> {
    await this.flush(req.signal);
    return this.port.recheck(req);
  }
  async identity(): Promise<WorkbookIdentity> {
    return this.snap.identity;
  }
  async forkIdentity(): Promise<WorkbookIdentity> {
    await this.flush();
    this.tick();
    const id = await this.port.forkIdentity();
    this.snap = { ...this.snap, identity: id };
    return id;
  }
  async sheets(): Promise<SheetRef[]> {
    return this.snap.sheets.map((s) => ({ ...s }));
  }
  selection(): Promise<{ sheet: SheetRef; area: Area }> {
    return this.port.selection();
  }
  /** A person's defined name (issue 32): asked of the workbook (where its host has names), never of the snapshot. */
  get namedArea(): SheetPort["namedArea"] {
    const port = this.port;
    return port.namedArea ? (name: string) => port.namedArea!(name) : undefined;
  }
  async select(area: Area): Promise<void> {
    await this.flush();
    await this.port.select(area);
  }
  async tracked(): Promise<TrackedArea[]> {
    return this.tracks.map((t) => ({ ...t }));
  }
  async getData(key: string): Promise<unknown> {
    const json = this.data.get(key);
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  }
  async *read(area: Area, options: ReadOptions = {}): AsyncIterable<SheetValue[][]> {
    const hit = this.values.find((v) => contains(v.area, area));
    if (hit) {
      yield sliceValues(hit, area);
      return;
    }
    await this.flush(options.signal);
    const grid: SheetValue[][] = [];
    for await (const block of this.port.read(area, options)) {
      grid.push(...block);
      yield block;
    }
    this.values.push({ area, grid });
  }
  async readStyle(area: Area): Promise<AreaStyleRead> {
    await this.flush();
    return this.port.readStyle(area);
  }
  async frozenRows(sheetId: string): Promise<number> {
    const known = this.snap.frozenRows.get(sheetId);
    if (known !== undefined) return known;
    await this.flush();
    return this.port.frozenRows(sheetId);
  }
  /** What would refuse a write to the area: from the snapshot when it checked this area (writeChecks). */
  async obstacles(area: Area): Promise<Obstacle[]> {
    const known = this.snap.obstacles?.find((o) => sameArea(o.area, area));
    if (known) return known.found;
    await this.flush();
    return (await this.port.obstacles?.(area)) ?? [];
  }
  /** Where an area holds anything: from the snapshot when it looked (usedIn). */
  async usedArea(area: Area): Promise<Area | null> {
    const known = this.snap.used?.find((u) => sameArea(u.area, area));
    if (known) return known.used;
    await this.flush();
    return this.port.usedArea(area);
  }
  async dateSystem(): Promise<1900 | 1904> {
    if (this.snap.dateSystem) return this.snap.dateSystem;
    return (await this.port.dateSystem?.()) ?? 1900;
  }
  async pictures(sheetId: string): Promise<Array<{ name: string; width: number; height: number }>> {
    return this.port.pictures(sheetId);
  }
  onChange(listener: (change: SheetChange) => void): Promise<() => Promise<void>> {
    return this.port.onChange(listener);
  }

  // ---- SheetPort: writes are queued -------------------------------------------------------
  /**
   * Queued. `place` (issue 36): `anchor` — where the placement's name is when it is sent, not where this
   * session read it; `guard` — what the cells must hold (the commit reports otherwise).
   */
  async write(
    at: Pick<Area, "sheetId" | "row" | "col">,
    grid: ReadonlyArray<ReadonlyArray<SheetValue>>,
    options: WriteOptions = {},
    place: { anchor?: Anchor | undefined; guard?: WriteGuard | undefined } = {},
  ): Promise<WriteStats> {
    const { signal: _signal, ...rest } = options;
    const rows = grid.length,
      cols = grid[0]?.length ?? 0;
    this.queue.push({
      kind: "write",
      at,
      grid,
      options: rest,
      ...(place.anchor ? { anchor: place.anchor } : {}),
      ...(place.guard ? { guard: place.guard } : {}),
    });
    this.patch({ sheetId: at.sheetId, row: at.row, col: at.col, rows, cols }, (r, c) => grid[r]![c]!);
    return { rows, cols, cells: rows * cols, syncs: 0, maxSyncBytes: 0 };
  }
  async clear(area: Area, anchor?: Anchor): Promise<void> {
    this.queue.push({ kind: "clear", area, ...(anchor ? { anchor } : {}) });
    this.patch(area, () => "");
  }
  async style(area: Area, style: AreaStyle, anchor?: Anchor): Promise<void> {
    this.queue.push({ kind: "style", area, style, ...(anchor ? { anchor } : {}) });
  }
  async freezeRows(sheetId: string, rows: number): Promise<void> {
    this.queue.push({ kind: "freeze", sheetId, rows });
    this.snap.frozenRows.set(sheetId, rows);
  }
  /** Queued; nothing is sent when the name already covers the area. `expect`: see the track command (issue 36). */
  async track(name: string, area: Area, expect?: Area): Promise<void> {
    const now = this.tracks.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (now?.area && sameArea(now.area, area)) return; // the name already covers it: nothing to send
    this.queue.push({ kind: "track", name, area, ...(expect ? { expect } : {}) });
    const sheet = this.snap.sheets.find((s) => s.id === area.sheetId) ?? null;
    this.tracks = [...this.tracks.filter((t) => t !== now), { name, sheet, area: { ...area } }];
  }
  async untrack(name: string): Promise<void> {
    const now = this.tracks.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!now) return;
    this.queue.push({ kind: "untrack", name });
    this.tracks = this.tracks.filter((t) => t !== now);
  }
  /** Queued; with `ifUnchanged`, sent only if nobody else saved the key since this session read it (no re-apply). */
  async setData(key: string, value: unknown, options: SetDataOptions = {}): Promise<void> {
    this.queueData(key, value, options.ifUnchanged ? null : undefined);
  }
  async modifyData<T>(key: string, change: (current: unknown) => { next: unknown; out: T }): Promise<T> {
    const { next, out } = change(await this.getData(key));
    if (next !== null) this.queueData(key, next, (current) => change(current).next ?? current);
    return out;
  }
  /** `reapply`: undefined = a plain write; null = guarded, no way to re-apply; a change = guarded, re-applied on conflict. */
  private queueData(key: string, value: unknown, reapply: DataChange | null | undefined): void {
    const json = JSON.stringify(value);
    if (this.data.get(key) === json) return; // the workbook holds it already
    const c: DataCommand = { kind: "data", key, value };
    this.queue.push(c);
    if (reapply !== undefined) this.guarded.set(c, reapply);
    this.data.set(key, json);
  }
  putPicture(name: string, base64: string, at?: Pick<Area, "sheetId" | "row" | "col">): Promise<{ sheetId: string; name: string }> {
    return this.flush().then(() => this.port.putPicture(name, base64, at));
  }

  /** Keep cached values true to what this session queued. */
  private patch(area: Area, value: (r: number, c: number) => SheetValue): void {
    for (const v of this.values) {
      if (v.area.sheetId !== area.sheetId) continue;
      const r0 = Math.max(v.area.row, area.row),
        r1 = Math.min(v.area.row + v.area.rows, area.row + area.rows);
      const c0 = Math.max(v.area.col, area.col),
        c1 = Math.min(v.area.col + v.area.cols, area.col + area.cols);
      for (let r = r0; r < r1; r++) {
        const row = v.grid[r - v.area.row]!;
        for (let c = c0; c < c1; c++) row[c - v.area.col] = value(r - area.row, c - area.col);
      }
    }
  }
}

/**
 * Drop data writes that a later write of the same key replaces with no cell command between them
 * (the journal entry before a write must stay; two state updates in a row need only the last).
 */
export function coalesce(commands: readonly Command[]): Command[] {
  const out: Command[] = [];
  for (const c of commands) {
    if (c.kind === "data") {
      for (let i = out.length - 1; i >= 0; i--) {
        const prev = out[i]!;
        if (prev.kind !== "data") break;
        if (prev.key === c.key) {
          out.splice(i, 1);
          break;
        }
      }
    }
    out.push(c);
  }
  return out;
}

function contains(outer: Area, inner: Area): boolean {
  return (
    outer.sheetId === inner.sheetId &&
    inner.row >= outer.row &&
    inner.col >= outer.col &&
    inner.row + inner.rows <= outer.row + outer.rows &&
    inner.col + inner.cols <= outer.col + outer.cols
  );
}

function sameArea(a: Area, b: Area): boolean {
  return a.sheetId === b.sheetId && a.row === b.row && a.col === b.col && a.rows === b.rows && a.cols === b.cols;
}

function sliceValues(v: { area: Area; grid: SheetValue[][] }, area: Area): SheetValue[][] {
  const dr = area.row - v.area.row,
    dc = area.col - v.area.col;
  return v.grid.slice(dr, dr + area.rows).map((row) => row.slice(dc, dc + area.cols));
}

const WRITES = new Set<PropertyKey>([
  "write",
  "clear",
  "style",
  "freezeRows",
  "track",
  "untrack",
  "setData",
  "forkIdentity",
  "takeIdentity",
  "putPicture",
  "commit",
]);

/** A port whose writes tick the clock (the engine's own port, which check.ts and the pane also use). */
export function clocked(port: SheetPort, clock: WriteClock): SheetPort {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      if (!WRITES.has(prop)) return (v as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        clock.count++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
