// dev/excel's fault mode: seeded faults at context.sync(), as Excel reports them, for tests and the
// soak. Off unless a DevExcelFaults is passed to createDevExcel({ faults }).
//
// Faults hit syncs that write cells (a batch that sets values, formulas or number formats, or
// clears), so that they fall between, or inside, the blocks of a multi-block write:
//   payloadLimit    the sync fails with RequestPayloadSizeLimitExceeded, nothing applied (Excel on
//                   the web refuses a request as a whole; the 5 MB limit counts its own overhead,
//                   so a client may meet it under its own estimate). Only a write of more than one
//                   row gets it: a smaller request always goes through, as it would in Excel.
//   syncFailure     the sync fails with GeneralException after a seeded number of its commands ran:
//                   those stay applied, the rest do not (as errors surface at sync(), see proxy.ts)
//   coauthorInside  the sync succeeds, then a co-author types into one cell of the block just
//                   written (before the writer's next block)
//   coauthorBeside  the same, into the cell just right of the block
// coauthorRewritesPart(ns, f) rewrites a custom XML part just after the add-in read it (lost updates).
// failAtCommand(key) fails the sync that reaches one particular command (tests of non-atomic syncs).
// Co-author edits fire onChanged with triggerSource "Unknown" (DevWorkbook.typeInto) and are logged
// (`edits()`) so that a test knows which cells a person, not Cellbound, changed.
import { OfficeError } from "./errors.ts";
import type { DevWorkbook, WorkbookEvent } from "./model.ts";
import { cellA1, MAX_COLS, parseAddress } from "../../src/host/a1.ts";

export const EXCEL_FAULT_KINDS = ["payloadLimit", "syncFailure", "coauthorInside", "coauthorBeside"] as const;
export type ExcelFaultKind = (typeof EXCEL_FAULT_KINDS)[number];

export interface ExcelFaultSettings {
  seed: number;
  /** Chance per writing sync of each kind (their sum must be ≤ 1). */
  rates: Partial<Record<ExcelFaultKind, number>>;
}

export interface CoauthorEdit {
  sheetId: string;
  /** Zero-based cell. */
  row: number;
  col: number;
  value: string;
  /** Inside the block just written, or beside it. */
  inside: boolean;
}

/** What sync() does about a fault decided for it. */
export type SyncFault =
  | { kind: "payloadLimit"; error: OfficeError }
  | { kind: "syncFailure"; afterCommands: number; error: OfficeError }
  | { kind: "coauthorInside" | "coauthorBeside" };

/** Payload keys of commands that change cells. */
const WRITES = ["values", "formulas", "numberFormat", "clear"];

export class DevExcelFaults {
  private settings: ExcelFaultSettings | null = null;
  private random: () => number = Math.random;
  private readonly injected = Object.fromEntries(EXCEL_FAULT_KINDS.map((k) => [k, 0])) as Record<ExcelFaultKind, number>;
  private readonly log: CoauthorEdit[] = [];
  private n = 0;
  private readonly atCommand: Array<{ command: string; times: number; skip: number }> = [];
  private readonly partRewrites: Array<{ namespaceUri: string; rewrite: (xml: string) => string; times: number }> = [];
  private rewrites = 0;

  constructor(s?: ExcelFaultSettings) {
    if (s) this.set(s);
  }

  set(s: Partial<ExcelFaultSettings>): void {
    const next: ExcelFaultSettings = { seed: 1, rates: {}, ...this.settings, ...s };
    let sum = 0;
    for (const [k, v] of Object.entries(next.rates)) {
      if (!(EXCEL_FAULT_KINDS as readonly string[]).includes(k) || !(typeof v === "number" && v >= 0 && v <= 1))
        throw new RangeError(`excel fault rate ${k}=${v}: a known kind and a chance from 0 to 1`);
      sum += v;
    }
    if (sum > 1 + 1e-9) throw new RangeError(`excel fault rates add up to ${sum}; at most 1`);
    if (!this.settings || s.seed !== undefined) this.random = seeded(next.seed);
    this.settings = next;
  }

  off(): void {
    this.settings = null;
  }

  counts(): Record<ExcelFaultKind, number> {
    return { ...this.injected };
  }

  /** Every co-author edit made so far, in order. */
  edits(): readonly CoauthorEdit[] {
    return this.log;
  }

