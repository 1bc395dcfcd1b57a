// The Office.js adapter survives the sharp edges of real Excel listed in issue 22, observed on dev/excel
// (which models them: test/excel/sharp-edges.test.ts).
import { createDevExcel, DevExcelFaults, sheetShapes } from "../../dev/excel/index.ts";
import { ExcelPort, TRACK_PREFIX } from "../../src/host/excel/index.ts";
import { textWidthPoints } from "../../src/host/column-width.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

const sheet1 = (dx: ReturnType<typeof adapterOnDevExcel>["dx"]) => dx.workbook.sheets[0]!.id;

describe("adapter: numbers into text-formatted cells", () => {
  it("a refresh (keepFormats) writing a number where text was reads back a number, and keeps the user's other formats", async () => {
    const { dx, port } = adapterOnDevExcel();
    const at = { sheetId: sheet1(dx), row: 0, col: 0 };
    await port.write(at, [["#N/A", "x", 1]], { columnFormats: [null, null, "0.00"] });
    dx.workbook.setNumberFormat(sheet1(dx), "C1", "0.000"); // the user's choice
    await port.write(at, [[12.5, true, 3]], { columnFormats: [null, null, "0.00"], keepFormats: true });
    const cells = dx.workbook.inspect(sheet1(dx), "A1:C1");
    expect(cells.values).toEqual([[12.5, true, 3]]);
    expect(cells.valueTypes).toEqual([["Double", "Boolean", "Double"]]);
    expect(cells.numberFormats).toEqual([["General", "General", "0.000"]]);
  });

  it("a text-formatted cell the user chose for a number column falls back to the column's format", async () => {
    const { dx, port } = adapterOnDevExcel();
    const at = { sheetId: sheet1(dx), row: 0, col: 0 };
    dx.workbook.setNumberFormat(sheet1(dx), "A1:A2", "@");
    await port.write(at, [[1], [2]], { columnFormats: ["#,##0.00"], keepFormats: true });
    const cells = dx.workbook.inspect(sheet1(dx), "A1:A2");
    expect(cells.values).toEqual([[1], [2]]);
    expect(cells.numberFormats).toEqual([["#,##0.00"], ["#,##0.00"]]);
  });
});

describe("adapter: the formats read with the values ride with the write (issue 20)", () => {
  it("read({ numberFormats }) brings the cells' formats in the values' own sync", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    await port.write({ sheetId, row: 0, col: 0 }, [[1, "x"]], { columnFormats: ["0.00", null] });
    dx.workbook.resetStats();
    const formats: string[][] = [];
    const values: unknown[][] = [];
    for await (const b of port.read({ sheetId, row: 0, col: 0, rows: 1, cols: 2 }, { numberFormats: (f) => formats.push(...f) }))
      values.push(...b);
    expect(dx.workbook.stats.syncs).toBe(1);
    expect(values).toEqual([[1, "x"]]);
    expect(formats).toEqual([["0.00", "@"]]);
  });

  it('a keepFormats write handed the current formats reads none (one sync) and still puts no number in an "@" cell', async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const at = { sheetId, row: 0, col: 0 };
    await port.write(at, [["a", 1]], { columnFormats: [null, "0.000"] });
    const formats: string[][] = [];
    for await (const _ of port.read({ sheetId, row: 0, col: 0, rows: 1, cols: 2 }, { numberFormats: (f) => formats.push(...f) }));
    expect(formats).toEqual([["@", "0.000"]]);
    dx.workbook.resetStats();
    const stats = await port.write(at, [[7, 2]], { columnFormats: ["#,##0", null], keepFormats: true, currentFormats: formats });
    expect(stats.syncs).toBe(1);
    expect(dx.workbook.stats.syncs).toBe(1);
    const cells = dx.workbook.inspect(sheetId, "A1:B1");
    expect(cells.valueTypes).toEqual([["Double", "Double"]]);
    expect(cells.numberFormats).toEqual([["#,##0", "0.000"]]); // "@" gave way to the column's format; the user's kept
  });

  it("formats of another shape are not trusted: the writer reads them itself (two syncs)", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    dx.workbook.setNumberFormat(sheetId, "A1:A2", "@");
    dx.workbook.resetStats();
    await port.write({ sheetId, row: 0, col: 0 }, [[1], [2]], { keepFormats: true, currentFormats: [["General"]] });
    expect(dx.workbook.stats.syncs).toBe(2);
    expect(dx.workbook.inspect(sheetId, "A1:A2").valueTypes).toEqual([["Double"], ["Double"]]);
  });
});

