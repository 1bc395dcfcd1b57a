// dev/excel reproduces Excel's documented behaviour (docs/EXCEL-FIDELITY.md lists the sources).
// These tests drive it through the Excel API as an add-in would (typed with @types/office-js).
import { createDevExcel, DevWorkbook, PAYLOAD_LIMIT_BYTES, type DevExcelOptions } from "../../dev/excel/index.ts";

function excel(options: DevExcelOptions = {}) {
  const dx = createDevExcel(options);
  return { dx, X: dx.Excel as unknown as typeof Excel, wb: dx.workbook };
}
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect((e as Error).name).toBe("RichApi.Error");
    return (e as { code: string }).code;
  }
  throw new Error("expected an Office error");
}

describe("dev/excel: proxy semantics", () => {
  it("reading a property before load() + sync() throws PropertyNotLoaded", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      expect(() => ws.name).toThrow(expect.objectContaining({ code: "PropertyNotLoaded" }));
      ws.load("name");
      expect(() => ws.name).toThrow(expect.objectContaining({ code: "PropertyNotLoaded" })); // loaded only at sync
      await ctx.sync();
      expect(ws.name).toBe("Sheet1");
      expect(() => ws.id).toThrow(expect.objectContaining({ code: "PropertyNotLoaded" })); // not asked for
    });
  });

  it("queued writes apply at sync(), not before", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1").values = [[42]];
      expect(wb.inspect("Sheet1", "A1").values).toEqual([[""]]);
      await ctx.sync();
      expect(wb.inspect("Sheet1", "A1").values).toEqual([[42]]);
    });
  });

  it("errors surface at sync() with Office error codes; commands before the failure stay applied", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const sheets = ctx.workbook.worksheets;
      sheets.getItem("Sheet1").getRange("A1").values = [[1]];
      sheets.getItem("Nope").getRange("A1").values = [[2]]; // queued without error
      expect(await codeOf(ctx.sync())).toBe("ItemNotFound");
      expect(wb.inspect("Sheet1", "A1").values).toEqual([[1]]);
      sheets.getItem("Sheet1").getRange("A1:B1").values = [[1]];
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      sheets.add("Sheet1");
      expect(await codeOf(ctx.sync())).toBe("ItemAlreadyExists");
      ctx.workbook.names.add("A1", sheets.getItem("Sheet1").getRange("A1")); // looks like a cell reference
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
    });
  });

  it("getItemOrNullObject reports isNullObject after sync; getXml's ClientResult needs a sync", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      const missing = ctx.workbook.worksheets.getItemOrNullObject("Nope");
      missing.load("id");
      const part = ctx.workbook.customXmlParts.add('<a xmlns="urn:x"><b/></a>');
      const xml = part.getXml();
      expect(() => xml.value).toThrow(expect.objectContaining({ code: "ValueNotLoaded" }));
      await ctx.sync();
      expect(missing.isNullObject).toBe(true);
      expect(xml.value).toBe('<a xmlns="urn:x"><b/></a>');
    });
  });
});

