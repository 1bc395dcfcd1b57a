// `cellbound` — place, refresh and show placements in .xlsx files nobody has open, with the add-in's
// own engine (src/sync) over the file port (src/host/xlsx). runCli is the whole program, testable in
// process; main.ts only wires it to the process. The commands are in commands.ts, the file's care
// (links, locks, read-only, Excel's owner file, save before record) in workbook.ts.
import { statSync } from "node:fs";
import path from "node:path";
import { ApiError } from "../api/index.ts";
import { credentialsFrom, parseCommand, shardFromEnv, USAGE, UsageError, type Command, type Credentials } from "./args.ts";
import {
  fileError,
  ownerOf,
  placeInto,
  refreshFile,
  reportLabel,
  statusOf,
  type FileResult,
  type Run,
  type StatusLine,
  type StatusResult,
} from "./commands.ts";
import { resolveTarget } from "./files.ts";
import { Health, messageOf, PlatformStopped, RunTimeout } from "./net.ts";
import { openSession, type ApiTuning } from "./session.ts";
import { inShard, listWorkbooks } from "./shard.ts";

export type { FileResult, Outcome, PlacementResult, StatusLine } from "./commands.ts";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr is a terminal: show a progress line. */
  progress: boolean;
  env: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  /** Tests only: shorter deadlines and retries. */
  api?: ApiTuning;
}

/** Run one command line; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let cmd: Command;
  let creds: Credentials;
  let listing: Listing | null = null;
  try {
    cmd = parseCommand(argv);
    if (cmd.kind === "help") {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    creds = credentialsFrom(io.env);
    listing = cmd.kind === "place" ? null : listingOf(cmd, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`cellbound: ${e.message}\n\n${USAGE}\n`);
    if (argv.includes("--json")) io.stdout(`${JSON.stringify({ error: e.message, files: [] })}\n`);
    return 2;
  }
  const health = new Health(cmd.timeout);
  try {
    return await runCommand(cmd, creds, listing, io, health);
  } finally {
    health.end();
  }
}

async function runCommand(
  cmd: Exclude<Command, { kind: "help" }>,
  creds: Credentials,
  listing: Listing | null,
  io: CliIo,
  health: Health,
): Promise<number> {
  let run: Run;
  try {
    const fetchImpl = health.fetch(io.fetch ?? ((input, init) => fetch(input, init)));
    const session = await openSession(creds, cmd.kind === "place" ? cmd.deployment : null, {
      fetch: fetchImpl,
      signal: health.signal,
      ...(io.api ? { api: io.api } : {}),
    });
    run = { session, health, ignoreLock: cmd.ignoreLock };
  } catch (e) {
    // A key the platform refuses (or no deployment to use) is a credentials problem (2); a platform
    // that cannot be reached, fails or stops answering is a platform error (1).
    const status = e instanceof ApiError ? e.status : 0;
    const platformError =
      (e instanceof ApiError && status !== 401 && status !== 403) || e instanceof RunTimeout || e instanceof PlatformStopped;
    const message = `cannot sign in to ${new URL(creds.platformUrl).origin}: ${messageOf(e)}`;
    io.stderr(`cellbound: ${message}\n`);
    if (cmd.json) io.stdout(`${JSON.stringify({ error: message, files: [] })}\n`);
    return platformError ? 1 : 2;
  }
  if (cmd.kind === "status") return statusCommand(listing!, cmd.json, run, io);
  const progress = io.progress && !cmd.json ? new Progress(io.stderr) : null;
  let results: FileResult[];
  if (cmd.kind === "place")
    results = [await placeInto(cmd, run).catch((e: unknown) => fileError(cmd.file, `${messageOf(e)}; the file is as it was`))];
  else {
    const files = listing!.files;
    let done = 0;
    progress?.show(`Refreshing ${files.length} workbook${files.length === 1 ? "" : "s"}…`);
    results = await pool(files, cmd.concurrency, async (f) => {
      const stopped = health.stopped;
      if (stopped) return { file: f, notTried: stopped, placements: [] };
      const r = await refreshFile(f, cmd, run, (what) => progress?.show(`[${done}/${files.length}] ${f}: ${what}`)).catch((e: unknown) =>
        fileError(f, `${messageOf(e)}; the file is as it was`),
      );
      done++;
      progress?.show(`[${done}/${files.length}] ${f}: done`);
      return r;
    });
  }
  progress?.end();
  const shard = listing?.shard;
  if (cmd.json) io.stdout(`${JSON.stringify({ ...(shard ? { shard } : {}), files: results.map(ordered) })}\n`);
  else io.stdout((shard ? `${shardText(shard)}\n` : "") + results.map(resultText).join(""));
  for (const r of results) if (r.error && !cmd.json) io.stderr(`cellbound: ${errorText(r)}\n`);
  return exitCode(results);
}

async function statusCommand(listing: Listing, json: boolean, run: Run, io: CliIo): Promise<number> {
  const files = await pool(listing.files, 4, async (f): Promise<StatusResult> => {
    const stopped = run.health.stopped;
    if (stopped) return { file: f, notTried: stopped, placements: [] };
    return statusOf(f, run).catch((e: unknown) => fileError<StatusLine>(f, messageOf(e)));
  });
  if (json) io.stdout(`${JSON.stringify({ files: files.map(({ cause: _cause, ...r }) => r) })}\n`);
  else {
    io.stdout(
      files
        .map(statusText)
        .filter((t) => t !== "")
        .join("\n"),
    );
    for (const r of files) if (r.error) io.stderr(`cellbound: ${errorText(r)}\n`);
  }
  return files.some((f) => f.error) ? 2 : files.some((f) => f.notTried) ? 1 : 0;
}

/** 2 a file could not be used · 1 something not refreshed (or not tried) for another reason · 3 edits or occupied cells left · 0 all done. */
export function exitCode(results: readonly FileResult[]): number {
  if (results.some((r) => r.error)) return 2;
  const all = results.flatMap((r) => r.placements);
  if (results.some((r) => r.notTried) || all.some((p) => p.outcome === "not-refreshed" || p.outcome === "unrecorded")) return 1;
  if (all.some((p) => p.outcome === "edited")) return 3;
  return 0;
}