describe("adapter: cell-edit mode", () => {
  it("a write and a read while the user types in a cell wait for them (delayForCellEdit) instead of failing", async () => {
    const { dx, port } = adapterOnDevExcel();
    const at = { sheetId: sheet1(dx), row: 0, col: 0 };
    dx.workbook.enterCellEdit();
    const settled: string[] = [];
    const write = port.write(at, [[1, "a"]]).then(
      () => settled.push("written"),
      (e: Error) => settled.push(`failed: ${e.message}`),
    );
    const sheets = port.sheets().then(
      () => settled.push("listed"),
      (e: Error) => settled.push(`failed: ${e.message}`),
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(settled).toEqual([]);
    dx.workbook.leaveCellEdit();
    await Promise.all([write, sheets]);
    expect(settled.sort()).toEqual(["listed", "written"]);
    expect(dx.workbook.inspect(sheet1(dx), "A1:B1").values).toEqual([[1, "a"]]);
  });

  it("if Excel still refuses (InvalidOperationInCellEditMode), the error says to finish editing the cell", async () => {
    const { describeError } = await import("../../src/taskpane/errors.ts");
    const { HostError } = await import("../../src/host/excel/index.ts");
    const e = new HostError("InvalidOperationInCellEditMode", "writing 1×1 cells at A1: … (InvalidOperationInCellEditMode)");
    const human = describeError(e);
    expect(human.title).toBe("Waiting for you to finish editing the cell");
    expect(human.next).toMatch(/Enter or Esc/);
  });
});

/** A PNG header (IHDR) of the given size: enough for Excel (and dev/excel) to size it. */
function png(width: number, height: number): string {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52], 0);
  new DataView(b.buffer).setUint32(16, width);
  new DataView(b.buffer).setUint32(20, height);
  return btoa(String.fromCharCode(...b));
}

describe("adapter: a failing sync keeps what came before (no delete-then-add)", () => {
  const cases: Array<[string, number, string]> = [
    ["addImage", 0, "the old picture, unchanged"],
    ["name", 0, "the old picture (and an unnamed new one)"],
    ["delete", 0, "the old picture (and the new one under a temporary name)"],
    ["name", 1, "the new picture under a temporary name, found by the name"],
  ];
  for (const [command, skip, leaves] of cases) {
    it(`replacing a picture: a failure at ${command}${skip ? ` #${skip + 1}` : ""} leaves ${leaves}`, async () => {
      const faults = new DevExcelFaults();
      const { dx, port } = adapterOnDevExcel({ faults });
      const sheet = dx.workbook.sheets[0]!;
      await port.putPicture("Dash A", png(96, 48), { sheetId: sheet.id, row: 3, col: 2 });
      faults.failAtCommand(command, 1, skip);
      await expect(port.putPicture("Dash A", png(192, 48))).rejects.toThrow(/internal error/);
      // The dashboard still finds its picture by name (never "missing").
      expect((await port.pictures(sheet.id)).filter((p) => p.name === "Dash A")).toHaveLength(1);
      // The next replacement succeeds in place and leaves exactly one picture of that name, none pending.
      await port.putPicture("Dash A", png(192, 48));
      const named = sheetShapes(sheet).filter((s) => s.name.startsWith("Dash A"));
      expect(named).toMatchObject([{ name: "Dash A", width: 144, left: 96, top: 45 }]);
    });
  }

  it("re-tracking a placement: a failure leaves the tracking name (old area), never no name", async () => {
    const faults = new DevExcelFaults();
    const { dx, port } = adapterOnDevExcel({ faults });
    const sheetId = sheet1(dx);
    await port.track("p1", { sheetId, row: 1, col: 1, rows: 2, cols: 2 });
    faults.failAtCommand("addName");
    faults.failAtCommand("formula");
    await expect(port.track("p1", { sheetId, row: 1, col: 1, rows: 5, cols: 2 })).rejects.toThrow(/internal error/);
    const t = (await port.tracked()).find((x) => x.name === "p1");
    expect(t?.area).toEqual({ sheetId, row: 1, col: 1, rows: 2, cols: 2 });
    await port.track("p1", { sheetId, row: 1, col: 1, rows: 5, cols: 2 });
    expect((await port.tracked()).find((x) => x.name === "p1")?.area).toEqual({ sheetId, row: 1, col: 1, rows: 5, cols: 2 });
    expect(dx.workbook.names.filter((n) => n.name === TRACK_PREFIX + "p1")).toHaveLength(1);
  });
});

