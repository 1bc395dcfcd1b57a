// Builds the Office.js adapter on a fresh dev/excel workbook, with the contract driver extended by
// dev/excel's user side (typing as the user, saving a copy). Used by the host tests and the benchmark.
import { cellA1 } from "../../src/host/a1.ts";
import type { ContractDriver } from "../../src/host/contract/driver.ts";
import { officeDriver } from "../../src/host/excel/driver.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";
import { createDevExcel, type DevExcel, type DevExcelOptions } from "../../dev/excel/index.ts";

export function adapterOnDevExcel(options: DevExcelOptions = {}): { dx: DevExcel; port: ExcelPort; driver: ContractDriver } {
  const dx = createDevExcel(options);
  const X = dx.Excel as unknown as typeof Excel;
  const port = new ExcelPort({ Excel: X, Office: dx.Office as unknown as typeof Office });
  const driver: ContractDriver = {
    ...officeDriver(X, "Office.js adapter on dev/excel"),
    userEdit: async (sheetId, row, col, text) => dx.workbook.typeInto(sheetId, cellA1(row, col), text),
    saveAsCopy: async (url) => adapterOnDevExcel({ ...options, workbook: dx.workbook.saveAsCopy(url) }).port,
  };
  return { dx, port, driver };
}
