// Issue 35 §3: a sheet part is scanned while it inflates, a piece at a time, and never held whole. The
// piece scanner reads every part as the whole-part scanner does wherever the pieces are cut; the port's
// open inflates no large sheet part in one buffer; the pieces are checked (size, CRC) as read() checks.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { vi } from "vitest";
import { XlsxError } from "../../../src/host/xlsx/errors.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { PieceScanner, rowsIn, scanCells, sheetDataIn, type CellSink } from "../../../src/host/xlsx/scan.ts";
import { ZipReader } from "../../../src/host/xlsx/zip.ts";
import { tempDir } from "./support.ts";

const tmp = tempDir("cb-pieces-");
afterAll(() => tmp.remove());

const CORPORA = [
  path.resolve(import.meta.dirname, "../../fixtures/xlsx-corpus"),
  path.resolve(import.meta.dirname, "../../../../shared/fixtures/xlsx-excel"),
];
const WORKBOOKS = CORPORA.filter((d) => existsSync(d)).flatMap((d) =>
  readdirSync(d)
    .filter((f) => /\.xls[xm]$/.test(f))
    .map((f) => path.join(d, f)),
);

/** A sink that writes down every call. */
const recorder = (into: unknown[]): CellSink => ({
  cell: (...a) => void into.push(["cell", ...a]),
  spill: (...a) => void into.push(["spill", ...a]),
});

/** What the load read of a part before issue 35 §3's pieces: the whole part scanned at once. */
function whole(buf: Buffer) {
  const calls: unknown[] = [];
  const span = sheetDataIn(buf);
  const prefix = buf.toString("utf8", 0, span?.start ?? Math.min(buf.length, 65_536));
  if (span) for (const row of rowsIn(buf, span)) scanCells(buf, row, recorder(calls), span.p);
  return { prefix, suffix: span ? buf.toString("utf8", span.end) : "", calls, cells: span !== null };
}

/** The same part handed to PieceScanner in pieces of `size` bytes. */
function inPieces(buf: Buffer, size: number) {
  const calls: unknown[] = [];
  const prefixes: string[] = [];
  const scanner = new PieceScanner((prefix) => (prefixes.push(prefix), recorder(calls)));
  for (let at = 0; at < buf.length; at += size) scanner.push(buf.subarray(at, at + size));
  const out = scanner.end();
  if (out.cells && prefixes.length) expect(prefixes).toEqual([out.prefix]);
  return { prefix: out.prefix, suffix: out.suffix, calls: out.cells ? calls : [], cells: out.cells };
}

const sheetXml = (data: string, p = "") =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><${p}worksheet xmlns${p ? `:${p.slice(0, -1)}` : ""}="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
      `<${p}dimension ref="A1:C3"/><${p}sheetViews><${p}sheetView workbookViewId="0"><${p}pane ySplit="1" state="frozen"/></${p}sheetView></${p}sheetViews>` +
      `${data}<${p}mergeCells count="1"><${p}mergeCell ref="E1:F2"/></${p}mergeCells></${p}worksheet>`,
    "utf8",
  );

