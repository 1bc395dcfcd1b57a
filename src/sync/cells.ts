// The one door from layout to the checksum's canonical cell model: every value the engine
// writes goes through toCell, and every column gets the number format its type needs.
import type { SheetValue } from "../host/port.ts";
import type { ColumnType, RawValue } from "../checksum/types.ts";
import { columnNumberFormat, toCell } from "../checksum/cell.ts";

export function cellFor(value: RawValue, type: ColumnType, timezone?: string): SheetValue {
  return toCell(value, type, timezone ? { timezone } : {});
}

export function formatFor(type: ColumnType, granularity?: string): string | null {
  return columnNumberFormat(type, granularity);
}
