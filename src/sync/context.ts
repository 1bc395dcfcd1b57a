// What the engine is built from (the port, the API clients, settings) and the small helpers every
// engine operation shares: reading an area into memory, addresses sent to the platform, the
// single-writer lock for the sheet.
import type { DataClient, PlatformClient, Report } from "../api/index.ts";
import { areaA1, cellA1, quoteSheetName } from "../host/a1.ts";
import type { Area, SheetPort, SheetValue } from "../host/port.ts";
import type { Grid } from "./fingerprint.ts";
import type { FilterDefaults } from "./run-report.ts";
import type { DeploymentRole } from "./access.ts";

export interface SyncContext {
  port: SheetPort;
  platform: Pick<
    PlatformClient,
    | "iterateReports"
    | "upsertReport"
    | "updateReport"
    | "refreshReport"
    | "connectWorkbook"
    | "disconnectWorkbook"
    | "iterateExternalPlacements"
  >;
  data: Pick<DataClient, "fetchLoad" | "fetchSql">;
  /** The signed-in (active) deployment: new placements go there. */
  deploymentId: number;
  /** Its name, kept with new placements so cards can name it. */
  deploymentName?: string;
  /** Names of deployments by id (cards, reasons); undefined when unknown. */
  deploymentNames?: (deploymentId: number) => string | undefined;
  /**
   * The data client of another deployment (its own data token), for placements of a workbook that
   * holds several deployments. Undefined or returning undefined: those placements cannot be
   * refreshed from here, and say so.
   */
  dataFor?: (deploymentId: number) => SyncContext["data"] | undefined;
  /**
   * The signed-in user's role per deployment (from the sign-in's deployment list); undefined when
   * unknown. A viewer's placements are view only: never written, recorded or disconnected (access.ts).
   */
  roleOf?: (deploymentId: number) => DeploymentRole | undefined;
  filterDefaults?: FilterDefaults;
  /** Chunks per port.write during a refresh (default 4); each call holds whole chunk spans. */
  writeChunksPerCall?: number;
  /** Concurrent queries during refresh-all (default 2). */
  queryConcurrency?: number;
  newPublicId?: () => string;
  /** Random key for a new placement's local record and tracking name. */
  newKey?: () => string;
  /**
   * Where the grid Cellbound last wrote per placement is kept (the "Last written" column of a diff).
   * Default: this engine's memory; the pane passes one that survives a reload of the pane.
   */
  lastWritten?: LastWrittenStore;
}

/** The grids last written, by placement key. A Map is one. */
export interface LastWrittenStore {
  get(key: string): Grid | undefined;
  set(key: string, grid: Grid): unknown;
  delete(key: string): unknown;
}

/** Read an area completely (the adapter reads it in row blocks). */
export async function readArea(port: SheetPort, area: Area, signal?: AbortSignal): Promise<Grid> {
  const out: Grid = [];
  for await (const block of port.read(area, signal ? { signal } : {})) for (const row of block) out.push(row as SheetValue[]);
  return out;
}

/**
 * An area's values and, where the port reads them in the same round trip, its cells' number formats
 * (null otherwise): what a write under keepFormats needs (WriteOptions.currentFormats).
 */
export async function readAreaWithFormats(
  port: SheetPort,
  area: Area,
  signal?: AbortSignal,
): Promise<{ grid: Grid; formats: string[][] | null }> {
  const grid: Grid = [];
  const formats: string[][] = [];
  for await (const block of port.read(area, { numberFormats: (f) => formats.push(...f), ...(signal ? { signal } : {}) }))
    for (const row of block) grid.push(row as SheetValue[]);
  return { grid, formats: formats.length === grid.length ? formats : null };
}

/** Addresses the platform records for a placement at `area` on sheet `sheetName`. */
export function platformAddress(sheetName: string, area: Area): { anchorCell: string; endResultCell: string; resultLocation: string } {
  return {
    anchorCell: cellA1(area.row, area.col),
    endResultCell: cellA1(area.row + area.rows - 1, area.col + area.cols - 1),
    resultLocation: `${quoteSheetName(sheetName)}!${areaA1(area)}`,
  };
}

/** All reports of this deployment attached to the workbook, by id (one paged listing). */
export async function reportsById(
  ctx: SyncContext,
  deploymentId: number,
  externalWorkbookId: string | undefined,
  signal?: AbortSignal,
): Promise<Map<number, Report>> {
  const out = new Map<number, Report>();
  for await (const r of ctx.platform.iterateReports(deploymentId, externalWorkbookId ? { externalWorkbookId } : {}, signal))
    out.set(r.id, r);
  return out;
}

/**
 * A mutex: the sheet has a single writer (refresh-all applies one placement at a time).
 *
 * `run(fn, signal)`: a caller waiting for the lock gives up as soon as its signal aborts, and a
 * holder whose signal aborts releases the lock at once even if what it awaits never settles (a
 * hung request that ignores the signal): the caller gets the abort reason, and the next caller
 * runs. Whatever the hung call does later goes through the write journal (state.ts), so nothing
 * it leaves half-done is mistaken for a hand edit.
 */
export class Lock {
  /** Settles when the last caller in line releases the lock (never rejects). */
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    const go = async (): Promise<T> => {
      try {
        await untilAborted(prev, signal);
      } catch (e) {
        void prev.then(release); // gave up waiting: keep the line's order for those behind
        throw e;
      }
      try {
        signal?.throwIfAborted();
        return await untilAborted(fn(), signal);
      } finally {
        release();
      }
    };
    return go();
  }
}

/** `p`, or a rejection with the signal's reason as soon as it aborts (p keeps running unobserved). */
export function untilAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

export function randomKey(length = 12): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const bytes = new Uint8Array(length * 2);
  crypto.getRandomValues(bytes);
  let s = "";
  for (const b of bytes) {
    if (b < 248) s += alphabet[b % 62];
    if (s.length === length) return s;
  }
  return s + randomKey(length - s.length);
}

export const trackingName = (key: string) => `CB_${key}`;
