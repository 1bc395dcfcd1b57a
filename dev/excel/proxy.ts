// The proxy-object machinery of Excel's JavaScript API, as dev/excel reproduces it:
//   - a RequestContext queues commands; nothing reaches the workbook until sync();
//   - load() asks for properties; reading one before load() + sync() throws PropertyNotLoaded;
//   - errors surface at sync() as RichApi.Error with a code; commands before the failing one stay applied;
//   - while the user edits a cell, sync() fails with InvalidOperationInCellEditMode, or waits when the
//     batch was run with delayForCellEdit;
//   - per sync, a request or response over 5 MB fails (Request/ResponsePayloadSizeLimitExceeded) and
//     reading more than 5,000,000 cells fails (RangeExceedsLimit) — Excel on the web's limits.

import { OfficeError } from "./errors.ts";
import type { DevWorkbook, WorkbookEvent } from "./model.ts";
import type { DevExcelFaults } from "./faults.ts";
import { syncCostMs, type LatencyProfile } from "./latency.ts";

export const PAYLOAD_LIMIT_BYTES = 5_000_000;
export const READ_CELL_LIMIT = 5_000_000;

export interface DevEnv {
  wb: DevWorkbook;
  /** Highest ExcelApi requirement set this "Excel" supports, e.g. "1.20". */
  apiVersion: string;
  /** The fault mode (faults.ts), when a test asks for it. */
  faults?: DevExcelFaults;
  /** What a round trip costs (latency.ts); "none" when absent. Changeable at run time (the harness's selector). */
  latency?: LatencyProfile;
  /** A stalled Excel: while set, every sync waits until it is cleared (Excel on the web's unanswered syncs). */
  stall?: Promise<void> | null;
  /** Office.context.platform ("OfficeOnline" is Excel on the web). */
  platform?: string;
}

export interface SyncState {
  responseBytes: number;
  cellsRead: number;
  commits: Array<() => void>;
  events: WorkbookEvent[];
}

interface Op {
  bytes: number;
  /** The command as sent (the fault mode tells writes from reads by it). */
  payload: unknown;
  run(st: SyncState): void;
}

/** UTF-8 length of a string without allocating. */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
export function jsonBytes(v: unknown): number {
  return utf8Bytes(JSON.stringify(v) ?? "null");
}