describe("dev/excel: Excel on the web limits, per sync", () => {
  it("a request over 5 MB fails with RequestPayloadSizeLimitExceeded and applies nothing", async () => {
    const { X, wb } = excel();
    const big = Array.from({ length: 2000 }, () => Array.from({ length: 10 }, () => "x".repeat(260)));
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1").values = [["first"]];
      ctx.workbook.worksheets.getItem("Sheet1").getRangeByIndexes(1, 0, 2000, 10).values = big;
      expect(await codeOf(ctx.sync())).toBe("RequestPayloadSizeLimitExceeded");
    });
    expect(wb.inspect("Sheet1", "A1").values).toEqual([[""]]);
    expect(wb.stats.maxRequestBytes).toBeGreaterThan(PAYLOAD_LIMIT_BYTES);
  });

  it("a response over 5 MB fails (ResponsePayloadSizeLimitExceeded)", async () => {
    const wb = new DevWorkbook();
    const sheet = wb.sheets[0]!;
    for (let r = 0; r < 2000; r++) for (let c = 0; c < 10; c++) wb.setCell(sheet, r, c, { t: "s", v: "y".repeat(300) });
    const { X } = excel({ workbook: wb });
    await X.run(async (ctx) => {
      const r = ctx.workbook.worksheets.getItem("Sheet1").getRange("A1:J2000");
      r.load("values");
      expect(await codeOf(ctx.sync())).toBe("ResponsePayloadSizeLimitExceeded");
      expect(() => r.values).toThrow(expect.objectContaining({ code: "PropertyNotLoaded" }));
    });
  });

  it("reading more than 5,000,000 cells in one sync fails", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1:E1000001").load("values"); // 5,000,005 cells
      expect(await codeOf(ctx.sync())).toBe("RangeExceedsLimit");
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1:E200").load("values");
      await ctx.sync();
    });
  });

  it("counts syncs and the largest request", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1:B1").values = [["abc", 1]];
      await ctx.sync();
      await ctx.sync();
    });
    expect(wb.stats.syncs).toBe(2); // nothing left queued: Excel.run's final flush sends nothing
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("C1").values = [[1]];
    });
    expect(wb.stats.syncs).toBe(3); // the queued write is flushed when the batch ends
    expect(wb.stats.maxRequestBytes).toBeGreaterThan(JSON.stringify([["abc", 1]]).length);
  });
});

describe("dev/excel: value conversion on write (en-US)", () => {
  async function put(values: unknown[][], numberFormat?: string[][]) {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const r = ctx.workbook.worksheets.getItem("Sheet1").getRangeByIndexes(0, 0, values.length, values[0]!.length);
      if (numberFormat) r.numberFormat = numberFormat;
      r.values = values;
      await ctx.sync();
    });
    return { wb, cells: wb.inspect("Sheet1", `A1:${String.fromCharCode(64 + values[0]!.length)}${values.length}`) };
  }

  it("numbers keep 15 significant digits", async () => {
    const { cells } = await put([[0.1 + 0.2, Number("1234567890123456789"), 1 / 3]]);
    expect(cells.values).toEqual([[0.3, 1234567890123460000, 0.333333333333333]]);
  });

  it("a string starting with = becomes a formula, and +, - and @ when they parse as one", async () => {
    const { cells } = await put([["=1+2", "-2+3", "+4*2", "@SUM(1)", "- not a formula", "@", "+cmd|' /C calc'!A0"]]);
    expect(cells.formulas[0]).toEqual(["=1+2", "=-2+3", "=+4*2", "=SUM(1)", "- not a formula", "@", "=+cmd|' /C calc'!A0"]);
    expect(cells.values[0]!.slice(0, 3)).toEqual([3, 1, 8]);
  });

  it("numeric-, date-, boolean- and error-looking strings are converted unless the format is text (@)", async () => {
    const input = [["0001", "1/2", "2024-01-01", "TRUE", "#N/A", "50%", "1,234", "12:30"]];
    const { cells } = await put(input);
    const year = new Date().getFullYear();
    const jan2 = Math.round((Date.UTC(year, 0, 2) - Date.UTC(1899, 11, 30)) / 86_400_000);
    expect(cells.values[0]).toEqual([1, jan2, 45292, true, "#N/A", 0.5, 1234, 0.520833333333333]);
    expect(cells.valueTypes[0]).toEqual(["Double", "Double", "Double", "Boolean", "Error", "Double", "Double", "Double"]);
    expect(cells.numberFormats[0]![2]).toBe("m/d/yyyy");
    const asText = await put(input, [input[0]!.map(() => "@")]);
    expect(asText.cells.values).toEqual(input);
    expect(asText.cells.valueTypes[0]!.every((t) => t === "String")).toBe(true);
    const formulaAsText = await put([["=1+2"]], [["@"]]);
    expect(formulaAsText.cells.formulas).toEqual([["=1+2"]]);
    expect(formulaAsText.cells.values).toEqual([["=1+2"]]);
    expect(formulaAsText.cells.valueTypes).toEqual([["String"]]);
  });

  it('null leaves a cell unchanged, "" clears it, and empty cells read back as ""', async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const r = ctx.workbook.worksheets.getItem("Sheet1").getRange("A1:C1");
      r.values = [["a", "b", "c"]];
      await ctx.sync();
      r.values = [[null, "", null]];
      r.load("values,valueTypes");
      await ctx.sync();
      expect(r.values).toEqual([["a", "", "c"]]);
      expect(r.valueTypes).toEqual([["String", "Empty", "String"]]);
      const far = ctx.workbook.worksheets.getItem("Sheet1").getRange("Z100");
      far.load("values");
      await ctx.sync();
      expect(far.values).toEqual([[""]]);
    });
    expect(wb.inspect("Sheet1", "B1").valueTypes).toEqual([["Empty"]]);
  });

  it("strings over 32,767 characters fail", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1").values = [["x".repeat(32_767)]];
      await ctx.sync();
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A2").values = [["x".repeat(32_768)]];
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
    });
  });
});

