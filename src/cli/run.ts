// `cellbound` — place, refresh and show placements in .xlsx files nobody has open, with the add-in's
// own engine (src/sync) over the file port (src/host/xlsx). runCli is the whole program, testable in
// process; main.ts only wires it to the process.
import { existsSync } from "node:fs";
import {
  ApiError,
  createDataClient,
  createDeploymentTokenManager,
  createPlatformClient,
  defaultDataUrl,
  type DataClient,
  type PlatformClient,
  type Report,
} from "../api/index.ts";
import { areaA1, parseAddress, quoteSheetName } from "../host/a1.ts";
import { XlsxError } from "../host/xlsx/errors.ts";
import { XlsxPort } from "../host/xlsx/port.ts";
import { check, factsOf, home, placementStatus, SyncEngine, type StatusKind, type SyncContext } from "../sync/index.ts";
import { credentialsFrom, parseCommand, shardFromEnv, USAGE, UsageError, type Command, type Credentials } from "./args.ts";
import { inShard, listWorkbooks } from "./shard.ts";
import { sheetNameProblem } from "./sheet-name.ts";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr is a terminal: show a progress line. */
  progress: boolean;
  env: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
}

export type Outcome = "refreshed" | "unchanged" | "edited" | "not-refreshed" | "placed";

export interface PlacementResult {
  range: string | null;
  reportId: number | null;
  reportName: string | null;
  outcome: Outcome;
  cellsWritten: number;
  editedCells: string[];
  reason: string | null;
  /** Text only: the owner of a report you cannot open (named when nothing else names it). */
  owner?: string | null;
  /** Text only: how to name a report whose name and id are unknown (e.g. `report 12` as asked for). */
  asked?: string;
}

export interface FileResult {
  file: string;
  /** The file could not be read or written (exit 2): the message names it and the cause. */
  error?: string;
  /** Written back (false: nothing changed, a dry run, or an error). */
  saved?: boolean;
  placements: PlacementResult[];
}

export interface StatusLine {
  range: string | null;
  reportId: number | null;
  reportName: string | null;
  deploymentId: number;
  deploymentName: string | null;
  status:
    | "up to date"
    | "changed"
    | "edited by hand"
    | "interrupted"
    | "view only"
    | "no access"
    | "missing"
    | "not checked"
    | "failed"
    | "refreshing";
  lines: string[];
  refreshedAt: string | null;
  owner: { name: string | null; email: string | null } | null;
}