export function versionAtLeast(have: string, want: string): boolean {
  const a = have.split(".").map(Number),
    b = want.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0,
      y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

export class DevRequestContext {
  private queue: Op[] = [];
  /** Excel.run({ delayForCellEdit: true }): wait for the user to leave cell-edit mode instead of failing. */
  delayForCellEdit = false;
  /** Excel.run({ mergeUndoGroup: true }): the run's changing syncs make one undo record, not one each. */
  mergeUndoGroup = false;
  private undoRecorded = false;
  readonly trackedObjects = { add: (_o: unknown) => undefined, remove: (_o: unknown) => undefined };
  constructor(readonly env: DevEnv) {}

  /** Commands queued since the last sync. */
  get pendingCommands(): number {
    return this.queue.length;
  }

  /** Queue a command whose request payload is `payload` (measured as JSON). */
  enqueue(payload: unknown, run: (st: SyncState) => void): void {
    this.queue.push({ bytes: jsonBytes(payload) + 32, payload, run });
  }

  async sync<T>(passThroughValue?: T): Promise<T> {
    const { wb } = this.env;
    // Cell-edit mode (RunOptions.delayForCellEdit, excel-add-ins-delay-in-cell-edit): the batch fails
    // with InvalidOperationInCellEditMode, or with delayForCellEdit waits until the user leaves the cell.
    for (let editing = wb.cellEdit(); editing; editing = wb.cellEdit()) {
      if (!this.delayForCellEdit) {
        this.queue = [];
        wb.stats.syncs++;
        wb.stats.failedSyncs++;
        throw new OfficeError(
          "InvalidOperationInCellEditMode",
          "The operation isn't available while Excel is in Edit cell mode. Please exit the edit mode by pressing ENTER or TAB, or by selecting another cell, and try again.",
        );
      }
      await editing;
    }
    const ops = this.queue;
    this.queue = [];
    const stats = wb.stats;
    stats.syncs++;
    if (ops.length === 0) stats.emptySyncs++;
    const requestBytes = ops.reduce((n, o) => n + o.bytes, 64);
    stats.totalRequestBytes += requestBytes;
    stats.maxRequestBytes = Math.max(stats.maxRequestBytes, requestBytes);
    const profile = this.env.latency ?? "none";
    const requestMs = profile === "none" ? 0 : syncCostMs(profile, requestBytes, 0);
    stats.modelledMs += syncCostMs(profile, requestBytes, 0);
    if (requestMs > 0) await new Promise((r) => setTimeout(r, requestMs));
    else await Promise.resolve();
    while (this.env.stall) await this.env.stall;
    const fault = this.env.faults?.decide(ops.map((o) => o.payload)) ?? null;
    if (fault?.kind === "payloadLimit") {
      stats.failedSyncs++;
      throw fault.error;
    }
    if (requestBytes > PAYLOAD_LIMIT_BYTES) {
      stats.failedSyncs++;
      throw new OfficeError(
        "RequestPayloadSizeLimitExceeded",
        `The request payload size has exceeded the limit (${requestBytes} bytes > ${PAYLOAD_LIMIT_BYTES}).`,
      );
    }
    const st: SyncState = { responseBytes: 64, cellsRead: 0, commits: [], events: [] };
    try {
      for (const [i, op] of ops.entries()) {
        if (fault?.kind === "syncFailure" && i === fault.afterCommands) throw fault.error;
        const at = this.env.faults?.commandFault(op.payload);
        if (at) throw at;
        op.run(st);
      }
      if (st.cellsRead > READ_CELL_LIMIT) {
        throw new OfficeError(
          "RangeExceedsLimit",
          `The cell count in the range has exceeded the maximum supported number (${st.cellsRead} > ${READ_CELL_LIMIT}).`,
        );
      }
      stats.maxResponseBytes = Math.max(stats.maxResponseBytes, st.responseBytes);
      if (st.responseBytes > PAYLOAD_LIMIT_BYTES) {
        throw new OfficeError(
          "ResponsePayloadSizeLimitExceeded",
          `The response payload size has exceeded the limit (${st.responseBytes} bytes > ${PAYLOAD_LIMIT_BYTES}).`,
        );
      }
    } catch (e) {
      stats.failedSyncs++;
      for (const ev of st.events) wb.emit(ev);
      throw e instanceof OfficeError
        ? e
        : new OfficeError("GeneralException", `An internal error has occurred. (${(e as Error)?.message ?? e})`);
    }
    const responseMs = profile === "none" ? 0 : syncCostMs(profile, 0, st.responseBytes) - syncCostMs(profile, 0, 0);
    stats.modelledMs += syncCostMs(profile, 0, st.responseBytes) - syncCostMs(profile, 0, 0);
    stats.totalResponseBytes += st.responseBytes;
    if (responseMs > 0) await new Promise((r) => setTimeout(r, responseMs));
    for (const c of st.commits) c();
    // Undo (RunOptions.mergeUndoGroup): "When false, each context.sync() call creates an undo record."
    if (ops.some((o) => changes(o.payload)) && !(this.mergeUndoGroup && this.undoRecorded)) {
      stats.undoRecords++;
      this.undoRecorded = true;
    }
    for (const ev of st.events) wb.emit(ev);
    this.env.faults?.afterSync(wb, fault, st.events);
    return passThroughValue as T;
  }
}

/** Commands that read (load, getXml, getCount) or listen change nothing: no undo record. */
const READS = new Set([
  "load",
  "loadItems",
  "getXml",
  "getCount",
  "addHandler",
  "removeHandler",
  "suspendApiCalculationUntilNextSync",
  "suspendScreenUpdatingUntilNextSync",
]);
function changes(payload: unknown): boolean {
  return typeof payload === "object" && payload !== null && Object.keys(payload).some((k) => !READS.has(k));
}

export function notLoaded(prop: string): OfficeError {
  return new OfficeError(
    "PropertyNotLoaded",
    `The property '${prop}' is not available. Before reading the property's value, call the load method on the containing object and call "context.sync()" on the associated request context.`,
  );
}

/** Normalises load()'s argument forms: "a,b", ["a","b"], {select: "a,b"} or nothing. */
export function loadProps(arg: unknown): string[] | null {
  if (arg === undefined || arg === null) return null;
  if (typeof arg === "string")
    return arg
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(arg))
    return arg
      .map(String)
      .map((s) => s.trim())
      .filter(Boolean);
  if (typeof arg === "object" && "select" in arg) return loadProps((arg as { select: unknown }).select);
  if (typeof arg === "object") return Object.keys(arg as object);
  throw new OfficeError("InvalidArgument", "The argument is invalid or missing or has an incorrect format. (load)");
}

/** Base of every proxy: loaded values, null-object state, load(). */
export abstract class DevClientObject<T> {
  protected _loaded = new Map<string, unknown>();
  private _isNull: boolean | undefined;
  private _bound: T | undefined;
  constructor(
    readonly context: DevRequestContext,
    private readonly _resolver: () => T | null,
    private readonly _nullable = false,
  ) {}

  /** Scalar properties load() with no argument fetches. */
  protected abstract readonly _scalarProps: readonly string[];
  protected abstract _read(target: T, prop: string, st: SyncState): unknown;

