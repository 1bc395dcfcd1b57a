// The harness's "Open .xlsx…" / "Save as .xlsx" conversion (dev/harness/xlsx-bridge.ts): what the pane
// leaves in the simulated workbook (cells, formats, Cellbound's hidden names and custom XML parts)
// reaches the file as the file port reads it, and comes back.
import { ExcelPort } from "../../src/host/excel/index.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { createDevExcel } from "../../dev/excel/index.ts";
import { DevWorkbook } from "../../dev/excel/model.ts";
import { snapshotToXlsx, xlsxToSnapshot } from "../../dev/harness/xlsx-bridge.ts";
import { XlsxError } from "../../src/host/xlsx/errors.ts";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { saveSnapshot } from "../../dev/harness/xlsx-snapshot.ts";
import { runCli } from "../../src/cli/run.ts";
import { ZipReader } from "../../src/host/xlsx/zip.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byStatus, placed, useEnv, wrapDevExcel } from "../sync/support.ts";

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

// ---------------------------------------------------------------- issue 35 §4

/** A real w×h PNG of one colour (LibreOffice and Excel decode it). */
function realPng(w: number, h: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => rgb).flat())]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(Array.from({ length: h }, () => row)))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
const CORPUS = path.resolve(import.meta.dirname, "../fixtures/xlsx-corpus");
const entries = (bytes: Buffer) => {
  const z = new ZipReader("x.xlsx", bytes);
  return new Map(z.entries.map((e) => [e.name, z.bytes.subarray(e.offset, e.end)]));
};

describe("issue 35 §4: Save as .xlsx keeps the opened package", () => {
  it("a dashboard picture placed in the harness is a drawing with its media; the package's other parts keep their bytes", async () => {
    const source = readFileSync(path.join(CORPUS, "lo-1904-image.xlsx"));
    const wb = DevWorkbook.restore(xlsxToSnapshot(source, "lo-1904-image.xlsx"));
    const port = portOn(wb);
    const [s] = await port.sheets();
    const picture = realPng(40, 20, [200, 30, 30]);
    await port.putPicture("Dash SalesDash001", picture.toString("base64"), { sheetId: s!.id, row: 12, col: 3 });
    await port.write({ sheetId: s!.id, row: 20, col: 0 }, [["placed in the harness"]]);

    const saved = snapshotToXlsx(JSON.parse(JSON.stringify(saveSnapshot(wb))));
    const [before, after] = [entries(source), entries(saved)];
    const edited = new Set([
      "xl/worksheets/sheet1.xml",
      "xl/workbook.xml",
      "xl/drawings/drawing1.xml",
      "xl/drawings/_rels/drawing1.xml.rels",
      "[Content_Types].xml",
      "xl/styles.xml",
    ]);
    for (const [name, raw] of before) if (!edited.has(name)) expect(after.get(name)?.equals(raw), `${name} keeps its bytes`).toBe(true);
    const z = new ZipReader("saved.xlsx", saved);
    // The file's own picture stays; ours is another anchor of the same drawing, its image a new media part.
    const drawing = z.text("xl/drawings/drawing1.xml");
    expect(drawing).toContain(new ZipReader("s", source).text("xl/drawings/drawing1.xml").replace(/<\/xdr:wsDr>\s*$/, ""));
    expect(drawing.match(/name="Dash SalesDash001"/g)).toHaveLength(1);
    expect(drawing).toMatch(/<xdr:oneCellAnchor><xdr:from><xdr:col>3<\/xdr:col><xdr:colOff>0<\/xdr:colOff><xdr:row>12<\/xdr:row>/);
    const media = z.entries.map((e) => e.name).filter((n) => n.startsWith("xl/media/") && !before.has(n));
    expect(media).toHaveLength(1);
    expect(z.read(media[0]!).equals(picture)).toBe(true);
    expect(z.text("xl/drawings/_rels/drawing1.xml.rels")).toContain(`Target="../media/${path.basename(media[0]!)}"`);

    // Saved again: the same picture is not added twice; a new picture of that name replaces it in place.
    const again = snapshotToXlsx(JSON.parse(JSON.stringify(saveSnapshot(wb))));
    expect(new ZipReader("a", again).text("xl/drawings/drawing1.xml").match(/name="Dash SalesDash001"/g)).toHaveLength(1);
    await port.putPicture("Dash SalesDash001", realPng(80, 20, [30, 30, 200]).toString("base64"));
    const third = new ZipReader("t", snapshotToXlsx(JSON.parse(JSON.stringify(saveSnapshot(wb)))));
    expect(third.text("xl/drawings/drawing1.xml").match(/name="Dash SalesDash001"/g)).toHaveLength(1);
    expect(third.text("xl/drawings/drawing1.xml")).toContain('<xdr:ext cx="762000" cy="190500"/>');

    // Opened again: the cells, and the dates of the 1904 workbook, are what the harness showed.
    const file = tmp.file("pictured.xlsx");
    writeFileSync(file, saved);
    const reopened = XlsxPort.open(file);
    expect(reopened.date1904).toBe(true);
    expect(reopened.wb.sheets[0]!.cells.get(20)!.get(0)!.v).toBe("placed in the harness");
  });

  it("a sheet without a drawing gets one (with its relationship and content type)", async () => {
    const source = readFileSync(path.join(CORPUS, "lo-features.xlsx"));
    const wb = DevWorkbook.restore(xlsxToSnapshot(source, "lo-features.xlsx"));
    const port = portOn(wb);
    const sheets = await port.sheets();
    const second = sheets[1]!;
    await port.putPicture("Chart", realPng(10, 10, [0, 128, 0]).toString("base64"), { sheetId: second.id, row: 1, col: 1 });
    const z = new ZipReader("saved.xlsx", snapshotToXlsx(JSON.parse(JSON.stringify(saveSnapshot(wb)))));
    const sheetXml = z.text("xl/worksheets/sheet2.xml");
    const rid = /<drawing r:id="(rId\d+)"\/>/.exec(sheetXml)?.[1];
    expect(rid).toBeDefined();
    const rels = z.text("xl/worksheets/_rels/sheet2.xml.rels");
    const target = new RegExp(`Id="${rid}" Type="[^"]*/drawing" Target="../drawings/(drawing\\d+\\.xml)"`).exec(rels)?.[1];
    expect(target).toBeDefined();
    expect(z.text(`xl/drawings/${target}`)).toContain('name="Chart"');
    expect(z.text("[Content_Types].xml")).toContain(
      `<Override PartName="/xl/drawings/${target}" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>`,
    );
    expect(z.text("[Content_Types].xml")).toMatch(/<Default Extension="png" ContentType="image\/png"\/>/);
    for (const [name, raw] of entries(source))
      if (!["xl/worksheets/sheet2.xml", "[Content_Types].xml", "xl/workbook.xml"].includes(name))
        expect(entries(z.bytes).get(name)?.equals(raw), `${name} keeps its bytes`).toBe(true);
  });
});