const STATUS_WORDS: Record<StatusKind, StatusLine["status"]> = {
  upToDate: "up to date",
  outOfDate: "changed",
  editedByHand: "edited by hand",
  interrupted: "interrupted",
  viewOnly: "view only",
  noAccess: "no access",
  missing: "missing",
  unknown: "not checked",
  failed: "failed",
  refreshing: "refreshing",
};

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
    if (cmd.kind === "refresh") listing = listingOf(cmd, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`cellbound: ${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  let session: Session;
  try {
    session = await openSession(creds, cmd.kind === "place" ? cmd.deployment : null, io.fetch);
  } catch (e) {
    // A key the platform refuses is a credentials problem (2); a platform that cannot be reached or
    // fails is a platform error (1).
    const status = e instanceof ApiError ? e.status : 0;
    io.stderr(`cellbound: cannot sign in to ${new URL(creds.platformUrl).origin}: ${(e as Error).message}\n`);
    return status === 401 || status === 403 || !(e instanceof ApiError) ? 2 : 1;
  }
  const progress = io.progress && !cmd.json ? new Progress(io.stderr) : null;
  if (cmd.kind === "status") {
    const files = await pool(cmd.files, 4, (f) =>
      statusOf(f, session).catch((e: unknown): StatusResult => ({ file: f, error: `${f}: ${(e as Error).message}`, placements: [] })),
    );
    if (cmd.json) io.stdout(`${JSON.stringify({ files })}\n`);
    else io.stdout(files.map(statusText).join("\n"));
    return files.some((f) => f.error) ? 2 : 0;
  }
  let results: FileResult[];
  if (cmd.kind === "place")
    results = [
      await placeInto(cmd, session).catch((e: unknown): FileResult => ({
        file: cmd.file,
        error: `${cmd.file}: ${(e as Error).message}; the file is as it was`,
        placements: [],
      })),
    ];
  else {
    const files = listing!.files;
    let done = 0;
    progress?.show(`Refreshing ${files.length} workbook${files.length === 1 ? "" : "s"}…`);
    results = await pool(files, cmd.concurrency, async (f) => {
      const r = await refreshFile(f, cmd, session, (what) => progress?.show(`[${done}/${files.length}] ${f}: ${what}`)).catch(
        (e: unknown): FileResult => ({ file: f, error: `${f}: ${(e as Error).message}; the file is as it was`, placements: [] }),
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
  return exitCode(results);
}

interface Listing {
  files: string[];
  /** With --shard / --shard-count: which shard, and how many of the workbooks listed it took. */
  shard: { index: number; count: number; workbooks: number; of: number } | null;
}

/** The workbooks a refresh takes: folders expanded, then its shard's (shard.ts). */
function listingOf(cmd: Extract<Command, { kind: "refresh" }>, env: CliIo["env"]): Listing {
  const shard = cmd.shard && { index: cmd.shard.index ?? shardFromEnv(cmd.shard.count, env), count: cmd.shard.count };
  const listed = listWorkbooks(cmd.files);
  if (listed.length === 0) throw new UsageError(`no workbooks (.xlsx, .xlsm) in ${cmd.files.join(", ")}`);
  const chosen = inShard(listed, shard);
  return {
    files: chosen.map((l) => l.file),
    shard: shard ? { index: shard.index, count: shard.count, workbooks: chosen.length, of: listed.length } : null,
  };
}

function shardText(s: NonNullable<Listing["shard"]>): string {
  return `Shard ${s.index} of ${s.count}: ${s.workbooks} of ${s.of} workbook${s.of === 1 ? "" : "s"}`;
}

/** The --json shape, fields in the documented order. */
function ordered(r: FileResult): FileResult {
  return {
    file: r.file,
    ...(r.error !== undefined ? { error: r.error } : {}),
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

/** 2 a file could not be read · 1 something not refreshed for another reason · 3 edits or occupied cells left · 0 all done. */
export function exitCode(results: readonly FileResult[]): number {
  if (results.some((r) => r.error)) return 2;
  const all = results.flatMap((r) => r.placements);
  if (all.some((p) => p.outcome === "not-refreshed")) return 1;
  if (all.some((p) => p.outcome === "edited")) return 3;
  return 0;
}

// ---------------------------------------------------------------- session

interface Session {
  platform: PlatformClient;
  dataUrl: string;
  /** The active deployment (new placements go there). */
  deployment: { id: number; name: string };
  /** Deployments this key can use, id → name. */
  usable: Map<number, string>;
  dataFor: (deploymentId: number) => DataClient;
}

async function openSession(creds: Credentials, deploymentId: number | null, fetchImpl?: typeof fetch): Promise<Session> {
  const platform = createPlatformClient({
    baseUrl: creds.platformUrl,
    credential: creds.apiKey,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const deployments = await platform.listDeployments();
  const usable = new Map(deployments.map((d) => [d.id, d.name]));
  const active = deploymentId === null ? deployments[0] : deployments.find((d) => d.id === deploymentId);
  if (!active)
    throw new Error(
      deploymentId === null
        ? "this API key cannot use any deployment"
        : `this API key cannot use deployment ${deploymentId} (it can use ${[...usable.keys()].join(", ") || "none"})`,
    );
  const dataUrl = creds.dataUrl ?? defaultDataUrl(creds.platformUrl);
  const clients = new Map<number, DataClient>();
  const dataFor = (id: number) => {
    let d = clients.get(id);
    if (!d)
      clients.set(
        id,
        (d = createDataClient({
          dataUrl,
          token: createDeploymentTokenManager({ client: platform, deploymentId: id }),
          ...(fetchImpl ? { fetch: fetchImpl } : {}),
        })),
      );
    return d;
  };
  return { platform, dataUrl, deployment: { id: active.id, name: active.name }, usable, dataFor };
}

/** The platform calls that change something resolve without doing anything (dry run, status). */
function readOnly(platform: PlatformClient): SyncContext["platform"] {
  const noop = async () => undefined as never;
  return {
    iterateReports: (...a) => platform.iterateReports(...a),
    iterateExternalPlacements: (...a) => platform.iterateExternalPlacements(...a),
    upsertReport: noop,
    updateReport: noop,
    refreshReport: noop,
    connectWorkbook: noop,
    disconnectWorkbook: noop,
  };
}

function engineFor(port: XlsxPort, s: Session, dryRun: boolean): SyncEngine {
  return new SyncEngine({
    port,
    platform: dryRun ? readOnly(s.platform) : s.platform,
    data: s.dataFor(s.deployment.id),
    deploymentId: s.deployment.id,
    deploymentName: s.deployment.name,
    deploymentNames: (id) => s.usable.get(id),
    dataFor: (id) => (s.usable.has(id) ? s.dataFor(id) : undefined),
  });
}

function openFile(file: string, create?: string): XlsxPort | string {
  try {
    return XlsxPort.open(file, create === undefined ? {} : { create });
  } catch (e) {
    if (e instanceof XlsxError) return e.message;
    throw e;
  }
}

function save(port: XlsxPort, result: FileResult): void {
  try {
    result.saved = port.save() !== null;
  } catch (e) {
    result.error =
      e instanceof XlsxError ? e.message : `${port.file}: could not be written (${(e as Error).message}); the file is as it was`;
    result.saved = false;
  }
}

async function rangeOf(port: XlsxPort, name: string): Promise<string | null> {
  const t = (await port.tracked()).find((x) => x.name.toLowerCase() === name.toLowerCase());
  return t?.area && t.sheet ? `${quoteSheetName(t.sheet.name)}!${areaA1(t.area)}` : null;
}

// ---------------------------------------------------------------- refresh

async function refreshFile(
  file: string,
  cmd: Extract<Command, { kind: "refresh" }>,
  s: Session,
  progress: (what: string) => void,
): Promise<FileResult> {
  const port = openFile(file);
  if (typeof port === "string") return { file, error: port, placements: [] };
  const result: FileResult = { file, placements: [] };
  const engine = engineFor(port, s, cmd.dryRun);
  let entries: Awaited<ReturnType<typeof home>>["entries"] = [];
  try {
    entries = (await home(engine)).entries;
  } catch (e) {
    // The platform list is not needed to refresh; DENIED placements are then known only locally.
    progress(`placements list unavailable (${(e as Error).message})`);
  }
  const denied = new Set(entries.filter((e) => e.access === "DENIED" && e.key).map((e) => e.key));
  const locals = await engine.placements();
  for (const e of entries.filter((x) => x.access === "DENIED")) {
    const owner = ownerOf(e.owner);
    // The platform does not name a report you cannot open; the file's own record may.
    const local = locals.find((p) => p.key === e.key);
    result.placements.push({
      range: e.sheetName && e.range ? `${quoteSheetName(e.sheetName)}!${e.range}` : e.range,
      reportId: e.reportId ?? local?.reportId ?? null,
      reportName: e.reportName ?? local?.reportName ?? null,
      outcome: "not-refreshed",
      cellsWritten: 0,
      editedCells: [],
      reason: `No access: placed by ${owner ?? "someone else"}; Cellbound does not touch these cells.`,
      owner,
    });
  }
  for (const p of locals) {
    if (denied.has(p.key)) continue;
    progress(`refreshing ${p.reportName ?? `report ${p.reportId}`}`);
    const base = {
      reportId: p.reportId,
      reportName: p.reportName,
      cellsWritten: 0,
      editedCells: [] as string[],
      reason: null as string | null,
    };
    try {
      const out = await engine.refresh(p.key, cmd.overwriteEdits ? "overwrite" : "ask");
      const range = await rangeOf(port, p.name);
      switch (out.kind) {
        case "refreshed": {
          const st = out.stats;
          const same = st.cellsChanged + st.rowsAdded + st.rowsRemoved + st.cellsCleared === 0;
          result.placements.push({
            ...base,
            range,
            outcome: same ? "unchanged" : "refreshed",
            cellsWritten: st.cellsWritten,
            reason: out.notices[0] ?? null,
          });
          break;
        }
        case "handEdited":
          result.placements.push({
            ...base,
            range,
            outcome: "edited",
            editedCells: out.edits.cells.map((c) => c.address),
            reason: `Edited by hand (${out.edits.ranges.join(", ")}): left as it is; --overwrite-edits replaces the edits.`,
          });
          break;
        case "kept":
          result.placements.push({
            ...base,
            range,
            outcome: "edited",
            editedCells: out.edits.cells.map((c) => c.address),
            reason: "Edits kept.",
          });
          break;
        case "cannotGrow":
        case "missing":
          result.placements.push({ ...base, range, outcome: out.kind === "cannotGrow" ? "edited" : "not-refreshed", reason: out.reason });
          break;
      }
    } catch (e) {
      result.placements.push({ ...base, range: await rangeOf(port, p.name), outcome: "not-refreshed", reason: reasonOf(e) });
    }
  }
  if (!cmd.dryRun) save(port, result);
  return result;
}

function reasonOf(e: unknown): string {
  const err = e as Error;
  return err.name === "NoAccess" ? `No access: ${err.message}` : err.message || String(e);
}

// ---------------------------------------------------------------- place

async function placeInto(cmd: Extract<Command, { kind: "place" }>, s: Session): Promise<FileResult> {
  let at: ReturnType<typeof parseAddress>;
  try {
    at = parseAddress(cmd.at);
  } catch (e) {
    const blank = /^empty sheet name/.test((e as Error).message);
    return {
      file: cmd.file,
      error: blank
        ? sheetNameRefused(cmd.at, "", sheetNameProblem("")!)
        : `--at ${JSON.stringify(cmd.at)} is not a cell such as "Sheet1!B2"`,
      placements: [],
    };
  }
  const exists = existsSync(cmd.file);
  const port = openFile(cmd.file, at.sheet ?? "Sheet1");
  if (typeof port === "string") return { file: cmd.file, error: port, placements: [] };
  const result: FileResult = { file: cmd.file, placements: [] };
  const sheets = await port.sheets();
  const found = at.sheet === null ? sheets[0] : exists ? sheets.find((x) => x.name.toLowerCase() === at.sheet!.toLowerCase()) : undefined;
  if (!found && at.sheet !== null) {
    // The sheet would be added (or the new workbook named after it): only under a name Excel accepts.
    const problem = sheetNameProblem(at.sheet);
    if (problem) return { file: cmd.file, error: sheetNameRefused(cmd.at, at.sheet, problem), placements: [] };
  }
  const sheet = found ?? (exists ? port.wb.addSheet(at.sheet!) : sheets[0]!);
  let report: Report | undefined;
  try {
    for await (const r of s.platform.iterateReports(s.deployment.id)) {
      if (String(r.id) === cmd.report || r.publicId === cmd.report) {
        report = r;
        break;
      }
    }
  } catch (e) {
    result.placements.push({ ...failed(null, reasonOf(e)), asked: `report ${cmd.report}` });
    return result;
  }
  if (!report) {
    result.placements.push({
      ...failed(null, `No report ${cmd.report} in deployment ${s.deployment.name} that this key can read.`),
      asked: `report ${cmd.report}`,
    });
    return result;
  }
  const engine = engineFor(port, s, false);
  try {
    const out = await engine.place(report, { at: { sheetId: sheet.id, row: at.row, col: at.col } });
    const base = { reportId: report.id, reportName: report.name, cellsWritten: 0, editedCells: [] as string[] };
    if (out.kind === "placed") {
      result.placements.push({
        ...base,
        range: `${quoteSheetName(sheet.name)}!${out.range}`,
        outcome: "placed",
        cellsWritten: out.stats?.cells ?? 0,
        reason: null,
      });
    } else if (out.kind === "wouldOverwrite") {
      result.placements.push({
        ...base,
        range: onSheet(sheet.name, out.target),
        outcome: "edited",
        editedCells: out.addresses,
        reason: `The target holds ${out.count} value${out.count === 1 ? "" : "s"} that are not this placement's; nothing was written. Choose another cell or clear them.`,
      });
      return result;
    } else {
      // The pane's words (store.ts: "There is a report in the way").
      const target = onSheet(sheet.name, out.target);
      result.placements.push({
        ...base,
        range: target,
        outcome: "edited",
        reason: `Placing it at ${target} would overlap ${listed(out.placements.map(quotedWhere))}; nothing was written. Select an empty cell away from other reports and place it again.`,
      });
      return result;
    }
  } catch (e) {
    result.placements.push(failed(report, reasonOf(e)));
  }
  save(port, result);
  return result;
}

