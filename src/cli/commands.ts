// The three commands over one workbook file each: refresh, place, status. Each opens the file through
// workbook.ts (its real path, its lock, the checks before a rewrite), runs the add-in's engine over the
// file port, saves before every record with the platform, and says what happened to each placement.
import { existsSync } from "node:fs";
import path from "node:path";
import type { Report } from "../api/index.ts";
import { areaA1, parseAddress, quoteSheetName } from "../host/a1.ts";
import {
  factsOf,
  fork,
  handEditsAt,
  home,
  homeCheck,
  placementStatus,
  viewOnlyReason,
  type EarlierCopy,
  type PlaceOptions,
  type SyncEngine,
  type StatusKind,
} from "../sync/index.ts";
import type { Owner } from "../sync/access.ts";
import { producersFirst } from "../sync/inputs.ts";
import { producersOf } from "../sync/bind.ts";
import { loadPlacements, type LocalPlacement } from "../sync/state.ts";
import { XlsxPort } from "../host/xlsx/port.ts";
import type { CellSet, Command } from "./args.ts";
import { messageOf, type Health } from "./net.ts";
import { checkOnly, engineFor, readOnly, type Session } from "./session.ts";
import { sheetNameProblem } from "./sheet-name.ts";
import { FileProblem, SaveFailed, Workbook } from "./workbook.ts";

export type Outcome = "refreshed" | "unchanged" | "edited" | "not-refreshed" | "placed" | "unrecorded";

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
  /** refresh --out: the workbook read (the template); `file` is the one written. */
  from?: string;
  /** The file could not be used, or saving it failed (exit 2): the file's name and the cause. */
  error?: string;
  /** Text only: the cause alone (stderr names the file by its whole path). */
  cause?: string;
  /** The run stopped before this file was started (the platform stopped answering, the time limit). */
  notTried?: string;
  /** Written back (false: nothing changed, a dry run, or an error before any save). */
  saved?: boolean;
  placements: PlacementResult[];
}

export interface Run {
  session: Session;
  health: Health;
  ignoreLock: boolean;
}

/** An error of the file `given`: JSON names it by its base name, text by its whole path (stderr). */
export function fileError<P = PlacementResult>(
  given: string,
  cause: string,
  placements: P[] = [],
): { file: string; error: string; cause: string; placements: P[] } {
  return { file: given, error: `${path.basename(given)}: ${cause}`, cause, placements };
}

export function reasonOf(e: unknown): string {
  const err = e as Error;
  return err.name === "NoAccess" ? `No access: ${err.message}` : messageOf(e);
}

async function rangeOf(engine: SyncEngine, name: string): Promise<string | null> {
  const t = (await engine.ctx.port.tracked()).find((x) => x.name.toLowerCase() === name.toLowerCase());
  return t?.area && t.sheet ? `${quoteSheetName(t.sheet.name)}!${areaA1(t.area)}` : null;
}

function ownerOf(owner: { name: string | null; email: string | null } | null | undefined): string | null {
  return owner?.name ?? owner?.email ?? null;
}

// ---------------------------------------------------------------- refresh

/** A placement whose refresh failed: its line in the result, and what the save counted for it. */
interface Failure {
  line: PlacementResult;
  key: string;
  error: unknown;
  /** Cells the saves made during its operation wrote (the save before its record). */
  cells: number;
}

