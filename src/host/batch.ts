// snapshot() and commit() for a port whose single-purpose methods cost nothing (the memory port; a
// file port that holds the workbook in memory): the same contract as the Office.js adapter's batched
// steps, built from the port's own methods. Round trips are counted as a host that batches would
// count them: one commit of anything is one "sync", an empty one none.
import {
  dataToJson,
  PortInputError,
  validateArea,
  validateColumnFormats,
  validateDataKey,
  validateGrid,
  validatePlacement,
  validateStyle,
  validateTrackName,
} from "./validate.ts";
import { sameData } from "./port.ts";
import type {
  Anchor,
  Area,
  Command,
  CommitOptions,
  CommitStats,
  FoundCells,
  Recheck,
  RecheckRequest,
  SheetPort,
  SheetValue,
  Snapshot,
  SnapshotRequest,
  TableColumnEdit,
  TableRead,
} from "./port.ts";

/**
 * What commitVia needs beyond the single-purpose methods: a guarded write's look at its cells and a
 * restore of what it found (ports without formulas read a cell's value as its formula).
 */
export interface KeepsCells {
  /** The non-empty cells of an area (values, formulas, number formats), null when it is empty. */
  cellsIn(area: Area): Promise<FoundCells | null>;
  /** Put cells back as found: values or formulas, and number formats. */
  restoreCells(cells: FoundCells): Promise<void>;
}

type Basic = Omit<SheetPort, "snapshot" | "commit" | "recheck">;

/**
 * Tables (issue 33) on a port whose single-purpose methods cost nothing: what the table commands and
 * Snapshot.tables need. A port without tables omits it (its snapshot has no `tables`; a table command fails).
 */
export interface KeepsTables {
  /** Every table of the workbook. */
  tableList(): TableRead[];
  /** Apply a tableColumns command (port.ts Command). */
  editTableColumns(table: string, edits: readonly TableColumnEdit[]): void;
  /** Apply a table command: create or resize, then re-apply the sort and filter when asked. */
  setTable(table: string, area: Area, create: { style: string } | undefined, reapply: boolean): void;
  /** Apply an untable command: the table goes, its cells stay (none of that name: nothing happens). */
  dropTable(table: string): void;
}

function tablesOf(port: object): KeepsTables | null {
  return "tableList" in port && "setTable" in port ? (port as KeepsTables) : null;
}

/** Every command checked before any is applied: bad input never leaves a half-applied commit. */
export function validateCommands(commands: readonly Command[]): void {
  for (const c of commands) {
    switch (c.kind) {
      case "data":
        validateDataKey(c.key);
        dataToJson(c.key, c.value);
        break;
      case "write": {
        const shape = validateGrid(c.grid);
        validatePlacement(c.at, shape);
        validateColumnFormats(c.options?.columnFormats, shape.cols);
        break;
      }
      case "clear":
        validateArea(c.area);
        break;
      case "style":
        validateArea(c.area);
        validateStyle(c.style, c.area.cols);
        break;
      case "freeze":
        if (!Number.isInteger(c.rows) || c.rows < 0) throw new PortInputError(`cannot freeze ${c.rows} rows`);
        break;
      case "track":
        validateTrackName(c.name);
        validateArea(c.area);
        break;
      case "untrack":
        validateTrackName(c.name);
        break;
      case "restore":
        validateArea(c.cells.area);
        break;
      case "tableColumns":
        validateTableEdits(c.edits);
        break;
      case "table":
        validateArea(c.area);
        if (c.area.rows < 2) throw new PortInputError(`a table needs a header row and a data row, not ${c.area.rows} row(s)`);
        break;
    }
    if ("anchor" in c && c.anchor) {
      validateTrackName(c.anchor.name);
      validateArea(c.anchor.area);
    }
  }
}

function validateTableEdits(edits: readonly TableColumnEdit[]): void {
  for (const e of edits) {
    if (!Number.isInteger(e.index) || e.index < 0) throw new PortInputError(`no table column at index ${e.index}`);
    if (e.op !== "delete" && (typeof e.name !== "string" || e.name.trim() === "" || e.name.length > 255))
      throw new PortInputError(`a table column needs a name of 1 to 255 characters, not ${JSON.stringify(e.name)}`);
  }
}

/** Every data key a port holds (the port lists them: getData has no listing). */
export interface ListsDataKeys {
  dataKeys(): string[];
}