// ---------------------------------------------------------------- which files

interface Listing {
  files: string[];
  /** With --shard / --shard-count: which shard, and how many of the workbooks listed it took. */
  shard: { index: number; count: number; workbooks: number; of: number } | null;
}

/** The workbooks a refresh or status takes: folders expanded (refresh), then its shard's (shard.ts); each file once. */
function listingOf(cmd: Extract<Command, { kind: "refresh" | "status" }>, env: CliIo["env"]): Listing {
  if (cmd.kind === "status") return { files: once(cmd.files), shard: null };
  if (cmd.out !== null || cmd.sets.length > 0) return { files: [templateOf(cmd)], shard: null };
  const shard = cmd.shard && { index: cmd.shard.index ?? shardFromEnv(cmd.shard.count, env), count: cmd.shard.count };
  const listed = listWorkbooks(cmd.files);
  if (listed.length === 0) throw new UsageError(`no workbooks (.xlsx, .xlsm) in ${cmd.files.join(", ")}`);
  const chosen = once(inShard(listed, shard).map((l) => l.file));
  return {
    files: chosen,
    shard: shard ? { index: shard.index, count: shard.count, workbooks: chosen.length, of: listed.length } : null,
  };
}

/** --set, --out: the one workbook file (not a folder), and another one to write. */
function templateOf(cmd: Extract<Command, { kind: "refresh" }>): string {
  const flag = cmd.out !== null ? "--out" : "--set";
  const given = cmd.files[0]!;
  let folder = false;
  try {
    folder = statSync(given).isDirectory();
  } catch {
    // missing: opening it says so
  }
  if (folder) throw new UsageError(`${flag} takes one workbook, not the folder ${given}`);
  if (cmd.out !== null) {
    const [t, o] = [resolveTarget(given), resolveTarget(cmd.out)];
    if (typeof t !== "string" && typeof o !== "string" && t.real === o.real)
      throw new UsageError(`--out ${cmd.out} is the workbook itself: leave --out off to refresh it in place`);
  }
  return given;
}