export async function refreshFile(
  given: string,
  cmd: Extract<Command, { kind: "refresh" }>,
  run: Run,
  progress: (what: string) => void,
): Promise<FileResult> {
  // --out: the template is only read; the result is saved to the other workbook (created or replaced).
  const file = cmd.out ?? given;
  const book = await Workbook.open(file, {
    write: cmd.dryRun ? false : "now",
    ignoreLock: run.ignoreLock,
    signal: run.health.signal,
    ...(cmd.out !== null ? { from: given } : {}),
  });
  if (book instanceof FileProblem) return { ...fileError(file, book.cause), ...(cmd.out !== null ? { from: given } : {}) };
  try {
    const result: FileResult = { file, ...(cmd.out !== null ? { from: given } : {}), placements: [] };
    const setProblem = await applySets(book.port, cmd.sets);
    if (setProblem) return { ...result, ...fileError(file, setProblem) };
    const platform = cmd.dryRun ? readOnly(run.session.platform) : book.recording(run.session.platform);
    const engine = engineFor(book.port, run.session, platform);
    const locals = await engine.placements();
    if (cmd.sets.length > 0 || cmd.out !== null) {
      // One template, many copies: an input that cannot be used stops the run before anything is written.
      result.placements = await inputProblems(engine, locals);
      if (result.placements.length > 0) return result;
    }
    if (cmd.out !== null) await ownWorkbook(engine, cmd.out, run.health.signal);
    const { denied, owners } = await listDenied(engine, locals, result, run, progress);
    const failures: Failure[] = [];
    for (const p of await producersFirstOf(engine, locals)) {
      if (denied.has(p.key)) continue;
      const stop = run.health.stopped ?? (book.saveFailed ? "the file could not be saved" : null);
      const base = { reportId: p.reportId, reportName: p.reportName, cellsWritten: 0, editedCells: [] as string[] };
      if (stop) {
        result.placements.push({ ...base, range: await rangeOf(engine, p.name), outcome: "not-refreshed", reason: `Not tried: ${stop}.` });
        continue;
      }
      if (engine.viewOnly(p.deploymentId)) {
        // The key's role (a viewer) is known before anything is tried: the card's words, with the owner.
        const reason = viewOnlyReason(owners.get(p.key) ?? null);
        result.placements.push({ ...base, range: await rangeOf(engine, p.name), outcome: "not-refreshed", reason });
        continue;
      }
      progress(`refreshing ${p.reportName ?? `report ${p.reportId}`}`);
      const cells = book.cellsSaved;
      try {
        const out = await engine.refresh(p.key, cmd.overwriteEdits ? "overwrite" : "ask", { signal: run.health.signal });
        const range = await rangeOf(engine, p.name);
        result.placements.push({ ...base, ...refreshLine(out, range), range });
      } catch (e) {
        const line: PlacementResult = { ...base, range: await rangeOf(engine, p.name), outcome: "not-refreshed", reason: reasonOf(e) };
        result.placements.push(line);
        failures.push({ line, key: p.key, error: e, cells: book.cellsSaved - cells });
      }
    }
    if (!cmd.dryRun) await finish(book, engine, result, failures, true);
    return result;
  } finally {
    book.close();
  }
}

/**
 * --set: each cell written into the workbook before the refresh reads it (nothing is saved until then).
 * A sheet the workbook does not have is the file's error (exit 2), found before any cell is written.
 */
async function applySets(port: XlsxPort, sets: readonly CellSet[]): Promise<string | null> {
  const sheets = await port.sheets();
  const targets = sets.map((s) => ({ s, sheet: sheets.find((x) => x.name.toLowerCase() === s.sheet.toLowerCase()) }));
  const missing = targets.find((t) => !t.sheet);
  if (missing)
    return `--set ${JSON.stringify(missing.s.given)}: the workbook has no sheet “${missing.s.sheet}” (it has ${listed(sheets.map((x) => `“${x.name}”`))}); nothing was written`;
  // The cell keeps its number format (a date stays a date); text is written as text, never a formula.
  for (const { s, sheet } of targets) await port.write({ sheetId: sheet!.id, row: s.row, col: s.col }, [[s.value]], { keepFormats: true });
  return null;
}

/** Every placement's inputs as they are now: a line for each placement with one that cannot be used. */
async function inputProblems(engine: SyncEngine, locals: Awaited<ReturnType<SyncEngine["placements"]>>): Promise<PlacementResult[]> {
  const lines: PlacementResult[] = [];
  for (const p of locals) {
    const problems = (await engine.inputs(p.key)).inputs.flatMap((i) => (i.problem ? [i.problem] : []));
    if (problems.length === 0) continue;
    lines.push({
      range: await rangeOf(engine, p.name),
      reportId: p.reportId,
      reportName: p.reportName,
      outcome: "not-refreshed",
      cellsWritten: 0,
      editedCells: [],
      reason: `${problems.join(" ")} Nothing was written.`,
    });
  }
  return lines;
}

