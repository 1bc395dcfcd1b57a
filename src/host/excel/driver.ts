// The contract driver over Office.js: what the contract suite needs beyond the port (scratch sheets,
// inserting/deleting rows and columns, renaming, inspecting formulas and formats), done through the
// Excel API itself. Works in real Excel (the Diagnostics view) and on dev/excel. It cannot type into a
// cell as the user or save a copy; a stand-in adds those (see test/host/dev-excel-driver.ts).

import type { CellInspection, ContractDriver } from "../contract/driver.ts";
import type { SheetValue } from "../port.ts";
import { wrap } from "./errors.ts";

export function officeDriver(X: typeof Excel, label = "Office.js"): ContractDriver {
  const run = <T>(doing: string, batch: (ctx: Excel.RequestContext) => Promise<T>): Promise<T> =>
    X.run(batch).catch((e: unknown) => wrap(e, doing));
  const shift = (doing: string, sheetId: string, make: (ws: Excel.Worksheet) => void) =>
    run(doing, async (ctx) => {
      make(ctx.workbook.worksheets.getItem(sheetId));
      await ctx.sync();
    });
  return {
    label,
    addSheet: (name) =>
      run(`adding sheet ${name}`, async (ctx) => {
        const ws = ctx.workbook.worksheets.add(name);
        ws.load("id,name");
        await ctx.sync();
        return { id: ws.id, name: ws.name };
      }),
    deleteSheet: (id) => shift("deleting a sheet", id, (ws) => ws.delete()),
    renameSheet: (id, name) =>
      shift("renaming a sheet", id, (ws) => {
        ws.name = name;
      }),
    insertRows: (id, at, n) => shift("inserting rows", id, (ws) => void ws.getRangeByIndexes(at, 0, n, 1).getEntireRow().insert("Down")),
    deleteRows: (id, at, n) => shift("deleting rows", id, (ws) => ws.getRangeByIndexes(at, 0, n, 1).getEntireRow().delete("Up")),
    insertColumns: (id, at, n) =>
      shift("inserting columns", id, (ws) => void ws.getRangeByIndexes(0, at, 1, n).getEntireColumn().insert("Right")),
    deleteColumns: (id, at, n) => shift("deleting columns", id, (ws) => ws.getRangeByIndexes(0, at, 1, n).getEntireColumn().delete("Left")),
    defineName: (name, a) =>
      run(`defining the name ${name}`, async (ctx) => {
        ctx.workbook.names.add(name, ctx.workbook.worksheets.getItem(a.sheetId).getRangeByIndexes(a.row, a.col, a.rows, a.cols));
        await ctx.sync();
      }),
    deleteName: (name) =>
      run(`deleting the name ${name}`, async (ctx) => {
        ctx.workbook.names.getItem(name).delete();
        await ctx.sync();
      }),
    inspect: (a) =>
      run("inspecting cells", async (ctx): Promise<CellInspection> => {
        const r = ctx.workbook.worksheets.getItem(a.sheetId).getRangeByIndexes(a.row, a.col, a.rows, a.cols);
        r.load("values,formulas,numberFormat,valueTypes");
        await ctx.sync();
        return {
          values: r.values as SheetValue[][],
          formulas: r.formulas,
          numberFormats: r.numberFormat as string[][],
          valueTypes: r.valueTypes as string[][],
        };
      }),
  };
}
