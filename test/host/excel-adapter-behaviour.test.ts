// What the Office.js adapter does beyond the shared contract, observed on dev/excel: block sizing under
// 5 MB (and halving when Excel still refuses), calculation/screen suspension, the undo group, text-safe
// strings, host kind, requirement-set checks, and where identity and data live in the file.
import { createDevExcel, DevWorkbook, PAYLOAD_LIMIT_BYTES } from "../../dev/excel/index.ts";
import { ExcelPort, HostError, TRACK_PREFIX } from "../../src/host/excel/index.ts";
import { DATA_NS, WORKBOOK_NS, WORKBOOK_SETTING } from "../../src/host/excel/storage.ts";
import { HOSTILE_STRINGS, ISSUE_STRINGS } from "./fixtures/hostile-strings.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

async function readAll(port: ExcelPort, a: Parameters<ExcelPort["read"]>[0]) {
  const rows: unknown[][] = [];
  let blocks = 0;
  for await (const b of port.read(a)) {
    rows.push(...b);
    blocks++;
  }
  return { rows, blocks };
}
const sheet1 = (dx: ReturnType<typeof createDevExcel>) => dx.workbook.sheets[0]!.id;

describe("adapter writes", () => {
  it("writes in row blocks under 5 MB, suspends calculation per block and screen updating once, in one undo group", async () => {
    const { dx, port } = adapterOnDevExcel();
    const grid = Array.from({ length: 30_000 }, (_, r) =>
      Array.from({ length: 10 }, (_, c) => (c % 2 ? `text ${r}-${c} lorem ipsum` : r * 10 + c)),
    );
    const stats = await port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, grid);
    const s = dx.workbook.stats;
    expect(stats.syncs).toBeGreaterThan(1);
    expect(stats.maxSyncBytes).toBeLessThanOrEqual(PAYLOAD_LIMIT_BYTES);
    expect(s.maxRequestBytes).toBeLessThanOrEqual(PAYLOAD_LIMIT_BYTES);
    expect(s.failedSyncs).toBe(0);
    expect(s.calcSuspensions).toBe(stats.syncs);
    expect(s.screenSuspensions).toBe(1);
    expect(s.undoGroups).toBe(1);
    const back = await readAll(port, { sheetId: sheet1(dx), row: 0, col: 0, rows: 30_000, cols: 10 });
    expect(back.rows).toEqual(grid);
    expect(back.blocks).toBeGreaterThan(1);
  });

  it("on RequestPayloadSizeLimitExceeded halves the block and retries", async () => {
    const dx = createDevExcel();
    const port = new ExcelPort({
      Excel: dx.Excel as unknown as typeof Excel,
      Office: dx.Office as unknown as typeof Office,
      writeBlockBytes: 50_000_000,
    });
    const grid = Array.from({ length: 6000 }, (_, r) => [r, "x".repeat(1000)]);
    const stats = await port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, grid);
    expect(dx.workbook.stats.failedSyncs).toBeGreaterThanOrEqual(1);
    expect(stats.syncs).toBe(dx.workbook.stats.syncs); // every sync, failed ones included
    expect(stats.maxSyncBytes).toBeGreaterThan(PAYLOAD_LIMIT_BYTES); // the first, refused attempt is reported honestly
    expect(dx.workbook.inspect(sheet1(dx), "A6000:B6000").values).toEqual([[5999, "x".repeat(1000)]]);
    expect(dx.workbook.inspect(sheet1(dx), "A1").values).toEqual([[0]]);
  });

  it("reads halve their block on a response payload error", async () => {
    const dx = createDevExcel();
    const port = new ExcelPort({
      Excel: dx.Excel as unknown as typeof Excel,
      Office: dx.Office as unknown as typeof Office,
      readBlockCells: 1_000_000,
    });
    const grid = Array.from({ length: 8000 }, (_, r) => [r, "y".repeat(1000)]);
    await port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, grid);
    dx.workbook.resetStats();
    const back = await readAll(port, { sheetId: sheet1(dx), row: 0, col: 0, rows: 8000, cols: 2 });
    expect(back.rows).toEqual(grid);
    expect(dx.workbook.stats.failedSyncs).toBeGreaterThanOrEqual(1);
    expect(dx.workbook.stats.maxResponseBytes).toBeGreaterThan(PAYLOAD_LIMIT_BYTES); // the refused one
  });

  it("without ExcelApi 1.20 writes without mergeUndoGroup", async () => {
    const { dx, port } = adapterOnDevExcel({ apiVersion: "1.19" });
    await port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, [[1]]);
    expect(dx.workbook.stats.undoGroups).toBe(0);
  });

  it("the whole hostile corpus round-trips as text with 0 formulas — and would not without the text format", async () => {
    const { dx, port } = adapterOnDevExcel();
    const id = sheet1(dx);
    await port.write(
      { sheetId: id, row: 0, col: 0 },
      HOSTILE_STRINGS.map((s) => [s]),
    );
    const cells = dx.workbook.inspect(id, `A1:A${HOSTILE_STRINGS.length}`);
    expect(cells.values.map((r) => r[0])).toEqual([...HOSTILE_STRINGS]);
    expect(cells.formulas.filter((r, i) => r[0] !== HOSTILE_STRINGS[i]).length).toBe(0);
    expect(cells.valueTypes.filter((r) => r[0] !== "String").length).toBe(0);
    expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(210);
    for (const s of ISSUE_STRINGS) expect(HOSTILE_STRINGS).toContain(s);
    // Control: the same strings written naively through Range.values are converted by (dev/)Excel.
    const X = dx.Excel as unknown as typeof Excel;
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem(id).getRangeByIndexes(0, 1, HOSTILE_STRINGS.length, 1).values = HOSTILE_STRINGS.map((s) => [s]);
      await ctx.sync();
    });
    const naive = dx.workbook.inspect(id, `B1:B${HOSTILE_STRINGS.length}`);
    const changed = (i: number) => naive.values[i]![0] !== HOSTILE_STRINGS[i] || naive.valueTypes[i]![0] !== "String";
    expect(ISSUE_STRINGS.filter((_, i) => !changed(i))).toEqual([]);
    expect(HOSTILE_STRINGS.filter((_, i) => changed(i)).length).toBeGreaterThan(100);
  });

  it("refuses bad input before writing anything", async () => {
    const { dx, port } = adapterOnDevExcel();
    await expect(port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, [[1], ["x".repeat(40_000)]])).rejects.toThrow(/32767/);
    expect(dx.workbook.stats.syncs).toBe(0);
    await expect(port.write({ sheetId: "{nope}", row: 0, col: 0 }, [[1]])).rejects.toThrow(HostError);
  });
});