/**
 * --out (issue 32): the copy is a workbook of its own on the platform, never the template's — the workbook an
 * earlier run made at `out` from this template (its id and placement ids: a loop or a schedule refreshes the same
 * copies, adding none), else a new one (forked: its placements connected anew).
 */
async function ownWorkbook(engine: SyncEngine, out: string, signal: AbortSignal): Promise<void> {
  const template = await engine.ctx.port.identity();
  const keys = new Set((await engine.placements()).map((p) => p.key));
  const earlier = await earlierCopy(out, template.workbookId, keys);
  await fork(engine, { signal, ...(earlier ? { as: earlier } : {}) });
}

/** The workbook at `out` when it is an earlier copy of the template: its own id, and its placements' ids by key. */
async function earlierCopy(out: string, templateId: string, keys: ReadonlySet<string>): Promise<EarlierCopy | null> {
  if (!existsSync(out)) return null;
  let port: XlsxPort;
  try {
    port = XlsxPort.open(out);
  } catch {
    return null; // not a workbook Cellbound can read: the copy replaces it
  }
  const { workbookId } = await port.identity();
  const ids = (await loadPlacements(port)).filter((p) => keys.has(p.key) && p.placementId !== null && !p.forkedFrom);
  if (workbookId === templateId || ids.length === 0) return null;
  return { workbookId, placementIds: new Map(ids.map((p) => [p.key, p.placementId!])) };
}

/**
 * The placements in the order Refresh all takes them (issue 32): one whose input cells lie in another
 * placement is refreshed after that one, and reads the values it wrote.
 */
async function producersFirstOf(engine: SyncEngine, locals: readonly LocalPlacement[]): Promise<LocalPlacement[]> {
  if (!locals.some((p) => p.inputs?.length)) return [...locals];
  const byKey = new Map(locals.map((p) => [p.key, p]));
  return producersFirst([...byKey.keys()], await producersOf(engine.ctx.port, locals)).map((k) => byKey.get(k)!);
}

/** Placements the key may not read (DENIED): listed with their owner, never touched. */
async function listDenied(
  engine: SyncEngine,
  locals: Awaited<ReturnType<SyncEngine["placements"]>>,
  result: FileResult,
  run: Run,
  progress: (what: string) => void,
): Promise<{ denied: Set<string | null>; owners: Map<string | null, Owner | null> }> {
  let entries: Awaited<ReturnType<typeof home>>["entries"] = [];
  try {
    entries = (await home(engine, { signal: run.health.signal })).entries;
  } catch (e) {
    // The platform list is not needed to refresh; DENIED placements are then known only locally.
    progress(`placements list unavailable (${messageOf(e)})`);
  }
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
  return {
    denied: new Set(entries.filter((e) => e.access === "DENIED" && e.key).map((e) => e.key)),
    owners: new Map(entries.map((e) => [e.key, e.owner])),
  };
}

function refreshLine(
  out: Awaited<ReturnType<SyncEngine["refresh"]>>,
  /** Where it is ("Sheet1!B2:E22"): rows or columns inserted or deleted inside are named from it (issue 30). */
  range: string | null,
): Omit<PlacementResult, "range" | "reportId" | "reportName"> {
  const none = { cellsWritten: 0, editedCells: [] as string[], reason: null as string | null };
  switch (out.kind) {
    case "refreshed": {
      const st = out.stats;
      const same = st.cellsChanged + st.rowsAdded + st.rowsRemoved + st.cellsCleared === 0;
      return { ...none, outcome: same ? "unchanged" : "refreshed", cellsWritten: st.cellsWritten, reason: out.notices[0] ?? null };
    }
    case "handEdited":
      return {
        ...none,
        outcome: "edited",
        editedCells: out.edits.cells.map((c) => c.address),
        reason:
          out.edits.structure && range
            ? `${handEditsAt(out.edits.structure, out.edits.rows, range.replace(/^.*!/, ""))}: left as it is; --overwrite-edits replaces the edits.`
            : `Edited by hand (${out.edits.ranges.join(", ")}): left as it is; --overwrite-edits replaces the edits.`,
      };
    case "kept":
      return { ...none, outcome: "edited", editedCells: out.edits.cells.map((c) => c.address), reason: "Edits kept." };
    case "cannotGrow":
    case "missing":
      return { ...none, outcome: out.kind === "cannotGrow" ? "edited" : "not-refreshed", reason: out.reason };
  }
}