/** "Sheet 2!B1:D4" as the engine words a target → 'Sheet 2'!B1:D4 (the sheet named once, quoted as in a formula). */
function onSheet(sheetName: string, target: string): string {
  return `${quoteSheetName(sheetName)}!${target.slice(target.lastIndexOf("!") + 1)}`;
}

/** “Sales” at Sheet 2!A1:B4 → “Sales” at 'Sheet 2'!A1:B4. */
function quotedWhere(label: string): string {
  return label.replace(/ at (.+)!([A-Z]+\d+(?::[A-Z]+\d+)?)$/, (_m, sheet: string, area: string) => ` at ${quoteSheetName(sheet)}!${area}`);
}

/** a · a and b · a, b and c */
function listed(items: readonly string[]): string {
  return items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function ownerOf(owner: { name: string | null; email: string | null } | null | undefined): string | null {
  return owner?.name ?? owner?.email ?? null;
}

/**
 * How a placement's report is named in text: its name, else its id, else what was asked for; a report
 * you cannot open and know nothing of is "a report you cannot open (owner …)" (the pane: "Report you cannot open").
 */
function reportLabel(
  p: { reportName: string | null; reportId: number | null; owner?: string | null; asked?: string },
  withId: boolean,
): string {
  if (p.reportName) return withId && p.reportId !== null ? `${p.reportName} (#${p.reportId})` : p.reportName;
  if (p.reportId !== null) return `report #${p.reportId}`;
  if (p.asked) return p.asked;
  return `a report you cannot open${p.owner ? ` (owner ${p.owner})` : ""}`;
}

function sheetNameRefused(at: string, name: string, problem: string): string {
  return `--at ${JSON.stringify(at)}: Excel does not allow the sheet name “${name}”: ${problem}. Nothing was written.`;
}

function failed(report: Report | null, reason: string): PlacementResult {
  return {
    range: null,
    reportId: report?.id ?? null,
    reportName: report?.name ?? null,
    outcome: "not-refreshed",
    cellsWritten: 0,
    editedCells: [],
    reason,
  };
}

// ---------------------------------------------------------------- status

interface StatusResult {
  file: string;
  error?: string;
  workbookName?: string;
  placements: StatusLine[];
}

async function statusOf(file: string, s: Session): Promise<StatusResult> {
  const port = openFile(file);
  if (typeof port === "string") return { file, error: port, placements: [] };
  const engine = engineFor(port, s, true); // read-only: status never changes the file or the platform
  const data = await home(engine);
  const checked = await check(engine);
  const byKey = new Map(checked.placements.map((c) => [c.key, c]));
  return {
    file,
    workbookName: data.workbookName,
    placements: data.entries.map((e) => {
      const c = e.key ? byKey.get(e.key) : undefined;
      const st = placementStatus(factsOf(e, c, s.usable));
      const sheetName = c?.sheetName ?? e.sheetName;
      const range = c?.range ?? e.range;
      return {
        range: sheetName && range ? `${quoteSheetName(sheetName)}!${range}` : range,
        // The platform does not name a report you cannot open; the file's own record may.
        reportId: e.reportId ?? c?.reportId ?? null,
        reportName: e.reportName ?? c?.reportName ?? null,
        deploymentId: e.deploymentId,
        deploymentName: s.usable.get(e.deploymentId) ?? e.deploymentName,
        status: STATUS_WORDS[st.kind],
        lines: st.lines,
        refreshedAt: e.refreshedAt,
        owner: e.owner,
      };
    }),
  };
}

// ---------------------------------------------------------------- text

function statusText(r: StatusResult): string {
  if (r.error) return `${r.error}\n`;
  if (r.placements.length === 0) return `${r.file}: no placements\n`;
  const lines = r.placements.map((p) => {
    const owner = ownerOf(p.owner);
    const known = p.reportName !== null || p.reportId !== null;
    const who = p.status === "no access" && owner && known ? ` (owner: ${owner})` : "";
    const when = p.refreshedAt ? `, refreshed ${p.refreshedAt}` : "";
    const detail = p.lines.length ? `\n      ${p.lines.join("\n      ")}` : "";
    const report = reportLabel({ reportName: p.reportName, reportId: p.reportId, owner }, true);
    return `  ${p.range ?? "(no range)"}  ${report}, deployment ${p.deploymentName ?? p.deploymentId}: ${p.status}${who}${when}${detail}`;
  });
  return `${r.file}\n${lines.join("\n")}\n`;
}

function resultText(r: FileResult): string {
  if (r.error) return `${r.error}\n`;
  const lines = r.placements.map((p) => {
    const what =
      p.outcome === "edited" && p.editedCells.length
        ? ` ${p.editedCells.slice(0, 10).join(", ")}${p.editedCells.length > 10 ? "…" : ""}`
        : "";
    const why = p.reason ? ` — ${p.reason}` : "";
    const cells = p.outcome === "refreshed" || p.outcome === "placed" ? ` (${p.cellsWritten} cells written)` : "";
    const report = reportLabel(p, p.outcome === "not-refreshed" && p.owner !== undefined);
    return `  ${p.range ?? "(no range)"}  ${report}: ${p.outcome}${cells}${what}${why}`;
  });
  return `${r.file}${r.saved ? " (saved)" : ""}\n${lines.join("\n") || "  no placements"}\n`;
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
