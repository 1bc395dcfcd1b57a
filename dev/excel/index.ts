// dev/excel: an in-memory stand-in for the part of Excel's JavaScript API Cellbound uses.
// createDevExcel() returns `Excel` and `Office` namespaces to inject into the Office.js adapter
// (src/host/excel), plus the workbook's "user side" for tests and the harness.
// What it reproduces, and from which Microsoft page, is in docs/EXCEL-FIDELITY.md.

import { DevWorkbook, type WorkbookSnapshot } from "./model.ts";
import { DevWorkbookProxy } from "./objects.ts";
import { DevRequestContext, versionAtLeast, type DevEnv } from "./proxy.ts";
import { OfficeError } from "./errors.ts";
import type { DevExcelFaults } from "./faults.ts";
import type { LatencyProfile } from "./latency.ts";

export { DevWorkbook, type WorkbookSnapshot, type SyncStats } from "./model.ts";
export { OfficeError } from "./errors.ts";
export { PAYLOAD_LIMIT_BYTES, READ_CELL_LIMIT } from "./proxy.ts";
export { LATENCY, LATENCY_PROFILES, isLatencyProfile, syncCostMs, type LatencyProfile } from "./latency.ts";
export { DevExcelFaults, EXCEL_FAULT_KINDS, type ExcelFaultKind, type ExcelFaultSettings, type CoauthorEdit } from "./faults.ts";

export type DevPlatform = "PC" | "Mac" | "OfficeOnline";

export interface DevExcelOptions {
  workbook?: DevWorkbook;
  /** Office.context.platform; default "OfficeOnline" (the strictest limits). */
  platform?: DevPlatform;
  /** Highest ExcelApi set supported; default "1.20". */
  apiVersion?: string;
  /** Seeded faults at sync() (faults.ts); none when omitted. */
  faults?: DevExcelFaults;
  /** What each round trip costs (latency.ts); default "none". */
  latency?: LatencyProfile;
}

/** A RequestContext with the members the adapter uses. */
export interface DevContext extends DevRequestContext {
  readonly workbook: DevWorkbookProxy;
  readonly application: DevWorkbookProxy["application"];
}

export interface DevExcel {
  workbook: DevWorkbook;
  /** Inject as the adapter's `Excel` (cast to `typeof Excel`). */
  Excel: DevExcelNamespace;
  /** Inject as the adapter's `Office` (cast to `typeof Office`). */
  Office: DevOfficeNamespace;
  env: DevEnv;
}

export interface DevExcelNamespace {
  run<T>(...args: unknown[]): Promise<T>;
  RequestContext: new () => DevContext;
  ErrorCodes: Record<string, string>;
  InsertShiftDirection: { down: "Down"; right: "Right" };
  DeleteShiftDirection: { up: "Up"; left: "Left" };
  EventTriggerSource: { unknown: "Unknown"; thisLocalAddin: "ThisLocalAddin" };
}

export interface DevOfficeNamespace {
  context: {
    platform: DevPlatform;
    host: "Excel";
    document: { readonly url: string | null };
    requirements: { isSetSupported(name: string, minVersion?: string | number): boolean };
  };
  PlatformType: Record<string, string>;
  HostType: { Excel: "Excel" };
  onReady(callback?: (info: { host: string; platform: string }) => void): Promise<{ host: string; platform: string }>;
}

