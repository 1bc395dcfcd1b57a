// Notes on cells (issue 35 §3, src/host/xlsx/notes.ts): a note the engine leaves on an area's cells is saved
// with the sheet part and believed after the next open only while nothing could have changed those cells.
import { readFileSync, writeFileSync } from "node:fs";
import type { Area } from "../../../src/host/port.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { GROUPS } from "../../../src/host/xlsx/rewrite.ts";
import { notesExtra, readNotes } from "../../../src/host/xlsx/notes.ts";
import { SheetStore } from "../../../src/host/xlsx/store.ts";
import { ZipReader, writeZip, type ZipOut } from "../../../src/host/xlsx/zip.ts";
import { patchPackage, tempDir } from "./support.ts";

const tmp = tempDir("cb-notes-");
afterAll(() => tmp.remove());

/** A workbook with values in Sheet1!A1:C4 and a note "n1" on A2:C4 (rows 1–3), saved. */
function noted(name: string): { file: string; area: Area } {
  const file = tmp.file(name);
  const port = XlsxPort.open(file, { create: "Sheet1" });
  const id = port.wb.sheets[0]!.id;
  for (let r = 0; r < 4; r++) for (let c = 0; c < 3; c++) port.wb.userEdit(id, r, c, r === 0 ? `Title ${c}` : r * 10 + c);
  port.save(); // the sheet as another run left it
  const again = XlsxPort.open(file, { checkData: false });
  const area = { sheetId: id, row: 1, col: 0, rows: 3, cols: 3 };
  again.noteCells(area, "n1");
  again.wb.userEdit(id, 10, 0, "a cell in another row"); // the sheet part is written: the note goes with it
  again.save();
  return { file, area };
}

const storeOf = (port: XlsxPort) => port.wb.sheets[0]!.cells as SheetStore;

