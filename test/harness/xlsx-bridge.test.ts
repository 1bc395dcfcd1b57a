// The harness's "Open .xlsx…" / "Save as .xlsx" conversion (dev/harness/xlsx-bridge.ts): what the pane
// leaves in the simulated workbook (cells, formats, Cellbound's hidden names and custom XML parts)
// reaches the file as the file port reads it, and comes back.
import { ExcelPort } from "../../src/host/excel/index.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { createDevExcel } from "../../dev/excel/index.ts";
import { DevWorkbook } from "../../dev/excel/model.ts";
import { snapshotToXlsx, xlsxToSnapshot } from "../../dev/harness/xlsx-bridge.ts";
import { XlsxError } from "../../src/host/xlsx/errors.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { tempDir } from "../host/xlsx/support.ts";

const tmp = tempDir("cb-bridge-");
afterAll(() => tmp.remove());

function portOn(wb: DevWorkbook): ExcelPort {
  const dx = createDevExcel({ workbook: wb, platform: "OfficeOnline" });
  return new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
}

it("dev/excel → .xlsx → dev/excel keeps cells, formats, tracking names, data and identity", async () => {
  const wb = new DevWorkbook("https://files.example.com/Q3 numbers.xlsx", "Q3 numbers.xlsx");
  const port = portOn(wb);
  const [s] = await port.sheets();
  await port.write(
    { sheetId: s!.id, row: 1, col: 1 },
    [
      ["Region", "Sales", "When"],
      ["North", 12.5, 45000],
    ],
    {
      columnFormats: [null, "#,##0.00", "yyyy-mm-dd"],
    },
  );
  await port.style({ sheetId: s!.id, row: 1, col: 1, rows: 1, cols: 3 }, { bold: true, fill: "#DDEEFF" });
  await port.track("CB_abc", { sheetId: s!.id, row: 1, col: 1, rows: 2, cols: 3 });
  await port.setData("cellbound.test", { n: 1, s: "x<y" });
  const id = await port.identity();
  wb.addSheet("Notes");

  const file = tmp.file("Q3 numbers.xlsx");
  writeFileSync(file, snapshotToXlsx(wb.snapshot()));
  // The file port reads exactly what the Office.js adapter wrote.
  const fp = XlsxPort.open(file);
  expect((await fp.identity()).workbookId).toBe(id.workbookId);
  expect(await fp.getData("cellbound.test")).toEqual({ n: 1, s: "x<y" });
  expect((await fp.tracked()).map((t) => [t.name, t.sheet?.name, t.area && { ...t.area, sheetId: "" }])).toEqual([
    ["CB_abc", "Sheet1", { sheetId: "", row: 1, col: 1, rows: 2, cols: 3 }],
  ]);
  expect(fp.wb.sheets.map((x) => x.name)).toEqual(["Sheet1", "Notes"]);

  // And back: the Office.js adapter on the reopened workbook sees the same.
  const back = DevWorkbook.restore(xlsxToSnapshot(readBytes(file), "Q3 numbers.xlsx"));
  const again = portOn(back);
  expect((await again.identity()).workbookId).toBe(id.workbookId);
  expect((await again.identity()).copied).toBe(false);
  expect(await again.getData("cellbound.test")).toEqual({ n: 1, s: "x<y" });
  const [t] = await again.tracked();
  expect(t).toMatchObject({ name: "CB_abc", area: { row: 1, col: 1, rows: 2, cols: 3 } });
  const style = await again.readStyle({ sheetId: t!.area!.sheetId, row: 1, col: 1, rows: 2, cols: 3 });
  // The adapter gives text cells the text format "@"; it survives the file.
  expect(style.numberFormats[1]).toEqual(["@", "#,##0.00", "yyyy-mm-dd"]);
  const cells: unknown[] = [];
  for await (const b of again.read(t!.area!)) cells.push(...b);
  expect(cells).toEqual([
    ["Region", "Sales", "When"],
    ["North", 12.5, 45000],
  ]);
});

it("a file that is not a workbook is refused with its name and the cause", () => {
  expect(() => xlsxToSnapshot(Buffer.from("hello"), "notes.xlsx")).toThrow(XlsxError);
  expect(() => xlsxToSnapshot(Buffer.from("hello"), "notes.xlsx")).toThrow(/^notes\.xlsx: it is not an \.xlsx/);
});

function readBytes(file: string): Buffer {
  return readFileSync(file);
}