describe("dev/excel: names and identity", () => {
  async function nameValue(X: typeof Excel, name: string) {
    return X.run(async (ctx) => {
      const n = ctx.workbook.names.getItem(name);
      n.load("type,value");
      const r = n.getRangeOrNullObject();
      r.load("address");
      await ctx.sync();
      return { type: n.type, value: n.value as string, address: r.isNullObject ? null : r.address };
    });
  }

  it("a workbook-scoped named item moves with its range when rows or columns are inserted or deleted above/left of it", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const item = ctx.workbook.names.add("Placement", ctx.workbook.worksheets.getItem("Sheet1").getRange("C5:D6"));
      item.visible = false;
      await ctx.sync();
    });
    wb.insertRows("Sheet1", 0, 2); // user inserts rows 1–2
    expect(await nameValue(X, "Placement")).toEqual({ type: "Range", value: "Sheet1!$C$7:$D$8", address: "Sheet1!C7:D8" });
    wb.insertColumns("Sheet1", 1, 1);
    expect((await nameValue(X, "Placement")).address).toBe("Sheet1!D7:E8");
    wb.deleteRows("Sheet1", 0, 1);
    wb.deleteColumns("Sheet1", 0, 1);
    expect((await nameValue(X, "Placement")).address).toBe("Sheet1!C6:D7");
    wb.insertRows("Sheet1", 20, 3); // below: no move
    expect((await nameValue(X, "Placement")).address).toBe("Sheet1!C6:D7");
    await X.run(async (ctx) => {
      const n = ctx.workbook.names.getItem("Placement");
      n.load("visible");
      await ctx.sync();
      expect(n.visible).toBe(false);
    });
  });

  it("a named item's range becomes null (#REF!) when that range is deleted", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.names.add("Gone", "=Sheet1!$A$3:$B$4");
      await ctx.sync();
    });
    wb.deleteRows("Sheet1", 1, 5);
    expect(await nameValue(X, "Gone")).toEqual({ type: "Error", value: "#REF!", address: null });
    expect(
      await codeOf(
        X.run(async (ctx) => {
          ctx.workbook.names.getItem("Gone").getRange().load("address");
          await ctx.sync();
        }),
      ),
    ).toBe("InvalidReference");
  });

  it("issue 32: getItemOrNullObject finds a name whatever its case (letters of any script); a missing name is a null object", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.names.add("Région", ctx.workbook.worksheets.getItem("Sheet1").getRange("B1:B3"));
      await ctx.sync();
      const found = ctx.workbook.names.getItemOrNullObject("RÉGION").load("name,type,formula");
      const missing = ctx.workbook.names.getItemOrNullObject("Nowhere").load("name");
      await ctx.sync();
      expect([found.isNullObject, found.name, found.type, found.formula]).toEqual([false, "Région", "Range", "=Sheet1!$B$1:$B$3"]);
      expect(missing.isNullObject).toBe(true);
    });
  });

  it("renaming a worksheet keeps its id", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.load("id");
      await ctx.sync();
      const id = ws.id;
      ws.name = "Sales 2026";
      await ctx.sync();
      const again = ctx.workbook.worksheets.getItem(id);
      again.load("id,name");
      await ctx.sync();
      expect([again.id, again.name]).toEqual([id, "Sales 2026"]);
      expect(id).toMatch(/^\{[0-9A-F-]{36}\}$/);
    });
  });

  it("custom XML parts and settings persist through snapshot/restore and a saved copy (another URL)", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      ctx.workbook.customXmlParts.add('<id xmlns="urn:t">1</id>');
      ctx.workbook.settings.add("k", { a: 1 });
      await ctx.sync();
    });
    const copy = wb.saveAsCopy("https://contoso.example/copy.xlsx");
    expect(copy.url).toBe("https://contoso.example/copy.xlsx");
    const restored = DevWorkbook.restore(JSON.parse(JSON.stringify(copy.snapshot())));
    const X2 = createDevExcel({ workbook: restored }).Excel as unknown as typeof Excel;
    await X2.run(async (ctx) => {
      const parts = ctx.workbook.customXmlParts.getByNamespace("urn:t");
      parts.load("items/id");
      const s = ctx.workbook.settings.getItem("k");
      s.load("value");
      await ctx.sync();
      expect(parts.items.length).toBe(1);
      expect(s.value).toEqual({ a: 1 });
    });
    expect(() => DevWorkbook.restore({ version: 1, sheets: [] })).toThrow();
  });
});