export async function snapshotVia(port: Basic & ListsDataKeys, req: SnapshotRequest = {}): Promise<Snapshot> {
  req.signal?.throwIfAborted();
  const [identity, sheets, tracked] = await Promise.all([port.identity(), port.sheets(), port.tracked()]);
  const data = new Map<string, unknown>();
  for (const key of port.dataKeys()) data.set(key, await port.getData(key));
  const wanted = req.trackedValues;
  const areas: Area[] = [
    ...tracked
      .filter((t) => t.area && (wanted === "all" || (wanted ?? []).some((n) => n.toLowerCase() === t.name.toLowerCase())))
      .map((t) => t.area!),
    ...(req.areas ?? []),
  ];
  const values: Snapshot["values"] = [];
  for (const area of areas) values.push({ area, grid: await readGrid(port, area, req.signal) });
  const frozenRows = new Map<string, number>();
  for (const id of req.frozenRows ?? []) frozenRows.set(id, await port.frozenRows(id));
  const used: Snapshot["used"] = [];
  for (const area of req.usedIn ?? []) used.push({ area, used: await port.usedArea(area) });
  const checks = req.writeChecks && port.obstacles ? port.obstacles.bind(port) : null;
  const obstacles: Snapshot["obstacles"] = [];
  if (checks) for (const area of [...areas, ...(req.usedIn ?? [])]) obstacles.push({ area, found: await checks(area) });
  return {
    identity,
    sheets,
    tracked,
    data,
    values,
    frozenRows,
    ...(req.usedIn ? { used } : {}),
    ...(checks ? { obstacles } : {}),
    ...(req.writeChecks && port.dateSystem ? { dateSystem: await port.dateSystem() } : {}),
    ...(req.tables && tablesOf(port) ? { tables: tablesOf(port)!.tableList() } : {}),
  };
}

export async function commitVia(port: Basic & KeepsCells, commands: readonly Command[], o: CommitOptions = {}): Promise<CommitStats> {
  const stats: CommitStats = { syncs: 0, maxSyncBytes: 0, bytes: 0, cellsWritten: 0 };
  if (commands.length === 0) return stats;
  validateCommands(commands);
  o.signal?.throwIfAborted();
  const expected = new Map<string, { value: unknown }>();
  for (const command of commands) {
    const c = await anchored(port, command);
    // issue 36: a guarded write looks at its cells just before writing; a re-point with `expect`, at its name.
    if (c.kind === "write" && c.guard) {
      const area = writeArea(c);
      const found = await port.cellsIn(area);
      if (!holdsExpected(found, area, c.guard.expect)) (stats.cellConflicts ??= []).push({ area, found });
    }
    if (c.kind === "track" && c.expect) {
      const now = (await port.tracked()).find((t) => t.name.toLowerCase() === c.name.toLowerCase());
      if (now && !sameArea(now.area, c.expect)) (stats.moved ??= []).push({ name: c.name, found: now.area });
    }
    // issue 22 (5): what a guarded data write replaces is compared with what was expected (port.ts Command).
    if (c.kind === "data") {
      const expect = c.ifUnchanged ?? expected.get(c.key);
      if (expect) {
        const found = await port.getData(c.key);
        if (!sameData(found, expect.value)) (stats.conflicts ??= []).push({ key: c.key, found: { value: found } });
        expected.set(c.key, { value: c.value });
      }
    }
    const bytes = commandBytes(c);
    stats.bytes += bytes;
    stats.maxSyncBytes += bytes;
    if (c.kind === "restore") await port.restoreCells(c.cells);
    else if (c.kind === "tableColumns" || c.kind === "table" || c.kind === "untable") applyTableCommand(port, c);
    else await applyCommand(port, c, o.signal);
    if (c.kind === "write") stats.cellsWritten += c.grid.length * (c.grid[0]?.length ?? 0);
  }
  stats.syncs = 1;
  // A sheet renamed since the snapshot the commit was planned on: say so, as the Office.js adapter does.
  if (o.basis) {
    const now = await port.sheets();
    if (now.some((x) => o.basis!.sheets.find((b) => b.id === x.id)?.name !== x.name)) stats.sheets = now;
  }
  return stats;
}

/** Apply one command through the port's single-purpose methods. */
export async function applyCommand(port: Basic, c: Command, signal?: AbortSignal): Promise<void> {
  switch (c.kind) {
    case "data":
      return port.setData(c.key, c.value);
    case "write":
      await port.write(c.at, c.grid, { ...c.options, ...(signal ? { signal } : {}) });
      return;
    case "clear":
      return port.clear(c.area);
    case "style":
      return port.style(c.area, c.style);
    case "freeze":
      return port.freezeRows(c.sheetId, c.rows);
    case "track":
      return port.track(c.name, c.area);
    case "untrack":
      return port.untrack(c.name);
    case "restore":
      throw new PortInputError("restore needs a port that keeps cells"); // commitVia applies it itself
    case "tableColumns":
    case "table":
    case "untable":
      applyTableCommand(port, c);
  }
}