describe("adapter host and requirement sets", () => {
  it("host is SHEETS_DESKTOP on PC and Mac, SHEETS_CLOUD on Excel on the web", () => {
    for (const [platform, host] of [
      ["PC", "SHEETS_DESKTOP"],
      ["Mac", "SHEETS_DESKTOP"],
      ["OfficeOnline", "SHEETS_CLOUD"],
    ] as const) {
      expect(adapterOnDevExcel({ platform }).port.host).toBe(host);
    }
  });
  it("refuses to run below ExcelApi 1.12", () => {
    expect(() => adapterOnDevExcel({ apiVersion: "1.11" })).toThrow(/ExcelApi 1.12/);
  });
  it("without ExcelApi 1.14 a change's source is Unknown", async () => {
    const { dx, port } = adapterOnDevExcel({ apiVersion: "1.13" });
    const seen: string[] = [];
    const stop = await port.onChange((c) => seen.push(c.source));
    await port.write({ sheetId: sheet1(dx), row: 0, col: 0 }, [[1]]);
    dx.workbook.typeInto(sheet1(dx), "B2", "x");
    await new Promise((r) => setTimeout(r, 30));
    await stop();
    expect(seen).toEqual(["Unknown", "Unknown"]);
  });
  it("reports sheet renames (ExcelApi 1.17), additions and deletions", async () => {
    const { dx, port } = adapterOnDevExcel();
    const seen: string[] = [];
    const stop = await port.onChange((c) => seen.push(c.kind));
    const s = dx.workbook.addSheet("Extra");
    dx.workbook.renameSheet(s.id, "Extra 2");
    dx.workbook.deleteSheet(s.id);
    await new Promise((r) => setTimeout(r, 30));
    await stop();
    expect(seen).toEqual(["SheetAdded", "SheetRenamed", "SheetDeleted"]);
  });
});