  /**
   * Fail the next `times` syncs that reach a command with this payload key ("addImage", "addName",
   * "formula", "delete", "setXml", …) with GeneralException, just before that command: the commands
   * before it stay applied, it and the rest do not (a sync is not atomic). Independent of the rates.
   * `skip` lets that many matching commands through first (to reach, say, the second `name`).
   */
  failAtCommand(command: string, times = 1, skip = 0): void {
    this.atCommand.push({ command, times, skip });
  }

  /** Called by sync() before each command: the error to fail with here, if a failAtCommand matches. */
  commandFault(payload: unknown): OfficeError | null {
    if (typeof payload !== "object" || payload === null) return null;
    const hit = this.atCommand.find((a) => a.times > 0 && a.command in payload);
    if (!hit) return null;
    if (hit.skip > 0) {
      hit.skip--;
      return null;
    }
    hit.times--;
    return new OfficeError("GeneralException", `An internal error has occurred. (fault at ${hit.command})`);
  }

  /**
   * A co-author's save lands right after the add-in read a custom XML part of this namespace (the next
   * `times` reads): the part's XML becomes `rewrite(xml)`, so the add-in's copy is stale when it writes.
   */
  coauthorRewritesPart(namespaceUri: string, rewrite: (xml: string) => string, times = 1): void {
    this.partRewrites.push({ namespaceUri, rewrite, times });
  }

  /** Called when a sync delivered a part's XML to the add-in. */
  partRead(part: { namespaceUri: string; xml: string }): void {
    const hit = this.partRewrites.find((r) => r.times > 0 && r.namespaceUri === part.namespaceUri);
    if (!hit) return;
    hit.times--;
    part.xml = hit.rewrite(part.xml);
    this.rewrites++;
  }

  /** Co-author rewrites of custom XML parts so far. */
  partRewritesDone(): number {
    return this.rewrites;
  }

  /** Called by sync() with its commands' payloads: the fault for this sync, if any. */
  decide(payloads: readonly unknown[]): SyncFault | null {
    const s = this.settings;
    if (!s) return null;
    const writes = payloads.filter((p): p is Record<string, unknown> => typeof p === "object" && p !== null && WRITES.some((k) => k in p));
    if (!writes.length) return null;
    // A request can always be split until it fits, so Excel refuses only one of several rows.
    const splittable = writes.some((p) => Array.isArray(p.values) && p.values.length > 1);
    let r = this.random();
    let kind: ExcelFaultKind | null = null;
    for (const k of EXCEL_FAULT_KINDS) {
      const p = s.rates[k] ?? 0;
      if (r < p) {
        kind = k;
        break;
      }
      r -= p;
    }
    if (kind === null || (kind === "payloadLimit" && !splittable)) return null;
    this.injected[kind]++;
    if (kind === "payloadLimit") {
      return {
        kind,
        error: new OfficeError(
          "RequestPayloadSizeLimitExceeded",
          'The request payload size has exceeded the limit. Please refer to the documentation: "https://docs.microsoft.com/office/dev/add-ins/concepts/resource-limits-and-performance-optimization#excel-add-ins".',
        ),
      };
    }
    if (kind === "syncFailure") {
      return {
        kind,
        afterCommands: Math.floor(this.random() * payloads.length),
        error: new OfficeError("GeneralException", "An internal error has occurred."),
      };
    }
    return { kind };
  }

  /** Called after a sync that succeeded: the co-author's edit, next to what the add-in just wrote. */
  afterSync(wb: DevWorkbook, fault: SyncFault | null, events: readonly WorkbookEvent[]): void {
    if (!fault || (fault.kind !== "coauthorInside" && fault.kind !== "coauthorBeside")) return;
    const written = events.filter(
      (e): e is Extract<WorkbookEvent, { kind: "changed" }> =>
        e.kind === "changed" && e.triggerSource === "ThisLocalAddin" && e.changeType === "RangeEdited",
    );
    const last = written[written.length - 1];
    if (!last) return;
    const sheet = wb.sheetById(last.worksheetId);
    if (!sheet) return;
    const rect = parseAddress(last.address);
    const inside = fault.kind === "coauthorInside";
    const row = rect.row + Math.floor(this.random() * rect.rows);
    const col = inside ? rect.col + Math.floor(this.random() * rect.cols) : rect.col + rect.cols;
    if (col >= MAX_COLS) return;
    const value = `co-author ${++this.n}`;
    wb.typeInto(sheet.id, cellA1(row, col), value);
    this.log.push({ sheetId: sheet.id, row, col, value, inside });
  }
}

/** mulberry32 (the same generator as the platform's fault mode). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