  /** The model object, resolved at sync time (and then bound). Throws ItemNotFound. */
  protected _target(): T {
    if (this._bound !== undefined) return this._bound;
    const t = this._resolver();
    if (t === null) {
      throw new OfficeError("ItemNotFound", `The requested resource doesn't exist. (${this.constructor.name.replace(/^Dev/, "")})`);
    }
    this._bound = t;
    return t;
  }
  protected _tryTarget(): T | null {
    if (this._bound !== undefined) return this._bound;
    const t = this._resolver();
    if (t !== null) this._bound = t;
    return t;
  }

  load(arg?: unknown): this {
    const props = loadProps(arg) ?? [...this._scalarProps];
    this.context.enqueue({ load: props }, (st) => {
      const t = this._nullable ? this._tryTarget() : this._target();
      if (t === null) {
        st.commits.push(() => {
          this._isNull = true;
        });
        return;
      }
      const snap = new Map<string, unknown>();
      for (const p of props) snap.set(p, this._read(t, p, st));
      st.responseBytes += jsonBytes(Object.fromEntries(snap));
      st.commits.push(() => {
        this._isNull = false;
        for (const [k, v] of snap) this._loaded.set(k, v);
      });
    });
    return this;
  }

  /** A collection hands its item proxies the properties it loaded for them. */
  _preload(m: Map<string, unknown>): void {
    for (const [k, v] of m) this._loaded.set(k, v);
    this._isNull = false;
  }

  get isNullObject(): boolean {
    if (this._isNull === undefined) throw notLoaded("isNullObject");
    return this._isNull;
  }
  protected _get<V>(prop: string): V {
    if (!this._loaded.has(prop)) throw notLoaded(prop);
    return this._loaded.get(prop) as V;
  }
  /** Queue a property assignment / method call that runs against the resolved model object. */
  protected _do(payload: unknown, run: (t: T, st: SyncState) => void): void {
    this.context.enqueue(payload, (st) => run(this._target(), st));
  }
  toJSON(): Record<string, unknown> {
    return Object.fromEntries(this._loaded);
  }
}

/** A value a method returns (e.g. getXml(), getCount()): readable after sync(). */
export class DevClientResult<V> {
  private _v: { value: V } | undefined;
  set(v: V): void {
    this._v = { value: v };
  }
  get value(): V {
    if (!this._v)
      throw new OfficeError(
        "ValueNotLoaded",
        'The value of the result object has not been loaded yet. Before reading the value property, call "context.sync()" on the associated request context.',
      );
    return this._v.value;
  }
}

/** Collections: load() fills `items` with proxies carrying the requested properties. */
export abstract class DevCollection<T, P extends DevClientObject<T>> {
  private _items: P[] | undefined;
  private _count: number | undefined;
  constructor(readonly context: DevRequestContext) {}
  protected abstract _list(): T[];
  protected abstract _proxy(item: T): P;
  protected abstract readonly _itemScalarProps: readonly string[];
  protected abstract _readItem(item: T, prop: string, st: SyncState): unknown;

  load(arg?: unknown): this {
    const raw = loadProps(arg);
    const props =
      raw === null || raw.length === 0 || (raw.length === 1 && raw[0] === "items")
        ? [...this._itemScalarProps]
        : raw.map((p) => p.replace(/^items\//, "")).filter((p) => p !== "items" && p !== "count");
    const withCount = raw?.includes("count") === true;
    if (withCount && props.length === 0 && raw!.every((p) => p === "count")) {
      this.context.enqueue({ load: ["count"] }, (st) => {
        const n = this._list().length;
        st.responseBytes += 16;
        st.commits.push(() => (this._count = n));
      });
      return this;
    }
    this.context.enqueue({ loadItems: props }, (st) => {
      const items = this._list();
      if (withCount) st.commits.push(() => (this._count = items.length));
      const snaps = items.map((it) => {
        const m = new Map<string, unknown>();
        for (const p of props) m.set(p, this._readItem(it, p, st));
        return m;
      });
      st.responseBytes += jsonBytes(snaps.map((m) => Object.fromEntries(m)));
      st.commits.push(() => {
        this._items = items.map((it, i) => {
          const proxy = this._proxy(it);
          proxy._preload(snaps[i]!);
          return proxy;
        });
      });
    });
    return this;
  }
  get items(): P[] {
    if (!this._items) throw notLoaded("items");
    return this._items;
  }
  /** `count`, loaded with load("count") (collections that have it: tables, table rows and columns…). */
  get count(): number {
    if (this._count === undefined) throw notLoaded("count");
    return this._count;
  }
  getCount(): DevClientResult<number> {
    const r = new DevClientResult<number>();
    this.context.enqueue({ getCount: 1 }, (st) => {
      const n = this._list().length;
      st.commits.push(() => r.set(n));
    });
    return r;
  }
  toJSON(): unknown {
    return { items: this._items?.map((i) => i.toJSON()) ?? [] };
  }
}
