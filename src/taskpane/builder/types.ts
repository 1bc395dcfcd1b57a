// The builder's own shapes (the query and pivot types it shares with other rooms are in ../types.ts).
import type { SheetValue } from "../../host/port";

export interface PreviewGrid {
  cells: SheetValue[][];
  headerRows: number;
  /** Number format per column, as the sheet will get it (null = General). */
  columnFormats?: (string | null)[];
}
