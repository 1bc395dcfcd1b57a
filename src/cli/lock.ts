// One writer per workbook: `cellbound` creates `.~<name>.cellbound-lock` beside the workbook (exclusively:
// O_CREAT|O_EXCL, so two runs never both hold it) before reading it, and removes it when done. A second
// run waits briefly, then stops naming the first. A lock left by a run that died is recognised: its
// process is gone (same machine), or it has not been touched for LOCK_STALE_MS (a live run touches it
// every HEARTBEAT_MS). Before the new file is renamed over the workbook, the run checks the lock is
// still its own (stillOurs).
import { randomUUID } from "node:crypto";
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import path from "node:path";

export const LOCK_STALE_MS = 120_000;
const HEARTBEAT_MS = 20_000;
const POLL_MS = 150;

interface Holder {
  pid: number;
  host: string;
  user: string;
  since: string;
  token: string;
}

/** What is in a lock file now: its holder (null when it is not one of ours, or half written) and its age. */
interface Found {
  holder: Holder | null;
  mtimeMs: number;
  raw: string;
}

const held = new Set<WorkbookLock>();

/** Remove every lock this process holds (main.ts: on exit and on SIGINT/SIGTERM). */
export function releaseAllLocks(): void {
  for (const l of [...held]) l.release();
}

export function lockPath(real: string): string {
  return path.join(path.dirname(real), `.~${path.basename(real)}.cellbound-lock`);
}

export class WorkbookLock {
  private readonly beat: ReturnType<typeof setInterval>;

  private constructor(
    readonly file: string,
    private readonly token: string,
  ) {
    this.beat = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(this.file, now, now);
      } catch {
        // gone: stillOurs() says so before the next save
      }
    }, HEARTBEAT_MS);
    this.beat.unref();
    held.add(this);
  }

  /**
   * Take the lock of the workbook at `real`, waiting up to `waitMs` for another run to finish. A string
   * says why not (another run holds it — named; or the folder does not let us create it).
   */
  static async acquire(real: string, o: { waitMs: number; signal?: AbortSignal }): Promise<WorkbookLock | string> {
    const file = lockPath(real);
    const until = Date.now() + o.waitMs;
    for (;;) {
      const got = WorkbookLock.tryOnce(file);
      if (got instanceof WorkbookLock || typeof got === "string") return got;
      if (Date.now() >= until || o.signal?.aborted)
        return `${describe(got, file)} is writing it: nothing was done — run it again when that has finished (a lock left by a run that died is recognised and ignored)`;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private static tryOnce(file: string): WorkbookLock | Found | string {
    const me: Holder = { pid: process.pid, host: hostname(), user: userName(), since: new Date().toISOString(), token: randomUUID() };
    for (let attempt = 0; attempt < 5; attempt++) {
      let fd: number;
      try {
        fd = openSync(file, "wx", 0o644);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ENOENT") return `its folder ${path.dirname(file)} does not exist`;
        if (code !== "EEXIST")
          return `its lock file cannot be created beside it (${(e as Error).message}); the folder must be writable to rewrite the workbook`;
        const found = read(file);
        if (!found) continue; // removed meanwhile: try again
        if (!stale(found)) return found;
        breakStale(file, found);
        continue;
      }
      try {
        writeSync(fd, JSON.stringify(me));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return new WorkbookLock(file, me.token);
    }
    const found = read(file);
    return found ?? `its lock file ${path.basename(file)} keeps changing; run it again`;
  }

  /** The lock file is still there and still this run's. */
  stillOurs(): boolean {
    return read(this.file)?.holder?.token === this.token;
  }

  release(): void {
    clearInterval(this.beat);
    if (!held.delete(this)) return;
    try {
      if (this.stillOurs()) unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return "?";
  }
}

function read(file: string): Found | null {
  try {
    const raw = readFileSync(file, "utf8");
    const mtimeMs = statSync(file).mtimeMs;
    return { holder: parseHolder(raw), mtimeMs, raw };
  } catch {
    return null;
  }
}

function parseHolder(raw: string): Holder | null {
  try {
    const h = JSON.parse(raw) as Partial<Holder>;
    if (typeof h.pid !== "number" || typeof h.host !== "string" || typeof h.token !== "string") return null;
    return { pid: h.pid, host: h.host, user: String(h.user ?? "?"), since: String(h.since ?? "?"), token: h.token };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // someone else's process, alive
  }
}

/** Left by a run that died: its process is gone (this machine), or nobody touched it for LOCK_STALE_MS. */
function stale(f: Found): boolean {
  if (Date.now() - f.mtimeMs > LOCK_STALE_MS) return true;
  return f.holder !== null && f.holder.host === hostname() && !alive(f.holder.pid);
}

/**
 * Remove a stale lock without removing a live one another run created meanwhile: move it aside, and
 * only if what was moved is the lock judged stale, delete it; otherwise put it back.
 */
function breakStale(file: string, judged: Found): void {
  const aside = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.stale`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else broke it first
  }
  const moved = read(aside);
  if (moved && moved.raw !== judged.raw) {
    try {
      linkSync(aside, file); // a live lock: back where it was (unless yet another run holds the name now)
    } catch {
      // its run finds the lock no longer its own before it saves, and stops
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // gone
  }
}

function describe(f: Found, file: string): string {
  const h = f.holder;
  if (!h) return `another program (its lock file ${path.basename(file)} is beside it)`;
  return `another cellbound run (process ${h.pid} of ${h.user} on ${h.host}, since ${h.since})`;
}