/**
 * After the operations: the last save (the records' own state), then what the failures left in the file:
 * a write saved and journalled as "written" whose record failed is "unrecorded" — in the file, recorded by
 * the next refresh or status. A failed save is the file's error.
 */
async function finish(book: Workbook, engine: SyncEngine, result: FileResult, failures: Failure[], save: boolean): Promise<void> {
  let lastCells = 0;
  if (save && !book.saveFailed) {
    const before = book.cellsSaved;
    try {
      book.save();
    } catch {
      // book.saveFailed says why
    }
    lastCells = book.cellsSaved - before;
  }
  result.saved = book.saves > 0;
  if (book.saveFailed) {
    const kept = book.saves > 0 ? "what was saved before it is in the file, as listed" : "the file is as it was";
    Object.assign(
      result,
      fileError(result.file, `${book.saveFailed}; ${kept}, and nothing after it was recorded with the platform`, result.placements),
    );
    for (const f of failures) if (f.error instanceof SaveFailed) f.line.reason = `Not written: ${f.error.message}.`;
    return;
  }
  const locals = new Map((await engine.placements()).map((p) => [p.key, p]));
  const unsaved = failures.filter((f) => f.cells === 0).length;
  for (const f of failures) {
    if (locals.get(f.key)?.pending?.phase !== "written") continue;
    f.line.outcome = "unrecorded";
    f.line.cellsWritten = f.cells || (unsaved === 1 ? lastCells : 0);
    f.line.reason = `Written to the file, not yet recorded with the platform (${reasonOf(f.error)}); the next refresh or status records it.`;
  }
}

// ---------------------------------------------------------------- place

export async function placeInto(cmd: Extract<Command, { kind: "place" }>, run: Run): Promise<FileResult> {
  let at: ReturnType<typeof parseAddress>;
  try {
    at = parseAddress(cmd.at);
  } catch (e) {
    const blank = /^empty sheet name/.test((e as Error).message);
    const why = blank
      ? sheetNameRefused(cmd.at, "", sheetNameProblem("")!)
      : `--at ${JSON.stringify(cmd.at)} is not a cell such as "Sheet1!B2"`;
    return { file: cmd.file, error: why, placements: [] };
  }
  const book = await Workbook.open(cmd.file, {
    write: "now",
    create: at.sheet ?? "Sheet1",
    ignoreLock: run.ignoreLock,
    signal: run.health.signal,
  });
  if (book instanceof FileProblem) return fileError(cmd.file, book.cause);
  try {
    return await placeIn(book, cmd, at, run);
  } finally {
    book.close();
  }
}

async function placeIn(
  book: Workbook,
  cmd: Extract<Command, { kind: "place" }>,
  at: ReturnType<typeof parseAddress>,
  run: Run,
): Promise<FileResult> {
  const result: FileResult = { file: cmd.file, placements: [] };
  const sheets = await book.port.sheets();
  const named = at.sheet?.toLowerCase();
  const found = named === undefined ? sheets[0] : book.existed ? sheets.find((x) => x.name.toLowerCase() === named) : undefined;
  if (!found && at.sheet !== null) {
    // The sheet would be added (or the new workbook named after it): only under a name Excel accepts.
    const problem = sheetNameProblem(at.sheet);
    if (problem) return { file: cmd.file, error: sheetNameRefused(cmd.at, at.sheet, problem), placements: [] };
  }
  const report = await findReport(cmd, run.session, result);
  if (!report) return result;
  const sheet = found ?? (book.existed ? book.port.wb.addSheet(at.sheet!) : sheets[0]!);
  const engine = engineFor(book.port, run.session, book.recording(run.session.platform));
  const base = { reportId: report.id, reportName: report.name, cellsWritten: 0, editedCells: [] as string[] };
  const failures: Failure[] = [];
  const before = new Set((await engine.placements()).map((p) => p.key));
  const cells = book.cellsSaved;
  try {
    const out = await engine.place(report, placeOptions(cmd, { sheetId: sheet.id, row: at.row, col: at.col }, run.health.signal));
    if (out.kind !== "placed") {
      result.placements.push({ ...base, ...notPlaced(out, sheet.name) });
      return result;
    }
    const cellsWritten = out.stats?.cells ?? 0;
    result.placements.push({ ...base, range: onSheet(sheet.name, out.range), outcome: "placed", cellsWritten, reason: null });
  } catch (e) {
    const line: PlacementResult = { ...base, range: null, outcome: "not-refreshed", reason: reasonOf(e) };
    result.placements.push(line);
    // Written before it failed: the new placement's record is in the model (and in the file when it was saved).
    const added = (await engine.placements()).find((p) => !before.has(p.key));
    if (added) line.range = await rangeOf(engine, added.name);
    failures.push({ line, key: added?.key ?? "", error: e, cells: book.cellsSaved - cells });
  }
  // Nothing is saved for a placement that never reached its record: the file stays as it was.
  await finish(book, engine, result, failures, book.records > 0);
  return result;
}

