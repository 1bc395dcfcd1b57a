// The engine's pre-write checks (issue 22): obstacles in a target (item 8: merged cells, a table, a
// protected sheet, a spilled array formula's results, rows hidden by a filter) and the workbook's date system (item 10). Empty merged or protected cells pass the overwrite check (it reads values), and Excel
// then refuses the write halfway — after the journal and the tracking name. Place and refresh call
// `refuseObstacles` once, before anything is written, and stop with a message naming the obstacle.

import { areaA1 } from "../host/a1.ts";
import { isDateFormat } from "../host/number-format.ts";
import type { Area, Obstacle, SheetPort } from "../host/port.ts";
import { NotRefreshed } from "./queue.ts";

/** The target holds something Excel refuses to write over; nothing was written. */
export class TargetObstacle extends NotRefreshed {
  constructor(
    reason: string,
    readonly obstacles: readonly Obstacle[],
  ) {
    super(reason);
    this.name = "TargetObstacle";
  }
}

function describeObstacles(found: readonly Obstacle[], sheetName: string): { what: string; fix: string } {
  const merged = found.filter((o) => o.kind === "merged").map((o) => o.address);
  const tables = found.filter((o) => o.kind === "table").map((o) => o.name ?? "");
  const parts: string[] = [];
  const fixes: string[] = [];
  if (found.some((o) => o.kind === "protected")) {
    parts.push(`the sheet ${sheetName} is protected`);
    fixes.push("unprotect the sheet (Review › Unprotect Sheet)");
  }
  if (merged.length) {
    parts.push(`it holds merged cells (${merged.slice(0, 5).join(", ")}${merged.length > 5 ? ", …" : ""})`);
    fixes.push("unmerge them");
  }
  if (tables.length) {
    parts.push(`it overlaps ${tables.map((t) => `the table ${t}`).join(", ")}`);
    fixes.push("choose cells outside the table");
  }
  // Issue 33: Excel's auto-expansion would take cells written just below or right of a table into it.
  const joins = found.filter((o) => o.kind === "joinsTable");
  if (joins.length) {
    parts.push(
      `it starts just below or beside ${list(joins.map((o) => `the table ${o.name ?? ""} (${sheetName}!${o.address})`))}, which Excel would stretch over the report`,
    );
    fixes.push("leave an empty row or column between them");
  }
  const spills = found.filter((o) => o.kind === "spill").map((o) => o.address);
  if (spills.length) {
    const named = spills.filter((a) => a !== "");
    parts.push(
      named.length
        ? `it overlaps the results of the array formula${named.length > 1 ? "s" : ""} in ${list(named.map((a) => `${sheetName}!${a}`))}, which would show #SPILL!`
        : "it overlaps the results of an array formula (a formula that spills into these cells), which would show #SPILL!",
    );
    fixes.push(named.length ? `move or delete the formula${named.length > 1 ? "s" : ""}` : "move or delete that formula");
  }
  const filters = found.filter((o) => o.kind === "filter").map((o) => o.address);
  if (filters.length) {
    parts.push(`rows of it are hidden by the sheet's filter on ${list(filters.map((a) => `${sheetName}!${a}`))}`);
    fixes.push("clear the filter (Data › Clear) so every row shows");
  }
  return { what: parts.join("; "), fix: fixes.join(", or ") };
}

function list(items: readonly string[]): string {
  return `${items.slice(0, 5).join(", ")}${items.length > 5 ? ", …" : ""}`;
}

/**
 * Throws TargetObstacle when the area holds merged cells, a table, a spilled formula's results, filtered rows, or lies on a
 * protected sheet, or starts just below or beside a table (issue 33). `ownTable`: the placement's own table (issue 33) is none.
 */
export async function refuseObstacles(port: SheetPort, area: Area, sheetName: string, ownTable?: string): Promise<void> {
  if (!port.obstacles) return;
  const own = ownTable?.toLowerCase();
  const found = (await port.obstacles(area)).filter(
    (o) => !(own && (o.kind === "table" || o.kind === "joinsTable") && o.name?.toLowerCase() === own),
  );
  if (!found.length) return;
  const { what, fix } = describeObstacles(found, sheetName);
  throw new TargetObstacle(
    `Cellbound cannot write to ${sheetName}!${areaA1(area)}: ${what}. Nothing was changed; ${fix}, or place the report elsewhere.`,
    found,
  );
}

/**
 * Throws TargetObstacle when the workbook uses the 1904 date system and the report has date columns:
 * Cellbound writes dates as 1900-system serials, which a 1904 workbook shows 1,462 days later. The
 * formats are asked for only then (a refresh lays its cells out lazily).
 */
export async function refuseDateSystem(port: SheetPort, columnFormats: () => ReadonlyArray<string | null>): Promise<void> {
  if (!port.dateSystem || (await port.dateSystem()) !== 1904) return;
  if (!columnFormats().some((f) => f !== null && isDateFormat(f))) return;
  throw new TargetObstacle(
    "This workbook uses the 1904 date system, so the report's dates would show 4 years and 1 day late. Nothing was changed; turn off File › Options › Advanced › “Use 1904 date system” (if no other dates in the workbook rely on it), or place a report without dates.",
    [],
  );
}

/**
 * The engine's one pre-write check (issue 22): obstacles in the target area, then the date system.
 * Place and refresh call it once each, before the journal, the tracking name or any cell.
 */
export async function refuseToWrite(
  port: SheetPort,
  area: Area,
  sheetName: string,
  columnFormats: () => ReadonlyArray<string | null>,
  ownTable?: string,
): Promise<void> {
  await refuseObstacles(port, area, sheetName, ownTable);
  await refuseDateSystem(port, columnFormats);
}