describe("issue 35 item 3: a sheet part scanned in pieces", () => {
  it("reads every part as the whole-part scan does, wherever the pieces are cut", () => {
    const rows = `<row r="1"><c r="A1" t="inlineStr"><is><t>Grüße 日本 😀</t></is></c><c r="B1"><v>1.5</v></c></row><row><c t="b"><v>1</v></c></row><row r="7" spans="1:3"/><row r="9"><c r="C9" cm="1"><f t="array" ref="C9:C11">SEQUENCE(3)</f><v>1</v></c></row>`;
    const parts: Buffer[] = [
      sheetXml(`<sheetData>${rows}</sheetData>`),
      sheetXml(`<x:sheetData>${rows.replace(/<(\/?)(row|c|is|t|v|f)\b/g, "<$1x:$2")}</x:sheetData>`, "x:"),
      sheetXml("<sheetData/>"),
      sheetXml('<sheetData  foo="a>b">' + rows + "</sheetData>"),
      sheetXml(`<sheetData>${rows}`), // never closed: no cells, as before
      sheetXml(""), // no sheetData
      sheetXml(`<sheetData>${rows.repeat(400)}</sheetData>${"<!-- after -->".repeat(10_000)}`), // ends inside a piece's first bytes
    ];
    for (const file of WORKBOOKS) {
      const z = new ZipReader(file, readFileSync(file));
      for (const e of z.entries) if (/^xl\/worksheets\/[^/]+\.xml$/.test(e.name)) parts.push(z.read(e.name));
    }
    for (const buf of parts) {
      const want = whole(buf);
      const sizes = buf.length < 200_000 ? [1, 7, 100, 4096, 70_000, buf.length] : [4096, 65_536, 70_000, 1 << 20];
      for (const size of sizes) expect(inPieces(buf, size), `${buf.length} bytes in pieces of ${size}`).toEqual(want);
    }
    expect(parts.length).toBeGreaterThan(10);
  });

  it(
    "the port's open inflates no large sheet part it wrote in groups whole; the cells are the ones written",
    { timeout: 120_000 },
    async () => {
      const file = await large();
      expect(new ZipReader(file, readFileSync(file)).entries.find((e) => e.name === PART)!.groups!.length).toBeGreaterThan(2);
      const read = vi.spyOn(ZipReader.prototype, "read");
      try {
        const again = XlsxPort.open(file);
        expect(read.mock.calls.filter(([name]) => name === PART)).toEqual([]);
        const id = again.wb.sheets[0]!.id;
        const got: unknown[][] = [];
        for await (const block of again.read({ sheetId: id, row: 0, col: 0, rows: ROWS, cols: 20 })) got.push(...block);
        expect(got).toEqual(Array.from({ length: ROWS }, (_, r) => rowOf(r)));
      } finally {
        read.mockRestore();
      }
    },
  );

  it("a part whose pieces fail its CRC or size is refused as read() refuses it", { timeout: 120_000 }, async () => {
    const good = new ZipReader("book.xlsx", readFileSync(await large()));
    expect(Buffer.concat([...good.pieces(PART)]).equals(good.read(PART))).toBe(true);
    const errorOf = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e as XlsxError;
      }
      throw new Error("no error");
    };
    const e = good.entries.find((x) => x.name === PART)!;
    const at = e.central.byteOffset - good.bytes.byteOffset;
    const cases: Array<[number, (v: number) => number, RegExp]> = [
      [16, (crc) => (crc ^ 1) >>> 0, /fails its CRC check/],
      [24, (size) => size + 1, /has \d+ bytes, its header says/],
      [24, (size) => size - 1, /does not inflate to its declared size/],
    ];
    for (const [field, change, message] of cases) {
      const bad = Buffer.from(good.bytes);
      bad.writeUInt32LE(change(bad.readUInt32LE(at + field)), at + field);
      const z = new ZipReader("book.xlsx", bad);
      const byPieces = errorOf(() => [...z.pieces(PART)]);
      const byRead = errorOf(() => z.read(PART));
      expect(byPieces).toBeInstanceOf(XlsxError);
      expect(byPieces.message).toMatch(message);
      expect(byRead.message).toMatch(message);
      expect(byPieces.kind).toBe(byRead.kind);
    }
  });
});

const PART = "xl/worksheets/sheet1.xml";
const ROWS = 30_000;
const rowOf = (r: number) => Array.from({ length: 20 }, (_, c) => (c === 1 ? `ref-${r} é` : r * 20 + c + 0.25));
let largeFile: string | null = null;
/** A workbook whose 30,000 × 20 sheet the port wrote (its part deflated in groups). */
async function large(): Promise<string> {
  if (largeFile) return largeFile;
  const file = tmp.file("large.xlsx");
  const port = XlsxPort.open(file, { create: "Data" });
  await port.write(
    { sheetId: port.wb.sheets[0]!.id, row: 0, col: 0 },
    Array.from({ length: ROWS }, (_, r) => rowOf(r)),
  );
  port.save();
  return (largeFile = file);
}
