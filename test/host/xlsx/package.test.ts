// The package layer: bad files are refused with a typed error naming the file and the cause, and left
// untouched; parts Cellbound does not edit are copied through byte for byte; a save that changes
// nothing does not touch the file; what is written is what a fresh port reads back.
import { copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import path from "node:path";
import { XlsxError } from "../../../src/host/xlsx/errors.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { ZipReader, writeZip } from "../../../src/host/xlsx/zip.ts";
import { saveAndReopen, tempDir } from "./support.ts";

const CORPUS = path.resolve(import.meta.dirname, "../../fixtures/xlsx-corpus");
const tmp = tempDir();
afterAll(() => tmp.remove());

/** Raw bytes of every entry (local header, data, descriptor) by name. */
function rawEntries(file: string): Map<string, Buffer> {
  const z = new ZipReader(file, readFileSync(file));
  return new Map(z.entries.map((e) => [e.name, z.bytes.subarray(e.offset, e.end)]));
}

async function aWorkbook(name: string): Promise<XlsxPort> {
  const port = XlsxPort.open(tmp.file(name), { create: "Data" });
  const [s] = await port.sheets();
  await port.write({ sheetId: s!.id, row: 0, col: 0 }, [
    ["Region", "Sales"],
    ["North", 10],
  ]);
  port.save();
  return XlsxPort.open(tmp.file(name));
}

describe("bad files: typed error naming the file and the cause; the file is untouched", () => {
  const cases: Array<[string, () => Buffer, RegExp, XlsxError["kind"]]> = [
    ["not a zip", () => Buffer.from("Region,Sales\nNorth,10\n"), /not an \.xlsx\/\.xlsm workbook/, "notZip"],
    [
      "a truncated zip",
      () => {
        const whole = readFileSync(path.join(CORPUS, "ExcelWorkbookWithContent.xlsx"));
        return whole.subarray(0, Math.floor(whole.length * 0.6));
      },
      /truncated/,
      "truncated",
    ],
    [
      "an encrypted workbook (OLE compound file)",
      () => Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(4096)]),
      /encrypted \(password-protected\)/,
      "encrypted",
    ],
    [
      "a zip bomb (a part that inflates 1000× past a megabyte)",
      () => writeZip(Buffer.alloc(0), [{ name: "xl/worksheets/sheet1.xml", data: Buffer.alloc(200 * 1024 * 1024) }]),
      /zip bomb/,
      "zipBomb",
    ],
    [
      "a zip bomb that lies about its size",
      () => {
        // A part that declares 100 bytes but inflates to 50 MB.
        const z = writeZip(Buffer.alloc(0), [{ name: "_rels/.rels", data: Buffer.alloc(100) }]);
        const big = deflateRawSync(Buffer.alloc(50 * 1024 * 1024));
        const e = new ZipReader("x", z).entries[0]!;
        const local = Buffer.from(z.subarray(0, 30 + e.name.length));
        local.writeUInt32LE(big.length, 18);
        const central = Buffer.from(e.central);
        central.writeUInt32LE(big.length, 20);
        central.writeUInt32LE(0, 42);
        const dir = Buffer.concat([central]);
        const end = Buffer.alloc(22);
        end.writeUInt32LE(0x06054b50, 0);
        end.writeUInt16LE(1, 8);
        end.writeUInt16LE(1, 10);
        end.writeUInt32LE(dir.length, 12);
        end.writeUInt32LE(local.length + big.length, 16);
        return Buffer.concat([local, big, dir, end]);
      },
      /does not inflate to its declared size/,
      "zipBomb",
    ],
  ];
  for (const [what, bytes, message, kind] of cases) {
    it(what, () => {
      const file = tmp.file(`bad-${kind}.xlsx`);
      writeFileSync(file, bytes());
      const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
      let err: unknown;
      try {
        XlsxPort.open(file);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(XlsxError);
      expect((err as XlsxError).kind).toBe(kind);
      expect((err as XlsxError).message).toMatch(message);
      expect((err as XlsxError).message.startsWith(`bad-${kind}.xlsx: `)).toBe(true);
      expect(readFileSync(file).equals(before.bytes)).toBe(true);
      expect(statSync(file).mtimeMs).toBe(before.mtime);
    });
  }

  it("a zip that is not a workbook (a Word document's package shape)", () => {
    const file = tmp.file("letter.xlsx");
    writeFileSync(file, writeZip(Buffer.alloc(0), [{ name: "word/document.xml", data: Buffer.from("<w:document/>") }]));
    expect(() => XlsxPort.open(file)).toThrow(/letter\.xlsx: it has no _rels\/\.rels/);
  });
});

