// HarnessBook over dev/excel's DevWorkbook: the user side (typing, row/column edits, tabs, selection,
// Save as copy) goes through DevWorkbook's user API, so the add-in hears the same events it would in
// Excel. "Save as copy" opens the copy in place of the original, as Excel does; the pane reloads.
// Tables and charts are read from dev/excel's model for the grid to draw; Insert › Chart goes through
// dev/excel's own charts.add, as Excel's command lays out a chart's series.
import { cellA1, areaA1 } from "../../src/host/a1.ts";
import type { ModelChart } from "../excel/charts.ts";
import { createDevExcel, type DevContext } from "../excel/index.ts";
import { cellValue, DevWorkbook, type ModelSheet } from "../excel/model.ts";
import { COLUMN_WIDTH_PT, onShapesChanged, ROW_HEIGHT_PT, sheetShapes } from "../excel/shapes.ts";
import type { BookChart, BookSelection, BookSheet, BookTable, CellShown, HarnessBook } from "./book.ts";
import { saveSnapshot } from "./xlsx-snapshot.ts";

export class DevExcelBook implements HarnessBook {
  pictures(sheetId: string) {
    const s = this.wb.sheetById(sheetId);
    return (s ? sheetShapes(s) : []).map((p) => ({
      name: p.name,
      left: p.left,
      top: p.top,
      width: p.width,
      height: p.height,
      src: `data:image/${p.format.toLowerCase()};base64,${p.base64}`,
    }));
  }
  onPictures(listener: () => void): () => void {
    return onShapesChanged(this.wb, listener);
  }
  tables(sheetId: string): BookTable[] {
    return (this.wb.sheetById(sheetId)?.tables ?? []).map((t) => ({
      name: t.name,
      ...t.rect,
      style: t.style,
      showHeaders: t.showHeaders,
      showFilterButton: t.showFilterButton,
    }));
  }
  charts(sheetId: string): BookChart[] {
    const s = this.wb.sheetById(sheetId);
    if (!s) return [];
    return (s.charts ?? []).map((c) => {
      const first = c.series[0];
      const read = (r: { row: number; col: number; rows: number; cols: number }) => {
        const out: CellShown[] = [];
        for (let i = 0; i < r.rows; i++) for (let k = 0; k < r.cols; k++) out.push(cellValue(this.wb.cell(s, r.row + i, r.col + k)));
        return out;
      };
      const points = first ? first.values.rows * first.values.cols : 0;
      return {
        name: c.name,
        chartType: c.chartType,
        ...this.chartPlace(s, c),
        categories: first?.categories ? read(first.categories).map(String) : Array.from({ length: points }, (_, i) => String(i + 1)),
        // Excel plots text and blanks as zero.
        series: c.series.map((x) => ({ name: x.name, values: read(x.values).map((v) => (typeof v === "number" ? v : 0)) })),
      };
    });
  }
  /**
   * Where a chart sits (points). dev/excel keeps no chart geometry, so the harness places each chart the
   * first time it sees it: beside the sheet's used columns (one column between), from `row`, 4 × 12 cells.
   */
  private chartPlace(s: ModelSheet, c: ModelChart, row = 0) {
    let at = this.places.get(c);
    if (!at) {
      const used = this.usedSize(s.id);
      at = { left: (used.cols + 1) * COLUMN_WIDTH_PT, top: row * ROW_HEIGHT_PT, width: 4 * COLUMN_WIDTH_PT, height: 12 * ROW_HEIGHT_PT };
      this.places.set(c, at);
    }
    return at;
  }
  private readonly places = new WeakMap<ModelChart, { left: number; top: number; width: number; height: number }>();
  async insertChart(sel: BookSelection): Promise<void> {
    const { Excel } = createDevExcel({ workbook: this.wb });
    const sheet = this.wb.sheetById(sel.sheetId);
    if (!sheet) return;
    await Excel.run(async (ctx: DevContext) => {
      const ws = ctx.workbook.worksheets.getItem(sel.sheetId);
      ws.charts.add("ColumnClustered", ws.getRange(areaA1(sel)), "Auto");
      await ctx.sync();
    });
    const made = sheet.charts?.at(-1);
    if (made) this.chartPlace(sheet, made, sel.row);
    this.changed(); // Excel raises no onChanged for a chart: only the sheet redraws
  }
  private readonly listeners = new Set<() => void>();
  private unsubscribe: () => void = () => undefined;
  private usedCache = new Map<string, { rows: number; cols: number }>();
  private copies = 0;

  constructor(
    public wb: DevWorkbook,
    /** Called when Save as copy replaced the workbook (the pane must reload on the new one). */
    private readonly onReplaced: (wb: DevWorkbook) => void = () => undefined,
  ) {
    this.attach();
  }

