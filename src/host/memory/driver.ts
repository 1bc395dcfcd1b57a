// The contract driver for the in-memory port: the "user side" of MemoryWorkbook.

import type { ContractDriver } from "../contract/driver.ts";
import { MemoryPort, type MemoryWorkbook } from "./index.ts";

export function memoryDriver(wb: MemoryWorkbook): ContractDriver {
  return {
    label: "memory",
    addSheet: async (name) => wb.addSheet(name),
    deleteSheet: async (id) => wb.deleteSheet(id),
    renameSheet: async (id, name) => wb.renameSheet(id, name),
    insertRows: async (id, at, n) => wb.insertRows(id, at, n),
    deleteRows: async (id, at, n) => wb.deleteRows(id, at, n),
    insertColumns: async (id, at, n) => wb.insertColumns(id, at, n),
    deleteColumns: async (id, at, n) => wb.deleteColumns(id, at, n),
    inspect: async (a) => {
      const cells = Array.from({ length: a.rows }, (_, r) =>
        Array.from({ length: a.cols }, (_, c) => wb.cell(a.sheetId, a.row + r, a.col + c)),
      );
      return {
        values: cells.map((row) => row.map((x) => x.value)),
        formulas: cells.map((row) => row.map((x) => x.value)),
        numberFormats: cells.map((row) => row.map((x) => x.numberFormat)),
        valueTypes: cells.map((row) =>
          row.map((x) =>
            x.value === "" ? "Empty" : typeof x.value === "string" ? "String" : typeof x.value === "number" ? "Double" : "Boolean",
          ),
        ),
      };
    },
    userEdit: async (id, r, c, text) => wb.userEdit(id, r, c, text),
    defineName: async (name, area) => wb.defineName(name, area),
    deleteName: async (name) => wb.deleteName(name),
    saveAsCopy: async (url) => new MemoryPort(wb.saveAsCopy(url)),
  };
}
