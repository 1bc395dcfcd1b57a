// What the engine is built from (the port, the API clients, settings) and the small helpers every
// engine operation shares: reading an area into memory, addresses sent to the platform, the
// single-writer lock for the sheet.
import type { DataClient, PlatformClient, Report } from "../api/index.ts";
import { areaA1, cellA1, quoteSheetName } from "../host/a1.ts";
import type { Area, SheetPort, SheetValue } from "../host/port.ts";
import type { Grid } from "./fingerprint.ts";
import type { FilterDefaults } from "./run-report.ts";

export interface SyncContext {
  port: SheetPort;
  platform: Pick<PlatformClient, "iterateReports" | "upsertReport" | "updateReport" | "refreshReport" | "connectWorkbook" | "disconnectWorkbook" | "iterateExternalPlacements">;
  data: Pick<DataClient, "fetchLoad" | "fetchSql">;
  deploymentId: number;
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

/** Addresses the platform records for a placement at `area` on sheet `sheetName`. */
export function platformAddress(sheetName: string, area: Area): { anchorCell: string; endResultCell: string; resultLocation: string } {
  return {
    anchorCell: cellA1(area.row, area.col),
    endResultCell: cellA1(area.row + area.rows - 1, area.col + area.cols - 1),
    resultLocation: `${quoteSheetName(sheetName)}!${areaA1(area)}`,
  };
}

/** All reports of this deployment attached to the workbook, by id (one paged listing). */
export async function reportsById(ctx: SyncContext, externalWorkbookId: string | undefined, signal?: AbortSignal): Promise<Map<number, Report>> {
  const out = new Map<number, Report>();
  for await (const r of ctx.platform.iterateReports(ctx.deploymentId, externalWorkbookId ? { externalWorkbookId } : {}, signal)) out.set(r.id, r);
  return out;
}

/** A mutex: the sheet has a single writer (refresh-all applies one placement at a time). */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
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