/** The same workbook named twice (or through a link) is worked on once, under the first name given. */
function once(files: readonly string[]): string[] {
  const seen = new Set<string>();
  return files.filter((f) => {
    const t = resolveTarget(f);
    const key = typeof t === "string" ? path.resolve(f) : t.real;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------- output

/** The --json shape, fields in the documented order. */
function ordered(r: FileResult): FileResult {
  return {
    file: r.file,
    ...(r.from !== undefined ? { from: r.from } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.notTried !== undefined ? { notTried: r.notTried } : {}),
    ...(r.saved !== undefined ? { saved: r.saved } : {}),
    placements: r.placements.map((p) => ({
      range: p.range,
      reportId: p.reportId,
      reportName: p.reportName,
      outcome: p.outcome,
      cellsWritten: p.cellsWritten,
      editedCells: p.editedCells,
      reason: p.reason,
    })),
  };
}

/** stderr: the file by its whole path (two files of one name in different folders are told apart). */
function errorText(r: { file: string; error?: string; cause?: string }): string {
  return r.cause !== undefined ? `${path.resolve(r.file)}: ${r.cause}` : r.error!;
}

function shardText(s: NonNullable<Listing["shard"]>): string {
  return `Shard ${s.index} of ${s.count}: ${s.workbooks} of ${s.of} workbook${s.of === 1 ? "" : "s"}`;
}

/** `cellbound status` for one workbook, as printed (exported for its tests). */
export function statusText(r: StatusResult): string {
  if (r.error) return "";
  if (r.notTried) return `${r.file}\n  not tried: ${r.notTried}\n`;
  if (r.placements.length === 0) return `${r.file}: no placements\n`;
  const lines = r.placements.map((p) => {
    const owner = ownerOf(p.owner);
    const known = p.reportName !== null || p.reportId !== null;
    const who = p.status === "no access" && owner && known ? ` (owner: ${owner})` : "";
    const when = p.refreshedAt ? `, refreshed ${p.refreshedAt}` : "";
    const detail = [...(p.table ? [`table ${p.table}`] : []), ...p.lines, ...inputLines(p)].map((l) => `\n      ${l}`).join("");
    const report = reportLabel({ reportName: p.reportName, reportId: p.reportId, owner }, true);
    return `  ${p.range ?? "(no range)"}  ${report}, deployment ${p.deploymentName ?? p.deploymentId}: ${p.status}${who}${when}${detail}`;
  });
  return `${r.file}\n${r.platformProblem ? `  ${r.platformProblem}\n` : ""}${lines.join("\n")}\n`;
}

/** A placement's inputs: "input country (customers.country) from Inputs!B1: Germany" (a problem is among its status lines). */
function inputLines(p: StatusLine): string[] {
  return p.inputs.map((i) => {
    const what = i.title && i.title !== i.member ? `${i.title} (${i.member})` : i.member;
    const said = i.problem !== null && p.lines.some((l) => l.includes(i.problem!));
    return `input ${what} from ${i.where}: ${said ? "cannot be used (above)" : (i.problem ?? (i.values.join(", ") || "(empty)"))}`;
  });
}

function resultText(r: FileResult): string {
  if (r.notTried) return `${r.file}\n  not tried: ${r.notTried}\n`;
  if (r.error && r.placements.length === 0) return ""; // stderr says it
  const lines = r.placements.map((p) => {
    const what =
      p.outcome === "edited" && p.editedCells.length
        ? ` ${p.editedCells.slice(0, 10).join(", ")}${p.editedCells.length > 10 ? "…" : ""}`
        : "";
    const why = p.reason ? ` — ${p.reason}` : "";
    const cells =
      p.outcome === "refreshed" || p.outcome === "placed" || p.outcome === "unrecorded" ? ` (${p.cellsWritten} cells written)` : "";
    const report = reportLabel(p, p.outcome === "not-refreshed" && p.owner !== undefined);
    return `  ${p.range ?? "(no range)"}  ${report}: ${p.outcome}${cells}${what}${why}`;
  });
  const from = r.from !== undefined ? ` (from ${r.from})` : "";
  return `${r.file}${r.saved ? " (saved)" : ""}${from}\n${lines.join("\n") || "  no placements"}\n`;
}

class Progress {
  private shown = false;
  private last = 0;
  constructor(private readonly write: (s: string) => void) {}
  show(text: string): void {
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    this.write(`\r\x1b[2K${text.slice(0, 120)}`);
    this.shown = true;
  }
  end(): void {
    if (this.shown) this.write("\r\x1b[2K");
  }
}

/** Run `work` over `items` with at most `limit` at a time; results in the items' order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}
