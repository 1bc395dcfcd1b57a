// What the harness page needs from a simulated workbook: the "user side" of dev/excel, seen as a
// person at the keyboard would see it (tabs, cells, selection, row/column edits, Save as copy).
// dev-excel-book.ts implements it over dev/excel; the grid and toolbar only know this interface.

export type CellShown = string | number | boolean;

export interface BookSheet {
  id: string;
  name: string;
}

export interface BookSelection {
  sheetId: string;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

/** An Excel table as the grid draws it: where it is (header row included), its built-in style, filter buttons. */
export interface BookTable {
  name: string;
  row: number;
  col: number;
  rows: number;
  cols: number;
  style: string;
  showHeaders: boolean;
  showFilterButton: boolean;
}

/** A chart as the harness draws it: its type, its series' values now, and its place in points. */
export interface BookChart {
  name: string;
  chartType: string;
  left: number;
  top: number;
  width: number;
  height: number;
  categories: string[];
  series: Array<{ name: string; values: number[] }>;
}

export interface HarnessBook {
  sheets(): BookSheet[];
  /** Pictures on a sheet (Excel shapes), in points from the sheet's top-left; absent where not modelled. */
  pictures?(sheetId: string): Array<{ name: string; left: number; top: number; width: number; height: number; src: string }>;
  /** Hear about pictures changing; returns unsubscribe. */
  onPictures?(listener: () => void): () => void;
  /** Excel tables on a sheet (their header row included), for the grid to style; absent where not modelled. */
  tables?(sheetId: string): BookTable[];
  /** Charts on a sheet, with their series' current values and where they sit (points); absent where not modelled. */
  charts?(sheetId: string): BookChart[];
  /** Insert › Chart: a clustered column chart of the selected cells, as Excel lays out its series. */
  insertChart?(sel: BookSelection): Promise<void>;
  activeSheetId(): string;
  activate(sheetId: string): void;
  /** The value shown in a cell ("" when empty). */
  value(sheetId: string, row: number, col: number): CellShown;
  /** Number format of a cell ("General" when none), to display dates and text as Excel would. */
  numberFormat(sheetId: string, row: number, col: number): string;
  /** Bold and fill of a cell (header styling). */
  cellStyle(sheetId: string, row: number, col: number): { bold: boolean; fill: string | null };
  /** The user picks a number format for the selected cells (Home › Number Format in Excel). */
  setNumberFormat(sel: BookSelection, format: string): void;
  /** Rows frozen at the top of a sheet (0 when none). */
  frozenRows(sheetId: string): number;
  /** Rows × columns that hold anything (at least 1 × 1). */
  usedSize(sheetId: string): { rows: number; cols: number };
  /** Type into a cell as the user (Excel converts the text as it would for a person). */
  typeInto(sheetId: string, row: number, col: number, text: string): void;
  selection(): BookSelection;
  select(sel: BookSelection): void;
  insertRows(sheetId: string, at: number, count: number): void;
  deleteRows(sheetId: string, at: number, count: number): void;
  insertColumns(sheetId: string, at: number, count: number): void;
  deleteColumns(sheetId: string, at: number, count: number): void;
  renameSheet(sheetId: string, name: string): void;
  addSheet(name: string): BookSheet;
  /** "Save as copy": same stored workbook id, another document URL. */
  saveAsCopy(): string;
  documentUrl(): string | null;
  /** The workbook's name ("Q3 numbers.xlsx"). */
  fileName?(): string;
  /** The workbook as JSON (what "Save as .xlsx" sends to the harness server). */
  snapshot?(): unknown;
  /** Open another workbook in place of this one (what "Open .xlsx…" gets back); the pane reloads. */
  replaceWith?(snapshot: unknown): void;
  /** Called after any change (user or add-in). Returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** Column letters for a zero-based index: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let n = index + 1;
  let s = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}