describe("issue 35 §4: the first refresh after Save as .xlsx", () => {
  const env = useEnv();
  it("with nothing changed leaves the saved file untouched (the pane's sheet ids stay the file's)", async () => {
    const wb = new DevWorkbook("https://files.example.com/Harness.xlsx", "Harness.xlsx");
    const dev = wrapDevExcel(wb);
    const second = wb.addSheet("Second").id;
    const engine = env().engine(dev);
    const r1 = await env().createReport(byStatus(3));
    const r2 = await env().createReport(byStatus(4));
    await placed(engine, r1, { sheetId: wb.sheets[0]!.id, row: 1, col: 1 });
    await placed(engine, r2, { sheetId: second, row: 2, col: 0 });

    const file = tmp.file("Harness.xlsx");
    writeFileSync(file, snapshotToXlsx(JSON.parse(JSON.stringify(saveSnapshot(wb)))));
    const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
    let out = "";
    const code = await runCli(["refresh", file, "--json"], {
      stdout: (t) => void (out += t),
      stderr: () => {},
      progress: false,
      env: {
        CELLBOUND_PLATFORM_URL: env().platform.info.baseUrl,
        CELLBOUND_API_KEY: env().platform.info.apiKeys.analyst,
        CELLBOUND_DATA_URL: env().platform.info.dataUrl,
      },
    });
    expect(code, out).toBe(0);
    const result = JSON.parse(out) as { files: Array<{ saved: boolean; placements: Array<{ outcome: string }> }> };
    expect(result.files[0]!.placements.map((p) => p.outcome)).toEqual(["unchanged", "unchanged"]);
    expect(result.files[0]!.saved).toBe(false);
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
    // The file port and the harness see the pane's sheet ids.
    expect(XlsxPort.open(file).wb.sheets.map((s) => s.id)).toEqual(wb.sheets.map((s) => s.id));
    expect(DevWorkbook.restore(xlsxToSnapshot(readFileSync(file), "Harness.xlsx")).sheets.map((s) => s.id)).toEqual(
      wb.sheets.map((s) => s.id),
    );
  });
});