/** The engine's options for `place` from the command line: where, its --input bindings, --as-table (issue 33). */
export function placeOptions(
  cmd: Extract<Command, { kind: "place" }>,
  at: { sheetId: string; row: number; col: number },
  signal: AbortSignal,
): PlaceOptions {
  return {
    at,
    ...(cmd.inputs.length > 0 ? { inputs: cmd.inputs } : {}),
    ...(cmd.asTable ? { asTable: true } : {}),
    signal,
  };
}

async function findReport(cmd: Extract<Command, { kind: "place" }>, s: Session, result: FileResult): Promise<Report | null> {
  const asked = `report ${cmd.report}`;
  try {
    for await (const r of s.platform.iterateReports(s.deployment.id))
      if (String(r.id) === cmd.report || r.publicId === cmd.report) return r;
  } catch (e) {
    result.placements.push({ ...failed(reasonOf(e)), asked });
    return null;
  }
  result.placements.push({ ...failed(`No report ${cmd.report} in deployment ${s.deployment.name} that this key can read.`), asked });
  return null;
}

function notPlaced(
  out: Exclude<Awaited<ReturnType<SyncEngine["place"]>>, { kind: "placed" }>,
  sheetName: string,
): Pick<PlacementResult, "range" | "outcome" | "editedCells" | "reason"> {
  const target = onSheet(sheetName, out.target);
  if (out.kind === "wouldOverwrite")
    return {
      range: target,
      outcome: "edited",
      editedCells: out.addresses,
      reason: `The target holds ${out.count} value${out.count === 1 ? "" : "s"} that are not this placement's; nothing was written. Choose another cell or clear them.`,
    };
  // The pane's words (store.ts: "There is a report in the way").
  return {
    range: target,
    outcome: "edited",
    editedCells: [],
    reason: `Placing it at ${target} would overlap ${listed(out.placements.map(quotedWhere))}; nothing was written. Select an empty cell away from other reports and place it again.`,
  };
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

function sheetNameRefused(at: string, name: string, problem: string): string {
  return `--at ${JSON.stringify(at)}: Excel does not allow the sheet name “${name}”: ${problem}. Nothing was written.`;
}

function failed(reason: string): PlacementResult {
  return { range: null, reportId: null, reportName: null, outcome: "not-refreshed", cellsWritten: 0, editedCells: [], reason };
}

// ---------------------------------------------------------------- status

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
  /** The filters bound to cells of the workbook (issue 32), with the values they hold now. */
  inputs: StatusInput[];
  /** The input values differ from those of the last refresh. */
  inputsChanged: boolean;
  /** Placed as an Excel table (issue 33): the table's name; null for a range. */
  table: string | null;
}

export interface StatusInput {
  member: string;
  title: string;
  /** Where its cells are now, e.g. "Inputs!B1:B2". */
  where: string;
  values: string[];
  /** Why the value cannot be used now (names the cell), else null. */
  problem: string | null;
}