describe("adapter: obstacles in a target", () => {
  it("obstacles() names merged areas, tables and a protected sheet; [] for a plain area", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const area = { sheetId, row: 0, col: 0, rows: 10, cols: 5 };
    expect(await port.obstacles(area)).toEqual([]);
    dx.workbook.mergeCells(sheetId, "B2:C2");
    dx.workbook.addTable(sheetId, "D4:G8", "Orders");
    dx.workbook.protectSheet(sheetId);
    expect(await port.obstacles(area)).toEqual([
      { kind: "protected", address: "" },
      { kind: "merged", address: "B2:C2" },
      { kind: "table", address: "", name: "Orders" },
    ]);
  });

  it("obstacles() names the formula whose spilled results the area overlaps, from outside or inside it", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    dx.workbook.enterArrayFormula(sheetId, "A3", "=SEQUENCE(1,4)", [[1, 2, 3, 4]]); // A3:D3, anchor left of the area
    dx.workbook.enterArrayFormula(sheetId, "C6", "=SEQUENCE(2)", [[1], [2]]); // C6:C7, anchor inside the area
    expect(await port.obstacles({ sheetId, row: 1, col: 1, rows: 8, cols: 4 })).toEqual([
      { kind: "spill", address: "A3" },
      { kind: "spill", address: "C6" },
    ]);
    expect(await port.obstacles({ sheetId, row: 10, col: 0, rows: 5, cols: 5 })).toEqual([]);
  });

  it("obstacles() names the sheet's filter when it hides rows the area overlaps; an unfiltered AutoFilter or hidden rows are none", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const area = { sheetId, row: 0, col: 0, rows: 6, cols: 3 };
    dx.workbook.hideRows(sheetId, 1, 2);
    dx.workbook.filter(sheetId, "B2:C9");
    expect(await port.obstacles(area)).toEqual([]);
    dx.workbook.filter(sheetId, "B2:C9", 0, ["paid"]);
    expect(await port.obstacles(area)).toEqual([{ kind: "filter", address: "B2:C9" }]);
    expect(await port.obstacles({ ...area, col: 5 })).toEqual([]);
  });

  it("the snapshot's write checks read spills and filters in its own syncs; naming a spill's formula takes one more, only then", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const area = { sheetId, row: 0, col: 0, rows: 20, cols: 4 };
    await port.snapshot({}); // the workbook's identity is created once
    const syncs = async () => {
      dx.workbook.resetStats();
      const snap = await port.snapshot({ areas: [area], writeChecks: true });
      return { syncs: dx.workbook.stats.syncs, found: snap.obstacles?.[0]?.found };
    };
    const plain = await syncs();
    expect(plain.found).toEqual([]);
    dx.workbook.filter(sheetId, "A1:B30", 0, ["x"]);
    expect(await syncs()).toEqual({ syncs: plain.syncs, found: [{ kind: "filter", address: "A1:B30" }] });
    dx.workbook.enterArrayFormula(sheetId, "F1", "=SEQUENCE(1,3)", [[1, 2, 3]]); // F1:H1, outside
    expect((await syncs()).syncs).toBe(plain.syncs);
    dx.workbook.enterArrayFormula(sheetId, "D25", "=SEQUENCE(1,2)", [[1, 2]]); // outside
    dx.workbook.enterArrayFormula(sheetId, "C1", "=SEQUENCE(1,3)", [[1, 2, 3]]); // C1:E1, anchor inside the area
    expect(await syncs()).toEqual({
      syncs: plain.syncs + 1,
      found: [
        { kind: "filter", address: "A1:B30" },
        { kind: "spill", address: "C1" },
      ],
    });
  });

  it("selection() with several areas selected says to select one cell", async () => {
    const { dx, port } = adapterOnDevExcel();
    dx.workbook.selectAreas(sheet1(dx), ["A1:B2", "D4"]);
    await expect(port.selection()).rejects.toThrow(/Several ranges are selected/);
    await port.select({ sheetId: sheet1(dx), row: 3, col: 3, rows: 1, cols: 1 }); // Locate selects one range again
    expect((await port.selection()).area).toMatchObject({ row: 3, col: 3, rows: 1, cols: 1 });
  });
});

describe("adapter: autofit fits the placed cells, not whole columns", () => {
  it("style({ autofit }) widens columns to the area's text only, and never narrows the user's wider columns", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const widths = () => dx.workbook.sheetById(sheetId)!.colWidths ?? {};
    dx.workbook.typeInto(sheetId, "A1", "a long filter summary line above the report's titles");
    await port.write({ sheetId, row: 2, col: 0 }, [
      ["Status", "Total"],
      ["complete", 1234567.5],
    ]);
    await port.style({ sheetId, row: 3, col: 1, rows: 1, cols: 1 }, { columnFormats: ["$#,##0.00"] });
    dx.workbook.sheetById(sheetId)!.colWidths = { 2: 300 }; // the user widened column C
    await port.style({ sheetId, row: 2, col: 0, rows: 2, cols: 3 }, { autofit: true });
    expect(widths()[0]).toBe(textWidthPoints("complete".length + 1));
    expect(widths()[1]).toBe(textWidthPoints("$1,234,567.50".length + 1));
    expect(widths()[2]).toBe(300);
  });
});

