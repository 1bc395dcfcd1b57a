// HarnessBook over dev/excel's DevWorkbook: the user side (typing, row/column edits, tabs, selection,
// Save as copy) goes through DevWorkbook's user API, so the add-in hears the same events it would in
// Excel. "Save as copy" opens the copy in place of the original, as Excel does; the pane reloads.
import { cellA1, areaA1 } from "../../src/host/a1.ts";
import { cellValue, DevWorkbook } from "../excel/model.ts";
import { onShapesChanged, sheetShapes } from "../excel/shapes.ts";
import type { BookSelection, BookSheet, CellShown, HarnessBook } from "./book.ts";
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
    return `${this.wb.activeSheetId}|${s.row}|${s.col}|${s.rows}|${s.cols}`;
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
