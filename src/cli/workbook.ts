// One workbook file under the command line's care: opened through its real path (a link is resolved,
// never replaced), refused when it may not be rewritten (read-only, open in Excel), locked against other
// runs, and saved atomically with a last check right before the rename (the lock still ours, the file
// still what was read).
//
// The order of save and record: `recording(platform)` saves the file before each record with the
// platform (PUT …/refresh, connect-workbook). The engine journals a write as "written" and sends it to
// the port before it records (src/sync/engine.ts, steps 3–4), so the saved file holds the new cells and
// that journal: a record that fails after the save leaves a write the next `refresh` or `status`
// records (the engine's "unrecorded" state, check's "interrupted-finished"). A save that fails stops
// the operation before anything is recorded.
import { XlsxError } from "../host/xlsx/errors.ts";
import { XlsxPort, type SaveStats } from "../host/xlsx/port.ts";
import type { SyncContext } from "../sync/context.ts";
import { identityOf, openInExcel, openInExcelProblem, readOnlyProblem, resolveTarget, type Target } from "./files.ts";
import { WorkbookLock } from "./lock.ts";

/** How long a run waits for another run's lock on the same workbook. */
export const LOCK_WAIT_MS = 10_000;

export interface OpenOptions {
  /**
   * "now": refresh and place — checked and locked before the file is read. "later": status — only when
   * it records something (a finished write, a moved placement), checked and locked then. false: a dry run.
   */
  write: "now" | "later" | false;
  /** place: the first sheet's name of a new workbook when the file does not exist. */
  create?: string;
  /**
   * refresh --out: the workbook is read from this file (never written) and saved to the one opened,
   * which is created or replaced; checked and locked as any workbook to be rewritten.
   */
  from?: string;
  /** --ignore-lock: Excel's owner file beside the workbook is not taken as "open in Excel". */
  ignoreLock: boolean;
  /** The run's signal: waiting for a lock ends with it. */
  signal: AbortSignal;
}

/** The file cannot be used: `cause` says why (the output names the file). */
export class FileProblem {
  constructor(readonly cause: string) {}
}

/** Saving the workbook failed: nothing of this save was written, nothing after it is recorded. */
export class SaveFailed extends Error {
  override name = "SaveFailed";
}

export class Workbook {
  /** Records sent to the platform (each after a save). */
  records = 0;
  /** Saves that wrote the file, and the cells they wrote. */
  saves = 0;
  cellsSaved = 0;
  /** Why a save failed (the file is then left alone for the rest of the run). */
  saveFailed: string | null = null;
  /** Whether the file existed when it was read (under the lock). */
  readonly existed: boolean;

  private constructor(
    readonly target: Target,
    readonly port: XlsxPort,
    private identity: string | null,
    private lock: WorkbookLock | null,
    private readonly o: OpenOptions,
  ) {
    this.existed = identity !== null;
  }

  static async open(given: string, o: OpenOptions): Promise<Workbook | FileProblem> {
    const t = resolveTarget(given);
    if (typeof t === "string") return new FileProblem(t);
    let lock: WorkbookLock | null = null;
    // A missing file that is not to be created: opening it says so (nothing to lock).
    if (o.write === "now" && (t.exists || o.create !== undefined || o.from !== undefined)) {
      const problem = mayRewrite(t, o.ignoreLock);
      if (problem) return new FileProblem(problem);
      const got = await WorkbookLock.acquire(t.real, { waitMs: LOCK_WAIT_MS, signal: o.signal });
      if (typeof got === "string") return new FileProblem(got);
      lock = got;
    }
    try {
      const identity = identityOf(t.real); // under the lock: what the last check before the rename compares with
      const port =
        o.from !== undefined
          ? XlsxPort.openCopy(o.from, t.real)
          : XlsxPort.open(t.real, o.create !== undefined ? { create: o.create } : {});
      return new Workbook(t, port, identity, lock, o);
    } catch (e) {
      lock?.release();
      if (!(e instanceof XlsxError)) throw e;
      // --out: a problem of the workbook copied names it (the output names the file written).
      return new FileProblem(o.from !== undefined && e.file !== t.real ? `${o.from}: ${e.detail}` : e.detail);
    }
  }

  /** Write what changed (atomically); null when nothing did. Throws SaveFailed. */
  save(): SaveStats | null {
    if (this.saveFailed) throw new SaveFailed(this.saveFailed);
    if (!this.lock) throw new SaveFailed("it was read without its lock"); // unreachable: recording() locks first
    try {
      const stats = this.port.save({ beforeRename: () => this.lastCheck() });
      if (stats) {
        this.saves++;
        this.cellsSaved += stats.cellsWritten;
        this.identity = identityOf(this.target.real);
      }
      return stats;
    } catch (e) {
      this.saveFailed = e instanceof XlsxError ? e.detail : `it could not be written (${(e as Error).message})`;
      throw new SaveFailed(this.saveFailed);
    }
  }

  /** Right before the new file replaces the workbook: the lock is still ours and the file still what was read. */
  private lastCheck(): void {
    const real = this.target.real;
    if (!this.lock?.stillOurs())
      throw new XlsxError(real, "changed", "its lock was removed or taken by another run meanwhile; nothing was written, run it again");
    if (identityOf(real) !== this.identity)
      throw new XlsxError(real, "changed", "the file changed on disk while Cellbound was working on it; nothing was written, run it again");
  }

  /** status: checked and locked only now that something is to be recorded; the file must be as it was read. */
  private async lockLate(): Promise<void> {
    if (this.lock) return;
    const fail = (why: string): never => {
      this.saveFailed = why;
      throw new SaveFailed(why);
    };
    if (this.saveFailed) fail(this.saveFailed);
    if (this.o.write === false) fail("a dry run writes nothing");
    const problem = mayRewrite(this.target, this.o.ignoreLock);
    if (problem) fail(problem);
    const got = await WorkbookLock.acquire(this.target.real, { waitMs: LOCK_WAIT_MS, signal: this.o.signal });
    if (typeof got === "string") fail(got);
    this.lock = got as WorkbookLock;
    if (identityOf(this.target.real) !== this.identity) {
      this.close();
      fail("the file changed on disk since it was read; run it again");
    }
  }

  /** The platform for the engine: the file is saved before each record (see above). */
  recording(platform: SyncContext["platform"]): SyncContext["platform"] {
    const savedFirst = async <T>(record: () => Promise<T>): Promise<T> => {
      await this.lockLate();
      this.save();
      this.records++;
      return record();
    };
    return {
      iterateReports: (...a) => platform.iterateReports(...a),
      iterateExternalPlacements: (...a) => platform.iterateExternalPlacements(...a),
      upsertReport: (...a) => platform.upsertReport(...a),
      updateReport: (...a) => platform.updateReport(...a),
      disconnectWorkbook: (...a) => platform.disconnectWorkbook(...a),
      refreshReport: (...a) => savedFirst(() => platform.refreshReport(...a)),
      connectWorkbook: (...a) => savedFirst(() => platform.connectWorkbook(...a)),
    };
  }

  /** Release the lock (the file is left as the last save wrote it). */
  close(): void {
    this.lock?.release();
    this.lock = null;
  }
}

/** Why the workbook may not be rewritten: read-only, or open in Excel (unless --ignore-lock). */
function mayRewrite(t: Target, ignoreLock: boolean): string | null {
  if (!t.exists) return null;
  const readOnly = readOnlyProblem(t.real);
  if (readOnly) return readOnly;
  const open = ignoreLock ? null : openInExcel(t);
  return open ? openInExcelProblem(open) : null;
}