describe("adapter: the width fit without a read of its own (issue 20)", () => {
  it("a commit that writes the cells, on a snapshot that read the widths, fits them in the same sync — as the read-after fit would", async () => {
    const grid = [
      ["Status", "Total", "Note"],
      ["complete", 1234567.5, "x"],
    ];
    const style = { autofit: true } as const;
    const run = async (withWidths: boolean) => {
      const { dx, port } = adapterOnDevExcel();
      const sheetId = sheet1(dx);
      const area = { sheetId, row: 2, col: 0, rows: 2, cols: 3 };
      dx.workbook.typeInto(sheetId, "A1", "a long filter summary line above the report's titles");
      dx.workbook.sheetById(sheetId)!.colWidths = { 2: 300 }; // the user widened column C
      const snap = await port.snapshot(withWidths ? { columnWidths: [area] } : {});
      dx.workbook.resetStats();
      const stats = await port.commit(
        [
          { kind: "write", at: area, grid, options: { columnFormats: [null, "$#,##0.00", null] } },
          { kind: "style", area, style },
        ],
        { basis: snap },
      );
      expect(stats.syncs).toBe(dx.workbook.stats.syncs);
      return { syncs: stats.syncs, widths: { ...dx.workbook.sheetById(sheetId)!.colWidths }, snap };
    };
    const planned = await run(true);
    const read = await run(false);
    expect(planned.snap.columnWidths?.map((w) => w.points)).toEqual([48, 48, 300]);
    expect(planned.syncs).toBe(1);
    expect(read.syncs).toBe(3);
    expect(planned.widths).toEqual(read.widths);
    expect(planned.widths).toEqual({ 0: textWidthPoints("complete".length + 1), 1: textWidthPoints("$1,234,567.50".length + 1), 2: 300 });
  });

  it("a number written under keepFormats has a format only Excel knows: the fit reads the text after all", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const area = { sheetId, row: 0, col: 0, rows: 1, cols: 1 };
    dx.workbook.setNumberFormat(sheetId, "A1", "$#,##0.00");
    const snap = await port.snapshot({ columnWidths: [area] });
    dx.workbook.resetStats();
    await port.commit(
      [
        { kind: "write", at: area, grid: [[1234567.5]], options: { keepFormats: true } },
        { kind: "style", area, style: { autofit: true } },
      ],
      { basis: snap },
    );
    expect(dx.workbook.stats.syncs).toBe(4); // formats before the write, the write, then the text read and the widths
    expect(dx.workbook.sheetById(sheetId)!.colWidths?.[0]).toBe(textWidthPoints("$1,234,567.50".length + 1));
  });
});

describe("adapter: pictures over Excel on the web's 5 MB request", () => {
  /** A PNG of `bytes` bytes (a valid header, then filler), as base64. */
  const bigPng = (bytes: number) => {
    const b = new Uint8Array(bytes);
    b.set(Uint8Array.from(atob(png(800, 600)), (c) => c.charCodeAt(0)));
    let s = "";
    for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
    return btoa(s);
  };

  it("on the web a picture too large for one request is refused before sending, saying so plainly", async () => {
    const { dx, port } = adapterOnDevExcel({ platform: "OfficeOnline" });
    const sheetId = sheet1(dx);
    const syncs = dx.workbook.stats.syncs;
    const put = port.putPicture("Dash Big", bigPng(4_000_000), { sheetId, row: 0, col: 0 });
    await expect(put).rejects.toThrow(/too large|at most 5 MB/);
    await expect(put).rejects.toMatchObject({ code: "PictureTooLarge" });
    expect(dx.workbook.stats.syncs).toBe(syncs); // nothing sent
    const { describeError } = await import("../../src/taskpane/errors.ts");
    expect(describeError(await put.catch((e: unknown) => e)).title).toBe("The picture is too large for Excel on the web");
  });

  it("a picture that fits is inserted on the web", async () => {
    const { dx, port } = adapterOnDevExcel({ platform: "OfficeOnline" });
    await port.putPicture("Dash Fits", bigPng(3_000_000), { sheetId: sheet1(dx), row: 0, col: 0 });
    expect(sheetShapes(dx.workbook.sheets[0]!).map((s) => s.name)).toEqual(["Dash Fits"]);
  });
});