  private attach(): void {
    this.unsubscribe();
    const off = this.wb.subscribe(() => this.changed());
    // dev/excel's Range.select() (the add-in's Locate) changes the selection without an event, so the
    // page also watches the selection itself.
    let last = this.selectionKey();
    const timer = setInterval(() => {
      const now = this.selectionKey();
      if (now !== last) {
        last = now;
        this.changed();
      }
    }, 100);
    this.unsubscribe = () => {
      off();
      clearInterval(timer);
    };
  }

  private selectionKey(): string {
    const s = this.wb.selection;
    // …and the charts' count: the add-in's charts.add raises no event either.
    const charts = this.wb.sheets.reduce((n, x) => n + (x.charts?.length ?? 0), 0);
    return `${this.wb.activeSheetId}|${s.row}|${s.col}|${s.rows}|${s.cols}|${charts}`;
  }

  private changed(): void {
    this.usedCache.clear();
    for (const l of this.listeners) l();
  }

  sheets(): BookSheet[] {
    return this.wb.sheets.filter((s) => s.visibility === "Visible").map((s) => ({ id: s.id, name: s.name }));
  }
  activeSheetId(): string {
    return this.wb.sheetById(this.wb.activeSheetId)?.id ?? this.wb.sheets[0]!.id;
  }
  activate(sheetId: string): void {
    this.wb.select(sheetId, "A1");
  }
  value(sheetId: string, row: number, col: number): CellShown {
    const s = this.wb.sheetById(sheetId);
    return s ? cellValue(this.wb.cell(s, row, col)) : "";
  }
  numberFormat(sheetId: string, row: number, col: number): string {
    const s = this.wb.sheetById(sheetId);
    return (s && this.wb.cell(s, row, col)?.nf) ?? "General";
  }
  cellStyle(sheetId: string, row: number, col: number): { bold: boolean; fill: string | null } {
    const s = this.wb.sheetById(sheetId);
    const c = s ? this.wb.cell(s, row, col) : undefined;
    return { bold: c?.b === true, fill: c?.fill ?? null };
  }
  setNumberFormat(sel: BookSelection, format: string): void {
    this.wb.setNumberFormat(sel.sheetId, areaA1(sel), format);
    this.changed(); // Excel raises no onChanged for a format: only the grid redraws
  }
  frozenRows(sheetId: string): number {
    return this.wb.sheetById(sheetId)?.frozenRows ?? 0;
  }
  usedSize(sheetId: string): { rows: number; cols: number } {
    let used = this.usedCache.get(sheetId);
    if (!used) {
      const s = this.wb.sheetById(sheetId);
      let cols = 1;
      for (const r of s?.rows ?? []) if (r && r.length > cols) cols = r.length;
      used = { rows: Math.max(1, s?.rows.length ?? 1), cols };
      this.usedCache.set(sheetId, used);
    }
    return used;
  }
  typeInto(sheetId: string, row: number, col: number, text: string): void {
    this.wb.typeInto(sheetId, cellA1(row, col), text);
  }
  selection(): BookSelection {
    return { sheetId: this.activeSheetId(), ...this.wb.selection };
  }
  select(sel: BookSelection): void {
    this.wb.select(sel.sheetId, areaA1(sel));
  }
  insertRows(sheetId: string, at: number, count: number): void {
    this.wb.insertRows(sheetId, at, count);
  }
  deleteRows(sheetId: string, at: number, count: number): void {
    this.wb.deleteRows(sheetId, at, count);
  }
  insertColumns(sheetId: string, at: number, count: number): void {
    this.wb.insertColumns(sheetId, at, count);
  }
  deleteColumns(sheetId: string, at: number, count: number): void {
    this.wb.deleteColumns(sheetId, at, count);
  }
  renameSheet(sheetId: string, name: string): void {
    this.wb.renameSheet(sheetId, name);
  }
  addSheet(name: string): BookSheet {
    return this.wb.addSheet(name);
  }
  saveAsCopy(): string {
    const base = (this.wb.url ?? "https://files.example.com/Book1.xlsx").replace(/( \(copy \d+\))?\.xlsx$/, "");
    const url = `${base} (copy ${++this.copies}).xlsx`;
    this.wb = this.wb.saveAsCopy(url);
    this.attach();
    this.onReplaced(this.wb);
    this.changed();
    return url;
  }
  documentUrl(): string | null {
    return this.wb.url;
  }
  fileName(): string {
    return this.wb.name;
  }
  snapshot(): unknown {
    return saveSnapshot(this.wb); // with its pictures (Save as .xlsx)
  }
  replaceWith(snapshot: unknown): void {
    this.wb = DevWorkbook.restore(snapshot);
    this.attach();
    this.onReplaced(this.wb);
    this.changed();
  }
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