export function createDevExcel(options: DevExcelOptions = {}): DevExcel {
  const env: DevEnv = {
    wb: options.workbook ?? new DevWorkbook("https://contoso.sharepoint.example/Shared%20Documents/Book1.xlsx"),
    apiVersion: options.apiVersion ?? "1.20",
    platform: options.platform ?? "OfficeOnline",
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.latency ? { latency: options.latency } : {}),
  };
  const platform = options.platform ?? "OfficeOnline";

  class RequestContext extends DevRequestContext {
    readonly workbook: DevWorkbookProxy;
    readonly application: DevWorkbookProxy["application"];
    constructor() {
      super(env);
      this.workbook = new DevWorkbookProxy(this);
      this.application = this.workbook.application;
    }
  }

  async function run<T>(...args: unknown[]): Promise<T> {
    const batch = args[args.length - 1];
    if (typeof batch !== "function") throw new OfficeError("InvalidArgument", "Excel.run needs a batch function.");
    const first = args.length > 1 ? args[0] : undefined;
    let ctx: RequestContext;
    if (first instanceof RequestContext) ctx = first;
    else if (first && typeof first === "object" && "context" in first && (first as { context: unknown }).context instanceof RequestContext)
      ctx = (first as { context: RequestContext }).context;
    else ctx = new RequestContext();
    if (first && typeof first === "object" && (first as { delayForCellEdit?: unknown }).delayForCellEdit === true)
      ctx.delayForCellEdit = true;
    if (first && typeof first === "object" && (first as { mergeUndoGroup?: unknown }).mergeUndoGroup === true) {
      if (!versionAtLeast(env.apiVersion, "1.20"))
        throw new OfficeError("InvalidArgument", "RunOptions.mergeUndoGroup requires ExcelApi 1.20");
      env.wb.stats.undoGroups++;
      ctx.mergeUndoGroup = true;
    }
    const out = (batch as (c: RequestContext) => unknown)(ctx);
    if (!(out instanceof Promise))
      throw new OfficeError("InvalidArgument", "Excel.run batch must return a Promise (RunMustReturnPromise).");
    const value = (await out) as T;
    if (ctx.pendingCommands > 0) await ctx.sync(); // Excel.run flushes whatever is still queued
    return value;
  }

  const Excel: DevExcelNamespace = {
    run,
    RequestContext: RequestContext as unknown as new () => DevContext,
    ErrorCodes: {
      invalidArgument: "InvalidArgument",
      itemNotFound: "ItemNotFound",
      itemAlreadyExists: "ItemAlreadyExists",
      invalidOperation: "InvalidOperation",
      invalidReference: "InvalidReference",
      generalException: "GeneralException",
      notImplemented: "NotImplemented",
      rangeExceedsLimit: "RangeExceedsLimit",
      responsePayloadSizeLimitExceeded: "ResponsePayloadSizeLimitExceeded",
      invalidOperationInCellEditMode: "InvalidOperationInCellEditMode",
      accessDenied: "AccessDenied",
      invalidSelection: "InvalidSelection",
      mergedRangeConflict: "MergedRangeConflict",
    },
    InsertShiftDirection: { down: "Down", right: "Right" },
    DeleteShiftDirection: { up: "Up", left: "Left" },
    EventTriggerSource: { unknown: "Unknown", thisLocalAddin: "ThisLocalAddin" },
  };

  const Office: DevOfficeNamespace = {
    context: {
      platform,
      host: "Excel",
      document: {
        get url() {
          return env.wb.url;
        },
      },
      requirements: {
        isSetSupported(name: string, minVersion?: string | number) {
          if (name !== "ExcelApi") return false;
          return versionAtLeast(env.apiVersion, minVersion === undefined ? "1.1" : String(minVersion));
        },
      },
    },
    PlatformType: { PC: "PC", Mac: "Mac", OfficeOnline: "OfficeOnline", iOS: "iOS", Android: "Android", Universal: "Universal" },
    HostType: { Excel: "Excel" },
    onReady(callback) {
      const info = { host: "Excel", platform };
      callback?.(info);
      return Promise.resolve(info);
    },
  };

  return { workbook: env.wb, Excel, Office, env };
}

/** Rebuild a dev workbook from a snapshot (validated) — the harness persists workbooks this way. */
export function restoreWorkbook(snapshot: unknown): DevWorkbook {
  return DevWorkbook.restore(snapshot);
}
export type { WorkbookSnapshot as Snapshot };
export { sheetShapes, onShapesChanged, type ModelShape } from "./shapes.ts";