describe("adapter: a copy or the same file renamed or moved", () => {
  it("a renamed file looks like a copy until the person says it is the same file: then the id stays and the URL is recorded", async () => {
    const { dx, port } = adapterOnDevExcel();
    const before = await port.identity();
    expect(before.copied).toBe(false);
    dx.workbook.renameFile("https://contoso.sharepoint.example/Shared%20Documents/Sales%202026.xlsx");
    const renamed = await port.identity();
    expect(renamed).toMatchObject({ workbookId: before.workbookId, copied: true }); // the URL alone cannot tell
    const kept = await port.keepIdentity();
    expect(kept).toMatchObject({ workbookId: before.workbookId, copied: false, name: "Sales 2026.xlsx" });
    expect(await port.identity()).toMatchObject({ workbookId: before.workbookId, copied: false });
  });

  it("a guest on the web (no URL) is never taken for a copy", async () => {
    const { dx, port } = adapterOnDevExcel();
    await port.identity();
    dx.workbook.renameFile(null);
    expect((await port.identity()).copied).toBe(false);
  });
});

describe("adapter: undo", () => {
  it("tracking a placement never clears the user's undo stack on Excel on the web (no NamedItem.comment)", async () => {
    const { dx, port } = adapterOnDevExcel({ platform: "OfficeOnline" });
    const sheetId = sheet1(dx);
    await port.track("p1", { sheetId, row: 0, col: 0, rows: 2, cols: 2 });
    await port.track("p1", { sheetId, row: 0, col: 0, rows: 3, cols: 2 });
    expect(dx.workbook.stats.undoStackCleared).toBe(0);
    expect(dx.workbook.names.map((n) => n.comment)).toEqual([""]);
  });

  it("a multi-block write is one undo record with ExcelApi 1.20, one per block before it", async () => {
    const grid = Array.from({ length: 3000 }, (_, r) => [r, `row ${r}`]);
    for (const [apiVersion, records] of [
      ["1.20", 1],
      ["1.19", 3],
    ] as const) {
      const dx = createDevExcel({ apiVersion });
      const port = new ExcelPort({
        Excel: dx.Excel as unknown as typeof Excel,
        Office: dx.Office as unknown as typeof Office,
        writeBlockBytes: 20_000,
      });
      const stats = await port.write({ sheetId: dx.workbook.sheets[0]!.id, row: 0, col: 0 }, grid, { breakRows: [1000, 2000] });
      expect(stats.syncs).toBeGreaterThan(1);
      expect(dx.workbook.stats.undoRecords).toBe(records === 1 ? 1 : stats.syncs);
    }
  });
});

describe("adapter: the keepFormats format read stays under the response limit", () => {
  it("a large refresh-style write (keepFormats, numbers) reads the formats in pieces Excel can answer", async () => {
    const { dx, port } = adapterOnDevExcel();
    // One-digit numbers: a small request per cell, but each cell's format ("General") in the answer is bigger.
    const grid = Array.from({ length: 20_000 }, (_, r) => Array.from({ length: 40 }, (_, c) => (r + c) % 10));
    dx.workbook.setNumberFormat(sheet1(dx), "B2", "@");
    const stats = await port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, grid, { keepFormats: true });
    expect(dx.workbook.stats.maxResponseBytes).toBeLessThanOrEqual(5_000_000);
    expect(stats.syncs).toBe(dx.workbook.stats.syncs);
    expect(dx.workbook.inspect(sheet1(dx), "B2").values).toEqual([[2]]);
    expect(dx.workbook.inspect(sheet1(dx), "B2").valueTypes).toEqual([["Double"]]);
  });
});

describe("adapter: fitting widths never fails a style", () => {
  it("text too large to read in one answer leaves the widths as they were and keeps the other formats", async () => {
    const { dx, port } = adapterOnDevExcel();
    const sheetId = sheet1(dx);
    const big = Array.from({ length: 200 }, (_, r) => [`${r} ${"x".repeat(30_000)}`]);
    await port.write({ sheetId, row: 0, col: 0 }, big.slice(0, 100));
    await port.write({ sheetId, row: 100, col: 0 }, big.slice(100));
    await port.style({ sheetId, row: 0, col: 0, rows: 200, cols: 1 }, { bold: true, autofit: true });
    expect((await port.readStyle({ sheetId, row: 0, col: 0, rows: 200, cols: 1 })).bold).toBe(true);
    expect(dx.workbook.sheetById(sheetId)!.colWidths?.[0]).toBeUndefined();
  });
});