describe("adapter storage in the file", () => {
  it("tracks with hidden, prefixed workbook-scoped names", async () => {
    const { dx, port } = adapterOnDevExcel();
    await port.track("P1", { sheetId: sheet1(dx), row: 2, col: 1, rows: 3, cols: 2 });
    expect(dx.workbook.names).toEqual([
      {
        name: `${TRACK_PREFIX}P1`,
        visible: false,
        comment: expect.any(String),
        ref: { sheetId: sheet1(dx), row: 2, col: 1, rows: 3, cols: 2 },
      },
    ]);
  });

  it("stores the workbook id in a namespaced custom XML part mirrored in settings, and recovers from either", async () => {
    const { dx, port } = adapterOnDevExcel();
    const a = await port.identity();
    const part = dx.workbook.xmlParts.find((p) => p.namespaceUri === WORKBOOK_NS);
    expect(part?.xml).toContain(a.workbookId);
    expect(JSON.parse(String(dx.workbook.settings.get(WORKBOOK_SETTING)))).toEqual({
      workbookId: a.workbookId,
      documentUrl: a.documentUrl,
    });
    dx.workbook.xmlParts = []; // the part was lost: the settings mirror restores it
    expect((await port.identity()).workbookId).toBe(a.workbookId);
    expect(dx.workbook.xmlParts.some((p) => p.namespaceUri === WORKBOOK_NS)).toBe(true);
    dx.workbook.settings.clear(); // another add-in Id (dev vs prod manifest): the XML part still holds it
    expect((await port.identity()).workbookId).toBe(a.workbookId);
    dx.workbook.settings.set(WORKBOOK_SETTING, "{not json");
    dx.workbook.xmlParts = [];
    const fresh = await port.identity(); // nothing valid left: a new id, never a crash
    expect(fresh.workbookId).not.toBe(a.workbookId);
  });

  it("a new unsaved workbook that is saved later is not a copy; a copy under another URL is", async () => {
    const wb = new DevWorkbook(null, "Book1");
    const { dx, port } = adapterOnDevExcel({ workbook: wb });
    const unsaved = await port.identity();
    expect([unsaved.documentUrl, unsaved.recordedUrl, unsaved.copied]).toEqual([null, null, false]);
    dx.workbook.url = "https://contoso.example/Sales.xlsx";
    const saved = await port.identity();
    expect([saved.workbookId, saved.recordedUrl, saved.copied]).toEqual([unsaved.workbookId, "https://contoso.example/Sales.xlsx", false]);
    const copy = adapterOnDevExcel({ workbook: dx.workbook.saveAsCopy("https://contoso.example/Sales - Copy.xlsx") }).port;
    const c = await copy.identity();
    expect([c.workbookId, c.copied, c.name]).toEqual([unsaved.workbookId, true, "Sales - Copy.xlsx"]);
  });

  it("keeps data in custom XML parts (one per key) and reports corrupt data clearly", async () => {
    const { dx, port } = adapterOnDevExcel();
    await port.setData("placements", [{ id: 'a<b>&"c"' }]);
    await port.setData("other", 1);
    expect(dx.workbook.xmlParts.filter((p) => p.namespaceUri === DATA_NS).length).toBe(2);
    expect(await port.getData("placements")).toEqual([{ id: 'a<b>&"c"' }]);
    const p = dx.workbook.xmlParts.find((x) => x.xml.includes('key="other"'))!;
    p.xml = p.xml.replace(">1<", ">{oops<");
    await expect(port.getData("other")).rejects.toThrow(/not valid JSON/);
  });
});