export interface StatusResult {
  file: string;
  error?: string;
  cause?: string;
  notTried?: string;
  workbookName?: string;
  /** The platform refused the workbook's list (over its limits): what to do; the placements are the workbook's own. */
  platformProblem?: string;
  placements: StatusLine[];
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

/**
 * Every placement and its state, as the pane's check finds it. Like the pane, it records what the file
 * already holds — a write that landed but was not recorded, a placement moved in Excel — saving the file
 * first (under the lock, only then taken); nothing else is written.
 */
export async function statusOf(given: string, run: Run): Promise<StatusResult> {
  const book = await Workbook.open(given, { write: "later", ignoreLock: run.ignoreLock, signal: run.health.signal });
  if (book instanceof FileProblem) return fileError<StatusLine>(given, book.cause);
  try {
    const s = run.session;
    const engine = engineFor(book.port, s, book.recording(checkOnly(s.platform)));
    // The check first, then the list (the pane's order): a record the check finished reads as such.
    const { checked, data } = await homeCheck(engine, { signal: run.health.signal });
    if (book.records > 0 && !book.saveFailed) {
      try {
        book.save(); // the records' own state
      } catch {
        // the next run records them again
      }
    }
    const byKey = new Map(checked.placements.map((c) => [c.key, c]));
    const records = await engine.placements();
    const inputs = await inputsByKey(engine, records);
    const tables = new Map(records.flatMap((p) => (p.table ? [[p.key, p.table.name] as const] : [])));
    const placements = data.entries.map((e): StatusLine => {
      const checkedOne = e.key ? byKey.get(e.key) : undefined;
      // A record the check just finished: the platform's state is the list's, read after it.
      const c = checkedOne?.edit === "interrupted-finished" ? { ...checkedOne, syncStatus: e.syncStatus } : checkedOne;
      const bound = e.key ? inputs.get(e.key) : undefined;
      // Its input cells hold other values than it shows, or one cannot be used: the pane's "Out of date" and words.
      const st = placementStatus({ ...factsOf(e, c, s.usable), inputs: bound ? inputFacts(bound) : null });
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
        inputs: bound?.inputs ?? [],
        inputsChanged: bound?.changed ?? false,
        table: (e.key ? tables.get(e.key) : undefined) ?? null,
      };
    });
    return {
      file: given,
      workbookName: data.workbookName,
      ...(data.platformProblem ? { platformProblem: data.platformProblem } : {}),
      placements,
    };
  } finally {
    book.close();
  }
}

/** Each placement of the workbook's inputs and whether they changed since its last refresh. */
interface BoundInputs {
  inputs: StatusInput[];
  changed: boolean;
  autoRefresh: boolean;
}

async function inputsByKey(engine: SyncEngine, records: readonly LocalPlacement[]): Promise<Map<string, BoundInputs>> {
  const out = new Map<string, BoundInputs>();
  for (const p of records) {
    const { inputs, changed, autoRefresh } = await engine.inputs(p.key);
    const list = inputs.map(({ member, title, where, values, problem }) => ({ member, title, where, values, problem }));
    if (list.length > 0) out.set(p.key, { inputs: list, changed, autoRefresh });
  }
  return out;
}

/** What the status rule knows of a placement's inputs (src/sync/status.ts): changed, the first problem. */
function inputFacts(b: BoundInputs): { changed: boolean; problem: string | null; autoRefresh: boolean } {
  return { changed: b.changed, problem: b.inputs.find((i) => i.problem)?.problem ?? null, autoRefresh: b.autoRefresh };
}

/**
 * How a placement's report is named in text: its name, else its id, else what was asked for; a report
 * you cannot open and know nothing of is "a report you cannot open (owner …)" (the pane: "Report you cannot open").
 */
export function reportLabel(
  p: { reportName: string | null; reportId: number | null; owner?: string | null; asked?: string },
  withId: boolean,
): string {
  if (p.reportName) return withId && p.reportId !== null ? `${p.reportName} (#${p.reportId})` : p.reportName;
  if (p.reportId !== null) return `report #${p.reportId}`;
  if (p.asked) return p.asked;
  return `a report you cannot open${p.owner ? ` (owner ${p.owner})` : ""}`;
}

export { ownerOf };