describe("dev/excel: events", () => {
  async function collect(X: typeof Excel, wb: DevWorkbook, act: () => Promise<void> | void, apiVersion?: string) {
    void apiVersion;
    const seen: Excel.WorksheetChangedEventArgs[] = [];
    const ctx = new X.RequestContext();
    const h = ctx.workbook.worksheets.getItem("Sheet1").onChanged.add(async (e) => {
      seen.push(e);
    });
    await ctx.sync();
    await act();
    await new Promise((r) => setTimeout(r, 20));
    h.remove();
    await ctx.sync();
    void wb;
    return seen.map((e) => ({ address: e.address, changeType: e.changeType, triggerSource: e.triggerSource, source: e.source }));
  }

  it("onChanged carries address, changeType and triggerSource for edits and row/column insertions and deletions", async () => {
    const { X, wb } = excel();
    const seen = await collect(X, wb, async () => {
      await X.run(async (ctx) => {
        ctx.workbook.worksheets.getItem("Sheet1").getRange("B2:C3").values = [
          [1, 2],
          [3, 4],
        ];
        await ctx.sync();
      });
      wb.typeInto("Sheet1", "D4", "hello");
      wb.insertRows("Sheet1", 4, 2);
      wb.deleteRows("Sheet1", 9, 1);
      wb.insertColumns("Sheet1", 0, 1);
      wb.deleteColumns("Sheet1", 2, 2);
      await X.run(async (ctx) => {
        ctx.workbook.worksheets.getItem("Sheet1").getRange("7:7").insert("Down");
        await ctx.sync();
      });
    });
    expect(seen).toEqual([
      { address: "B2:C3", changeType: "RangeEdited", triggerSource: "ThisLocalAddin", source: "Local" },
      { address: "D4", changeType: "RangeEdited", triggerSource: "Unknown", source: "Local" },
      { address: "5:6", changeType: "RowInserted", triggerSource: "Unknown", source: "Local" },
      { address: "10:10", changeType: "RowDeleted", triggerSource: "Unknown", source: "Local" },
      { address: "A:A", changeType: "ColumnInserted", triggerSource: "Unknown", source: "Local" },
      { address: "C:D", changeType: "ColumnDeleted", triggerSource: "Unknown", source: "Local" },
      { address: "$7:$7", changeType: "RowInserted", triggerSource: "ThisLocalAddin", source: "Local" },
    ]);
  });

  it("before ExcelApi 1.14 events carry no triggerSource", async () => {
    const { X, wb } = excel({ apiVersion: "1.13" });
    const seen = await collect(X, wb, () => wb.typeInto("Sheet1", "A1", "x"));
    expect(seen).toEqual([{ address: "A1", changeType: "RangeEdited", triggerSource: undefined, source: "Local" }]);
  });

  it("a removed handler hears nothing", async () => {
    const { X, wb } = excel();
    const seen: unknown[] = [];
    const ctx = new X.RequestContext();
    const h = ctx.workbook.worksheets.onChanged.add(async (e) => {
      seen.push(e);
    });
    await ctx.sync();
    h.remove();
    await ctx.sync();
    wb.typeInto("Sheet1", "A1", "x");
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
  });
});