describe("saving", () => {
  it("a save that changes nothing leaves the file alone (same bytes, same mtime)", async () => {
    const port = await aWorkbook("same.xlsx");
    const before = { bytes: readFileSync(port.file), mtime: statSync(port.file).mtimeMs };
    const [s] = await port.sheets();
    // Write exactly what is there.
    await port.write({ sheetId: s!.id, row: 0, col: 0 }, [
      ["Region", "Sales"],
      ["North", 10],
    ]);
    expect(port.pending()).toBe(false);
    expect(port.save()).toBeNull();
    expect(readFileSync(port.file).equals(before.bytes)).toBe(true);
    expect(statSync(port.file).mtimeMs).toBe(before.mtime);
  });

  it("only the edited parts change; every other entry keeps its bytes (local header and compressed data)", async () => {
    const file = tmp.file("content.xlsx");
    copyFileSync(path.join(CORPUS, "ExcelWorkbookWithContent.xlsx"), file);
    const before = rawEntries(file);
    const port = XlsxPort.open(file);
    const [s] = await port.sheets();
    await port.write({ sheetId: s!.id, row: 3, col: 1 }, [["Total", 12.5]], { columnFormats: [null, "#,##0.00"] });
    await port.track("CB_t1", { sheetId: s!.id, row: 3, col: 1, rows: 1, cols: 2 });
    await port.setData("cellbound.test", { a: 1 });
    const stats = port.save()!;
    const after = rawEntries(file);
    const edited = new Set(stats.partsChanged);
    expect([...edited].sort()).toEqual(
      [
        "[Content_Types].xml",
        "customXml/_rels/item1.xml.rels",
        "customXml/item1.xml",
        "customXml/itemProps1.xml",
        "xl/_rels/workbook.xml.rels",
        "xl/styles.xml",
        "xl/workbook.xml",
        "xl/worksheets/sheet.xml",
      ].sort(),
    );
    for (const [name, raw] of before) if (!edited.has(name)) expect(after.get(name)?.equals(raw), name).toBe(true);
    expect(after.has("xl/webextensions/webextension.xml")).toBe(true);
    // The drawing reference after sheetData is kept.
    expect(new ZipReader(file, readFileSync(file)).text("xl/worksheets/sheet.xml")).toMatch(/<x:drawing r:id="drawingPart"/);
    saveAndReopen(port);
  });

  it("rewrites only the cells that changed: other rows and cells keep their bytes, formulas elsewhere stay", async () => {
    const port = await aWorkbook("rows.xlsx");
    const [s] = await port.sheets();
    await port.write({ sheetId: s!.id, row: 5, col: 0 }, [["Other", 1, 2, 3]]);
    port.save();
    // Put a formula by hand (as Excel would have saved it) in row 6.
    const z = new ZipReader(port.file, readFileSync(port.file));
    const sheet = z.text("xl/worksheets/sheet1.xml").replace(/<c r="B6"><v>1<\/v><\/c>/, '<c r="B6"><f>SUM(B1:B2)</f><v>10</v></c>');
    writeFileSync(
      port.file,
      writeZip(
        z.bytes,
        z.entries.map((e) =>
          e.name === "xl/worksheets/sheet1.xml" ? { name: e.name, data: Buffer.from(sheet) } : { name: e.name, from: e },
        ),
      ),
    );
    const again = XlsxPort.open(port.file);
    await again.write({ sheetId: s!.id, row: 1, col: 1 }, [[11]]);
    again.save();
    const xml = new ZipReader(port.file, readFileSync(port.file)).text("xl/worksheets/sheet1.xml");
    expect(xml).toContain('<c r="B6"><f>SUM(B1:B2)</f><v>10</v></c>');
    expect(xml).toContain('<c r="B2"><v>11</v></c>');
    expect(new ZipReader(port.file, readFileSync(port.file)).text("xl/workbook.xml")).toMatch(/<calcPr[^>]*fullCalcOnLoad="1"/);
  });
});

describe("sheet ids", () => {
  it("issue 35 §4: a sheet the port adds has, from the start, the id the next run reads (records need no renumbering)", async () => {
    const port = await aWorkbook("added.xlsx");
    const added = port.wb.addSheet("Added");
    await port.write({ sheetId: added.id, row: 0, col: 0 }, [["x"]]);
    port.save();
    expect(added.id).toBe("xlsx-2");
    expect(XlsxPort.open(port.file).wb.sheets.map((s) => [s.id, s.name])).toEqual([
      ["xlsx-1", "Data"],
      ["xlsx-2", "Added"],
    ]);
  });
});