describe("notes on cells (issue 35 §3)", () => {
  it("a note is saved with the sheet part and given back after the next open without reading the sheet", () => {
    const { file, area } = noted("kept.xlsx");
    const port = XlsxPort.open(file, { checkData: false });
    expect(port.cellsNote(area)).toBe("n1");
    expect(port.cellsNote({ ...area, rows: 2 })).toBeNull(); // only for exactly the area noted
    expect(storeOf(port).isLoaded).toBe(false); // the part was not scanned
    expect(port.wb.sheets[0]!.cells.get(2)?.get(1)?.v).toBe(21); // and reads as before when asked
  });

  it("a cell changed in another row keeps the note, through a save; one changed in its rows drops it", () => {
    const { file, area } = noted("edited.xlsx");
    const port = XlsxPort.open(file, { checkData: false });
    port.wb.userEdit(area.sheetId, 6, 1, "elsewhere");
    expect(port.cellsNote(area)).toBe("n1");
    port.save();
    const next = XlsxPort.open(file, { checkData: false });
    expect(next.cellsNote(area)).toBe("n1");
    next.wb.userEdit(area.sheetId, 2, 7, "same row, outside the area"); // conservative: a row of the area changed
    expect(next.cellsNote(area)).toBeNull();
    next.save();
    expect(XlsxPort.open(file, { checkData: false }).cellsNote(area)).toBeNull();
  });

  it("a value typed into the area and saved drops the note; the cells read as typed", () => {
    const { file, area } = noted("typed.xlsx");
    const port = XlsxPort.open(file, { checkData: false });
    port.wb.userEdit(area.sheetId, 2, 1, 999);
    port.save();
    const next = XlsxPort.open(file, { checkData: false });
    expect(next.cellsNote(area)).toBeNull();
    expect(next.wb.sheets[0]!.cells.get(2)?.get(1)?.v).toBe(999);
  });

  it("rows inserted above drop the note (the cells moved)", () => {
    const { file, area } = noted("moved.xlsx");
    const port = XlsxPort.open(file, { checkData: false });
    port.wb.insertRows(area.sheetId, 0, 1);
    expect(port.cellsNote(area)).toBeNull();
    expect(port.cellsNote({ ...area, row: area.row + 1 })).toBeNull();
  });

  it("a sheet part another program changed keeps no note, even with the field copied over (its CRC and size differ)", () => {
    const { file, area } = noted("other.xlsx");
    const z = new ZipReader(file, readFileSync(file));
    const parts: ZipOut[] = z.entries.map((e) =>
      e.name === "xl/worksheets/sheet1.xml"
        ? { name: e.name, data: Buffer.from(z.text(e.name).replace("<v>21</v>", "<v>22</v>"), "utf8"), extra: () => e.extra }
        : { name: e.name, from: e },
    );
    writeFileSync(file, writeZip(z.bytes, parts));
    const port = XlsxPort.open(file, { checkData: false });
    expect(new ZipReader(file, readFileSync(file)).entry("xl/worksheets/sheet1.xml")!.extra.length).toBeGreaterThan(0);
    expect(port.cellsNote(area)).toBeNull();
    expect(port.wb.sheets[0]!.cells.get(2)?.get(1)?.v).toBe(22);
  });

  it("shared strings or the date system changed keep no note (the cells would read otherwise)", () => {
    const { file, area } = noted("strings.xlsx");
    const z = new ZipReader(file, readFileSync(file));
    const sst =
      '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>x</t></si></sst>';
    const rels = z.text("xl/_rels/workbook.xml.rels");
    const types = z.text("[Content_Types].xml");
    const hasSst = z.has("xl/sharedStrings.xml");
    const parts: ZipOut[] = z.entries.map((e) =>
      e.name === "xl/sharedStrings.xml"
        ? { name: e.name, data: Buffer.from(sst, "utf8") }
        : e.name === "xl/_rels/workbook.xml.rels" && !hasSst
          ? {
              name: e.name,
              data: Buffer.from(
                rels.replace(
                  "</Relationships>",
                  '<Relationship Id="rIdSst" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
                ),
              ),
            }
          : e.name === "[Content_Types].xml" && !hasSst
            ? {
                name: e.name,
                data: Buffer.from(
                  types.replace(
                    "</Types>",
                    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
                  ),
                ),
              }
            : { name: e.name, from: e },
    );
    if (!hasSst) parts.push({ name: "xl/sharedStrings.xml", data: Buffer.from(sst, "utf8") });
    writeFileSync(file, writeZip(z.bytes, parts));
    expect(XlsxPort.open(file, { checkData: false }).cellsNote(area)).toBeNull();

    const { file: f2, area: a2 } = noted("1904.xlsx");
    const z2 = new ZipReader(f2, readFileSync(f2));
    const wb = z2.text("xl/workbook.xml");
    const with1904 = wb.includes("<workbookPr")
      ? wb.replace("<workbookPr", '<workbookPr date1904="1"')
      : wb.replace("<sheets>", '<workbookPr date1904="1"/><sheets>');
    writeFileSync(
      f2,
      writeZip(
        z2.bytes,
        z2.entries.map((e) =>
          e.name === "xl/workbook.xml" ? { name: e.name, data: Buffer.from(with1904, "utf8") } : { name: e.name, from: e },
        ),
      ),
    );
    const port = XlsxPort.open(f2, { checkData: false });
    expect(port.date1904).toBe(true);
    expect(port.cellsNote(a2)).toBeNull();
  });

  it("a noted part is read a group at a time: its note says its dynamic-array formulas, so a write check reads no cells", async () => {
    const file = tmp.file("spill.xlsx");
    const port = XlsxPort.open(file, { create: "Sheet1" });
    const id = port.wb.sheets[0]!.id;
    for (let r = 0; r < 4; r++) for (let c = 0; c < 3; c++) port.wb.userEdit(id, r, c, r * 10 + c);
    port.save();
    // A formula Excel wrote, spilling into E3:E9 (the port itself never writes one).
    patchPackage(file, (part, text) =>
      part === "xl/worksheets/sheet1.xml"
        ? text.replace(
            "</sheetData>",
            '<row r="12"><c r="E12" cm="1"><f t="array" ref="E12:E18">SEQUENCE(7)</f><v>1</v></c></row></sheetData>',
          )
        : undefined,
    );
    const scanned = XlsxPort.open(file, { checkData: false }); // read whole: its spills are found
    const area = { sheetId: id, row: 1, col: 0, rows: 3, cols: 3 };
    scanned.noteCells(area, "n1");
    scanned.wb.userEdit(id, 30, 0, "another row"); // the part is written, with its note and its spills
    scanned.save();

    const next = XlsxPort.open(file, { checkData: false });
    expect(storeOf(next).segmented).toBe(true);
    const found = await next.obstacles({ sheetId: id, row: 13, col: 3, rows: 2, cols: 3 }); // D14:F15
    expect(found.map((o) => o.kind)).toContain("spill");
    expect(storeOf(next).segmentsRead).toBe(0); // from the note and the part's last group, no row read
    expect(await next.obstacles(area)).toEqual([]);
    expect(next.wb.sheets[0]!.cells.get(2)?.get(1)?.v).toBe(21); // and the cells read as before when asked
    expect(storeOf(next).segmentsRead).toBeGreaterThan(0);
  });

  it("a noted part whose group is damaged fails when that group is read, naming the part; the other groups read as before", () => {
    const was = GROUPS.bytes;
    GROUPS.bytes = 16_000;
    try {
      const file = tmp.file("damaged.xlsx");
      const port = XlsxPort.open(file, { create: "Sheet1" });
      const id = port.wb.sheets[0]!.id;
      for (let r = 0; r < 3000; r++) for (let c = 0; c < 4; c++) port.wb.userEdit(id, r, c, (r * 7919 + c * 104729) % 1000003);
      port.save();
      const again = XlsxPort.open(file, { checkData: false });
      const area = { sheetId: id, row: 0, col: 0, rows: 3000, cols: 4 };
      again.noteCells(area, "n1");
      again.wb.userEdit(id, 3100, 0, "another row");
      again.save();
      const e = new ZipReader(file, readFileSync(file)).entry("xl/worksheets/sheet1.xml")!;
      expect(e.groups!.length).toBeGreaterThan(4);
      // Flip a byte inside the compressed rows of the group holding row 2990 (zero-based), as a bad disk would.
      const groups = e.groups!;
      const k = groups.findLastIndex((g) => g.row >= 0 && g.row <= 2990);
      const bytes = Buffer.from(readFileSync(file));
      const start = e.offset + 30 + bytes.readUInt16LE(e.offset + 26) + bytes.readUInt16LE(e.offset + 28);
      const at = start + groups.slice(0, k).reduce((n, g) => n + g.compressedSize, 0) + 40;
      bytes[at] = bytes[at]! ^ 0x55;
      writeFileSync(file, bytes);
      const next = XlsxPort.open(file, { checkData: false });
      expect(next.cellsNote(area)).toBe("n1"); // the note is about the part as recorded: it spares a read, never a check
      expect(next.wb.sheets[0]!.cells.get(1)?.get(1)?.v).toBe((7919 + 104729) % 1000003); // a sound group reads as before
      expect(() => next.wb.sheets[0]!.cells.get(2990)).toThrow(/sheet1\.xml (fails its CRC check|does not inflate)/);
    } finally {
      GROUPS.bytes = was;
    }
  });

  it("a note's field that would pass 64 KiB with the part's spills keeps the notes and leaves the spills unsaid", () => {
    const basis = { crc: 1, size: 2, sst: null, date1904: false };
    const notes = Array.from({ length: 500 }, (_, i) => ({
      row: 1_000_000 + i,
      col: 16_000,
      rows: 1_000_000,
      cols: 16_000,
      note: "f".repeat(64),
    }));
    const spill = (i: number) => ({ anchor: `XFD${1_000_000 + i}`, ref: { row: 999_999 + i, col: 16_383, rows: 40, cols: 1 } });
    const many = readNotes(
      notesExtra(
        notes,
        basis,
        Array.from({ length: 500 }, (_, i) => spill(i)),
      ),
      basis,
    );
    expect(many.notes).toHaveLength(500);
    expect(many.spills).toBeNull(); // unsaid: the part is read whole when first looked at
    const few = readNotes(notesExtra(notes.slice(0, 3), basis, [spill(1)]), basis);
    expect(few.notes).toHaveLength(3);
    expect(few.spills).toEqual([spill(1)]);
  });
});