/** A table command through the port's KeepsTables (issue 33); a port without tables fails it. */
function applyTableCommand(port: object, c: Extract<Command, { kind: "tableColumns" | "table" | "untable" }>): void {
  const t = tablesOf(port);
  if (!t) {
    if (c.kind === "untable") return; // no tables: nothing to convert
    throw new PortInputError(`this workbook cannot hold tables (table ${c.table})`);
  }
  if (c.kind === "untable") t.dropTable(c.table);
  else if (c.kind === "tableColumns") t.editTableColumns(c.table, c.edits);
  else t.setTable(c.table, c.area, c.create, c.reapply === true);
}

/** A command placed where its anchor's name is now (the same command when it has no anchor). */
export async function anchored<C extends Command>(port: Basic, c: C): Promise<C> {
  const anchor: Anchor | undefined = "anchor" in c ? c.anchor : undefined;
  if (!anchor) return c;
  const now = (await port.tracked()).find((t) => t.name.toLowerCase() === anchor.name.toLowerCase());
  if (!now?.area) throw new PortInputError(`the placement tracked as ${anchor.name} covers no cells any more`);
  const move = <A extends Pick<Area, "sheetId" | "row" | "col">>(a: A): A => ({
    ...a,
    sheetId: now.area!.sheetId,
    row: a.row - anchor.area.row + now.area!.row,
    col: a.col - anchor.area.col + now.area!.col,
  });
  switch (c.kind) {
    case "write":
      return { ...c, at: move(c.at), anchor: undefined };
    case "clear":
    case "style":
      return { ...c, area: move(c.area), anchor: undefined };
    case "restore":
      return { ...c, cells: { ...c.cells, area: move(c.cells.area) }, anchor: undefined };
    case "table":
      return { ...c, area: move(c.area), anchor: undefined };
    default:
      return c;
  }
}

/** The area a write command covers. */
export function writeArea(c: Extract<Command, { kind: "write" }>): Area {
  return { ...c.at, rows: c.grid.length, cols: c.grid[0]?.length ?? 0 };
}

/** Do the non-empty cells found in `area` hold what the guard expects (and nothing else)? */
export function holdsExpected(found: FoundCells | null, area: Area, expect: ReadonlyArray<ReadonlyArray<SheetValue>> | "empty"): boolean {
  const at = (r: number, c: number): SheetValue => {
    if (!found) return "";
    const fr = r - found.area.row,
      fc = c - found.area.col;
    return found.values[fr]?.[fc] ?? "";
  };
  for (let r = 0; r < area.rows; r++)
    for (let c = 0; c < area.cols; c++) {
      const want = expect === "empty" ? "" : (expect[r]?.[c] ?? "");
      const have = at(area.row + r, area.col + c);
      if (!(Object.is(want, have) || (want === 0 && have === 0))) return false;
    }
  return true;
}

function sameArea(a: Area | null, b: Area): boolean {
  return a !== null && a.sheetId === b.sheetId && a.row === b.row && a.col === b.col && a.rows === b.rows && a.cols === b.cols;
}

/** recheck() for a port whose single-purpose methods cost nothing: sheets, tracking and the areas' values. */
export async function recheckVia(port: Basic, req: RecheckRequest = {}): Promise<Recheck> {
  req.signal?.throwIfAborted();
  const [sheets, tracked] = await Promise.all([port.sheets(), port.tracked()]);
  const values: Recheck["values"] = [];
  for (const area of req.areas ?? []) {
    const formats: string[][] = [];
    const grid: SheetValue[][] = [];
    for await (const block of port.read(area, {
      ...(req.numberFormats ? { numberFormats: (f: string[][]) => formats.push(...f) } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    }))
      grid.push(...block);
    values.push({ area, grid, numberFormats: req.numberFormats ? formats : null });
  }
  return { sheets, tracked, values };
}

/** Estimated request bytes of a command (the values and formats as JSON). */
export function commandBytes(c: Command): number {
  switch (c.kind) {
    case "data":
      return (JSON.stringify(c.value) ?? "").length + 64;
    case "write": {
      let n = 64;
      for (const row of c.grid) n += 2 * (JSON.stringify(row).length + 1);
      return n;
    }
    default:
      return 128;
  }
}

async function readGrid(port: Basic, area: Area, signal?: AbortSignal): Promise<SheetValue[][]> {
  const out: SheetValue[][] = [];
  for await (const block of port.read(area, signal ? { signal } : {})) out.push(...block);
  return out;
}
