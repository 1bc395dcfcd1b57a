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
import type { Area, Command, CommitOptions, CommitStats, SheetPort, SheetValue, Snapshot, SnapshotRequest } from "./port.ts";

type Basic = Omit<SheetPort, "snapshot" | "commit">;

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
    }
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
  };
}

export async function commitVia(port: Basic, commands: readonly Command[], o: CommitOptions = {}): Promise<CommitStats> {
  const stats: CommitStats = { syncs: 0, maxSyncBytes: 0, bytes: 0, cellsWritten: 0 };
  if (commands.length === 0) return stats;
  validateCommands(commands);
  o.signal?.throwIfAborted();
  const expected = new Map<string, { value: unknown }>();
  for (const c of commands) {
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
    await applyCommand(port, c, o.signal);
    if (c.kind === "write") stats.cellsWritten += c.grid.length * (c.grid[0]?.length ?? 0);
  }
  stats.syncs = 1;
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
  }
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
