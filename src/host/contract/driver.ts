// What the contract suite needs beyond the port: a scratch sheet to work on, and the actions a
// person (or Excel itself) performs that the port never does — inserting rows, renaming a sheet,
// typing into a cell. Each port implementation comes with a driver:
//   - memory port:     memoryDriver (src/host/memory/driver.ts)
//   - Office.js port:  officeDriver (src/host/excel/driver.ts), optionally extended by dev/excel's user side.
// Optional members are capabilities only a stand-in has; checks that need them report "skip"
// with the reason (in vitest both stand-ins have them all, so nothing is skipped there).

import type { Area, SheetPort, SheetRef, SheetValue } from "../port.ts";

/** What Excel says a cell holds: "Empty" | "String" | "Double" | "Boolean" | "Error" | … */
export type CellValueType = string;

export interface CellInspection {
  values: SheetValue[][];
  /** Range.formulas: the formula ("=…") of a formula cell, otherwise what the cell holds. */
  formulas: Array<Array<string | number | boolean>>;
  numberFormats: string[][];
  valueTypes: CellValueType[][];
}

export interface ContractDriver {
  /** Shown in the report, e.g. "memory" or "Office.js on dev/excel". */
  label: string;
  addSheet(name: string): Promise<SheetRef>;
  deleteSheet(sheetId: string): Promise<void>;
  renameSheet(sheetId: string, name: string): Promise<void>;
  insertRows(sheetId: string, at: number, count: number): Promise<void>;
  deleteRows(sheetId: string, at: number, count: number): Promise<void>;
  insertColumns(sheetId: string, at: number, count: number): Promise<void>;
  deleteColumns(sheetId: string, at: number, count: number): Promise<void>;
  inspect(area: Area): Promise<CellInspection>;
  /** Type into a cell as the user does (stand-ins only: real Excel cannot be typed into from code). */
  userEdit?(sheetId: string, row: number, col: number, text: string): Promise<void>;
  /** Define a workbook-scoped name for an area, as a person does (Formulas › Define Name). */
  defineName?(name: string, area: Area): Promise<void>;
  /** Delete a workbook-scoped name (Name Manager › Delete). */
  deleteName?(name: string): Promise<void>;
  /** Save the workbook as a copy under another URL and return a port on the copy (stand-ins only). */
  saveAsCopy?(url: string): Promise<SheetPort>;
}

/** A cell holds a formula when Range.formulas starts with "=" and differs from the value it shows. */
export function holdsFormula(formula: string | number | boolean, value: SheetValue): boolean {
  return typeof formula === "string" && formula.startsWith("=") && formula !== value;
}