describe("round trips", () => {
  const portOn = (dx: ReturnType<typeof createDevExcel>, syncDeadlineMs?: number) =>
    new ExcelPort({
      Excel: dx.Excel as unknown as typeof Excel,
      Office: dx.Office as unknown as typeof Office,
      ...(syncDeadlineMs ? { syncDeadlineMs } : {}),
    });

  it("issue 32: namedArea is one sync: a person's name on a quoted sheet gives its range; a tracking name or an unknown one gives null", async () => {
    const dx = createDevExcel();
    const port = portOn(dx);
    const { driver } = adapterOnDevExcel({ workbook: dx.workbook });
    const sheet = await driver.addSheet("O'Neil's inputs");
    await driver.defineName!("Region", { sheetId: sheet.id, row: 0, col: 1, rows: 5, cols: 1 });
    await port.track("P1", { sheetId: sheet.id, row: 9, col: 0, rows: 1, cols: 1 });
    dx.workbook.resetStats();
    expect(await port.namedArea("region")).toEqual({ sheet, area: { sheetId: sheet.id, row: 0, col: 1, rows: 5, cols: 1 } });
    expect(dx.workbook.stats.syncs).toBe(1);
    expect(await port.namedArea(`${TRACK_PREFIX}P1`)).toBeNull();
    expect(await port.namedArea("Nowhere")).toBeNull();
    expect(dx.workbook.stats.syncs).toBe(2); // a tracking name is known by its prefix: no sync
  });

  it("a snapshot of a tracked placement's state and cells is two syncs; a commit of journal, cells and tracking is one; nothing is sent for nothing", async () => {
    const dx = createDevExcel();
    const port = portOn(dx);
    const sheetId = sheet1(dx);
    await port.setData("state", { v: 1 });
    await port.track("P1", { sheetId, row: 0, col: 0, rows: 2, cols: 2 });
    dx.workbook.resetStats();
    const snap = await port.snapshot({ trackedValues: ["P1"] });
    expect(dx.workbook.stats.syncs).toBe(2);
    dx.workbook.resetStats();
    const s = await port.commit(
      [
        { kind: "data", key: "state", value: { v: 2 } },
        { kind: "write", at: { sheetId, row: 0, col: 0 }, grid: [[1, 2]] },
        { kind: "track", name: "P1", area: { sheetId, row: 0, col: 0, rows: 1, cols: 2 } },
        { kind: "data", key: "state", value: { v: 3 } },
      ],
      { basis: snap },
    );
    expect(s.syncs).toBe(1);
    expect(dx.workbook.stats).toMatchObject({ syncs: 1, emptySyncs: 0 });
    expect(await port.commit([])).toMatchObject({ syncs: 0 });
    expect(dx.workbook.stats.syncs).toBe(1);
    expect(dx.workbook.names.filter((n) => n.name.toLowerCase() === `${TRACK_PREFIX}p1`.toLowerCase())).toHaveLength(1);
    expect(await port.getData("state")).toEqual({ v: 3 });
  });

  it("every sync has a deadline: a stalled Excel ends the operation with ExcelNotAnswering, and Cancel ends it at once", async () => {
    const dx = createDevExcel();
    const port = portOn(dx, 150);
    const sheetId = sheet1(dx);
    let resume!: () => void;
    dx.env.stall = new Promise<void>((r) => (resume = r));
    const t = performance.now();
    const err = await port.write({ sheetId, row: 0, col: 0 }, [["a"]]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect((err as HostError).code).toBe("ExcelNotAnswering");
    expect((err as Error).message).toMatch(/Excel is not answering: a request got no reply within 150 ms/);
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
    const stop = new AbortController();
    const pending = port.snapshot({ signal: stop.signal }).catch((e: unknown) => e);
    setTimeout(() => stop.abort(new DOMException("Cancelled", "AbortError")), 10);
    const cancelled = await pending;
    expect((cancelled as Error).name).toBe("AbortError");
    dx.env.stall = null;
    resume();
  });
});
