// The file port's bounded-memory machinery (issue 35 §3): the byte scanner reads every workbook as the
// string scanner does, its fast path as its general reader does; the compact store behaves as the
// memory port's Map of rows; a save compares only the rows the model touched and copies the others'
// bytes; a part deflated in pieces inflates to what was handed in.
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { constants, crc32, inflateRawSync } from "node:zlib";
import path from "node:path";
import type { SheetValue } from "../../../src/host/port.ts";
import { sharedStrings } from "../../../src/host/xlsx/book.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { GROUPS } from "../../../src/host/xlsx/rewrite.ts";
import { Kind, rowsIn, scanCells, seekRow, sheetDataIn, valueOf, type CellSink } from "../../../src/host/xlsx/scan.ts";
import { scanRows, toModel, type ModelCell } from "../../../src/host/xlsx/sheet.ts";
import { SheetStore, StoreBuilder } from "../../../src/host/xlsx/store.ts";
import { MINIMAL_STYLES, Styles } from "../../../src/host/xlsx/styles.ts";
import { PartDeflater, ZipReader } from "../../../src/host/xlsx/zip.ts";
import { HOSTILE_STRINGS } from "../fixtures/hostile-strings.ts";
import { patchPackage, tempDir } from "./support.ts";

const tmp = tempDir("cb-store-");
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

/** Every cell of a sheet part as the string scanner reads it, with the load's rules (what the port held before issue 35 §3). */
function byStrings(xml: string, sst: string[], styles: Styles, date1904: boolean): Array<[number, number, SheetValue, string | null]> {
  const out: Array<[number, number, SheetValue, string | null]> = [];
  for (const row of scanRows(xml, sst))
    for (const c of row.cells) {
      const st = styles.style(c.s);
      if (c.value === "" && st.nf === null && !st.bold && st.fill === undefined) continue;
      out.push([row.row, c.col, c.iso ? c.value : toModel(c.value, st.nf, date1904), st.nf]);
    }
  return out;
}

describe("issue 35 §3: the byte scanner", () => {
  it(`reads every sheet of ${WORKBOOKS.length} workbooks as the string scanner does`, () => {
    expect(WORKBOOKS.length).toBeGreaterThan(4);
    for (const file of WORKBOOKS) {
      const port = XlsxPort.open(file, { checkData: false });
      const z = new ZipReader(file, readFileSync(file));
      const sst = z.has("xl/sharedStrings.xml") ? sharedStrings(z.text("xl/sharedStrings.xml")) : [];
      const styles = new Styles(z.has("xl/styles.xml") ? z.text("xl/styles.xml") : MINIMAL_STYLES);
      const wbXml = z.text("xl/workbook.xml");
      const date1904 = /date1904="(1|true)"/.test(wbXml);
      const parts = z.entries.map((e) => e.name).filter((n) => /^xl\/worksheets\/[^/]+\.xml$/.test(n));
      for (const part of parts) {
        const want = byStrings(z.text(part), sst, styles, date1904);
        // The sheet whose cells are these (the port's sheets in workbook order, parts in name order: match by content).
        const got = port.wb.sheets.map((s) =>
          [...s.cells]
            .sort(([a], [b]) => a - b)
            .flatMap(([r, row]) =>
              [...row].sort(([a], [b]) => a - b).map(([c, cell]) => [r, c, cell.v, cell.nf] as [number, number, SheetValue, string | null]),
            ),
        );
        expect(
          got.some((g) => JSON.stringify(g) === JSON.stringify(want)),
          `${path.basename(file)} ${part}`,
        ).toBe(true);
      }
    }
  });

  it("its fast path reads every cell shape as its general reader does", () => {
    const texts = [
      ...HOSTILE_STRINGS.filter((s) => typeof s === "string" && s.length < 200),
      "  spaced  ",
      "a&amp;b",
      "x_x0041_y",
      "tab\there",
    ];
    const esc = (s: string) =>
      s
        .replace(/&(?!amp;)/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;");
    const cells = [
      '<c r="A1"><v>1</v></c>',
      '<c r="B1" s="2"><v>-12.5</v></c>',
      '<c r="C1"><v>1.2345678901234567</v></c>',
      '<c r="D1"><v>1E-7</v></c>',
      '<c r="E1"><v>007.10</v></c>',
      '<c r="F1" t="s"><v>1</v></c>',
      '<c r="G1" t="b"><v>1</v></c>',
      '<c r="H1" t="b"><v>0</v></c>',
      '<c r="I1" t="b"/>',
      '<c r="J1" s="3"/>',
      '<c r="K1"><f>SUM(A1:B1)</f><v>3</v></c>',
      '<c r="L1" t="str"><f>"a"&amp;"b"</f><v>ab</v></c>',
      '<c r="M1" t="e"><v>#N/A</v></c>',
      '<c r="N1" t="d"><v>2024-01-02T12:00:00</v></c>',
      '<c r="O1" t="s"><v></v></c>',
      '<c r="P1"><v></v></c>',
      '<c r = "Q1" s = "1" ><v>4</v></c>',
      '<c r="R1" cm="1"><f t="array" ref="R1:R3">SEQUENCE(3)</f><v>1</v></c>',
      '<c r="S1" t="inlineStr"><is><r><t>rich</t></r><r><t xml:space="preserve"> text</t></r></is></c>',
      '<c r="T1" t="inlineStr"><is><t>base</t><rPh sb="0" eb="1"><t>phonetic</t></rPh></is></c>',
      "<c><v>5</v></c>",
      '<c r="AB1"><v>0.1</v></c>',
      ...texts.map(
        (t, i) =>
          `<c r="${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26) + 2}" t="inlineStr"><is><t xml:space="preserve">${esc(t)}</t></is></c>`,
      ),
    ];
    const xml = `<worksheet><sheetData><row r="1">${cells.join("")}</row></sheetData></worksheet>`;
    const buf = Buffer.from(xml, "utf8");
    const span = sheetDataIn(buf)!;
    const collect = (p: string) => {
      const out: unknown[] = [];
      const sink: CellSink = {
        cell: (row, col, s, kind, num, text, formula) =>
          out.push([row, col, s, valueOf(kind, num, text, ["zero", "one"]), kind === Kind.Empty, formula]),
        spill: (row, col, ref) => out.push(["spill", row, col, ref]),
      };
      for (const row of rowsIn(buf, span)) scanCells(buf, row, sink, p);
      return out;
    };
    const general = collect("(general)");
    expect(collect("")).toEqual(general);
    expect(general).toContainEqual(["spill", 0, 17, "R1:R3"]);
    expect(general).toContainEqual([0, 18, 0, "rich text", false, false]);
    expect(general).toContainEqual([0, 19, 0, "base", false, false]);
  });

  it("seekRow finds where a row starts without reading the rows before it", () => {
    const rows = Array.from({ length: 20_000 }, (_, r) => `<row r="${r + 1}" spans="1:2"><c r="A${r + 1}"><v>${r}</v></c></row>`);
    const buf = Buffer.from(`<worksheet><sheetData>${rows.join("")}</sheetData></worksheet>`);
    const span = sheetDataIn(buf)!;
    for (const target of [0, 1, 5_000, 19_998, 19_999, 25_000]) {
      const at = seekRow(buf, span, target);
      const first = [...rowsIn(buf, span, at.from, at.before)].find((r) => r.row >= target);
      expect(first?.row ?? null).toBe(target < 20_000 ? target : null);
      expect(at.from === span.inner || buf.toString("latin1", at.from, at.from + 4) === "<row").toBe(true);
    }
  });
});

describe("issue 35 §3: the compact store is the memory port's Map of rows", () => {
  const styles = new Styles(MINIMAL_STYLES);
  const ctx = { sst: ["s0"], style: (s: number) => styles.style(s), date1904: false };
  function store(): { store: SheetStore; plain: Map<number, Map<number, ModelCell>> } {
    const b = new StoreBuilder(ctx, 4);
    const plain = new Map<number, Map<number, ModelCell>>();
    const put = (r: number, c: number, v: SheetValue) => {
      if (!plain.has(r)) plain.set(r, new Map());
      plain.get(r)!.set(c, { v, nf: null });
    };
    for (const r of [0, 2, 3, 7])
      for (const c of [1, 2, 5]) {
        const v = r * 10 + c;
        if (c === 2) {
          b.cell(r, c, 0, Kind.Text, 0, `t${v}`, false);
          put(r, c, `t${v}`);
        } else {
          b.cell(r, c, 0, Kind.Number, v, null, false);
          put(r, c, v);
        }
      }
    b.cell(9, 0, 0, Kind.Empty, 0, null, false); // shows nothing: not a cell
    b.cell(9, 1, 0, Kind.Shared, 0, null, false);
    put(9, 1, "s0");
    return { store: b.build(), plain };
  }
  const dump = (m: Map<number, Map<number, ModelCell>>) =>
    [...m].map(([r, row]) => [r, [...row].sort(([a], [b]) => a - b)] as const).sort(([a], [b]) => a - b);

  it("reads, iterates and counts as the plain Map; iteration hands out copies; get() the live row", () => {
    const { store: s, plain } = store();
    expect(dump(s)).toEqual(dump(plain));
    expect(s.size).toBe(plain.size);
    expect(s.has(3)).toBe(true);
    expect(s.has(4)).toBe(false);
    expect(s.dirty.size).toBe(0);
    for (const [, row] of s) row.set(99, { v: "lost", nf: null });
    expect(s.peek(0, 99)).toBeUndefined();
    s.get(3)!.set(99, { v: "kept", nf: null });
    expect(s.peek(3, 99)?.v).toBe("kept");
    expect([...s.dirty]).toEqual([3]);
    const out: SheetValue[] = [];
    s.readRow(3, 0, 6, out);
    expect(out).toEqual(["", 31, "t32", "", "", 35]);
    expect(s.usedIn(0, 100, 0, 100)).toEqual({ row: 0, col: 1, rows: 10, cols: 99 });
    expect(s.usedIn(4, 6, 0, 100)).toBeNull();
  });

  it("delete, set and clear are the Map's; bounds follow them", () => {
    const { store: s } = store();
    expect(s.delete(2)).toBe(true);
    expect(s.delete(4)).toBe(false);
    expect(s.has(2)).toBe(false);
    s.set(12, new Map([[0, { v: 1, nf: null }]]));
    expect(s.bounds()).toEqual({ r0: 0, r1: 12, c0: 0, c1: 5 });
    expect([...s.dirty].sort((a, b) => a - b)).toEqual([2, 12]);
    s.clear();
    expect(s.size).toBe(0);
    expect([...s]).toEqual([]);
    expect(s.bounds()).toBeNull();
  });
});

describe("issue 35 §3: a store read a segment at a time", () => {
  const styles = new Styles(MINIMAL_STYLES);
  const ctx = { sst: ["s0"], style: (s: number) => styles.style(s), date1904: false };
  type Cells = Array<[number, number, number | string]>;
  const baseOf = (cells: Cells) => {
    const b = new StoreBuilder(ctx, 4);
    for (const [r, c, v] of cells)
      if (typeof v === "string") b.cell(r, c, 0, Kind.Text, 0, v, false);
      else b.cell(r, c, 0, Kind.Number, v, null, false);
    return b.base();
  };
  const cellsArb = fc
    .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 6 })), {
      selector: ([r, c]) => `${r}:${c}`,
      maxLength: 120,
    })
    .map((keys) =>
      keys
        .sort(([r1, c1], [r2, c2]) => r1 - r2 || c1 - c2)
        .map(([r, c]): [number, number, number | string] => [r, c, (r * 7 + c) % 3 ? r * 10 + c : `t${r}.${c}`]),
    );
  const opArb = fc.oneof(
    fc.record({ k: fc.constant("read" as const), r: fc.integer({ min: 0, max: 64 }) }),
    fc.record({ k: fc.constant("peek" as const), r: fc.integer({ min: 0, max: 64 }), c: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ k: fc.constant("has" as const), r: fc.integer({ min: 0, max: 64 }) }),
    fc.record({ k: fc.constant("get" as const), r: fc.integer({ min: 0, max: 64 }) }),
    fc.record({ k: fc.constant("set" as const), r: fc.integer({ min: 0, max: 64 }) }),
    fc.record({ k: fc.constant("delete" as const), r: fc.integer({ min: 0, max: 64 }) }),
    fc.record({ k: fc.constant("used" as const), r: fc.integer({ min: 0, max: 64 }), n: fc.integer({ min: 0, max: 20 }) }),
  );
  type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
  const run = (st: SheetStore, op: Op): unknown => {
    switch (op.k) {
      case "read": {
        const out: SheetValue[] = [];
        st.readRow(op.r, 0, 8, out);
        return out;
      }
      case "peek":
        return st.peek(op.r, op.c)?.v;
      case "has":
        return st.has(op.r);
      case "get":
        return st.get(op.r) ? [...st.get(op.r)!].map(([c, x]) => [c, x.v]) : null;
      case "set":
        return void st.set(op.r, new Map([[3, { v: `new${op.r}`, nf: null }]]));
      case "delete":
        return st.delete(op.r);
      case "used":
        return st.usedIn(op.r, op.r + op.n, 0, 7);
    }
  };

  it("answers every read and change as the store read whole does, reading only the segments of the rows looked at", () => {
    fc.assert(
      fc.property(
        cellsArb,
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 6 }),
        fc.array(opArb, { maxLength: 25 }),
        (cells, cuts, ops) => {
          const starts = [0, ...cuts.sort((a, b) => a - b)];
          const segment = (k: number) => cells.filter(([r]) => r >= starts[k]! && (k + 1 >= starts.length || r < starts[k + 1]!));
          const reads: number[] = [];
          const whole = new SheetStore(baseOf(cells), ctx);
          const parts = new SheetStore({ starts, read: (k) => (reads.push(k), baseOf(segment(k))) }, ctx);
          for (const op of ops) expect(run(parts, op)).toEqual(run(whole, op));
          // A segment is read once, and only when one of its rows was looked at (an empty one may never be).
          expect(new Set(reads).size).toBe(reads.length);
          expect(parts.segmentsRead).toBe(reads.length);
          const bounds = whole.bounds();
          expect(dumpOf(parts)).toEqual(dumpOf(whole)); // iterating reads the rest
          expect(parts.isLoaded).toBe(true);
          expect(parts.bounds()).toEqual(bounds);
          expect([...parts.dirty].sort((a, b) => a - b)).toEqual([...whole.dirty].sort((a, b) => a - b));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a segment not looked at is not read: a row's reads and writes read its own segment only", () => {
    const cells: Cells = Array.from({ length: 40 }, (_, r) => [r, 0, r] as [number, number, number]);
    const reads: number[] = [];
    const st = new SheetStore(
      { starts: [0, 10, 20, 30], read: (k) => (reads.push(k), baseOf(cells.filter(([r]) => r >= k * 10 && r < k * 10 + 10))) },
      ctx,
    );
    expect(st.segmented).toBe(true);
    expect(st.peek(35, 0)?.v).toBe(35);
    st.get(36)!.set(1, { v: "x", nf: null });
    expect(st.usedIn(31, 33, 0, 5)).toEqual({ row: 31, col: 0, rows: 3, cols: 1 });
    expect(reads).toEqual([3]);
    expect(st.bounds()).toEqual({ r0: 30, r1: 39, c0: 0, c1: 1 }); // of what was read: the save keeps the part's <dimension> extent
    expect(st.isLoaded).toBe(false);
  });
});
const dumpOf = (m: Map<number, Map<number, ModelCell>>) =>
  [...m]
    .map(([r, row]) => [r, [...row].map(([c, x]) => [c, x.v]).sort(([a], [b]) => (a as number) - (b as number))] as const)
    .sort(([a], [b]) => a - b);

describe("issue 35 §3: memory", () => {
  it("a 30,000 × 20 sheet is held in about 20 bytes a cell (cell objects in Maps took about 250)", { timeout: 120_000 }, () => {
    const file = tmp.file("wide.xlsx");
    const port = XlsxPort.open(file, { create: "Data" });
    port.save();
    const row = (r: number) =>
      `<row r="${r + 1}">${Array.from({ length: 20 }, (_, c) =>
        c === 1
          ? `<c r="B${r + 1}" t="inlineStr"><is><t>ref-${r}</t></is></c>`
          : `<c r="${String.fromCharCode(65 + c)}${r + 1}"><v>${r * 20 + c + 0.25}</v></c>`,
      ).join("")}</row>`;
    const rows = Array.from({ length: 30_000 }, (_, r) => row(r)).join("");
    patchPackage(file, (name, text) =>
      name === "xl/worksheets/sheet1.xml" ? text.replace("<sheetData/>", `<sheetData>${rows}</sheetData>`) : undefined,
    );
    const out = execFileSync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", path.join(import.meta.dirname, "memory-child.ts"), file],
      { encoding: "utf8" },
    );
    const { bytes, cells } = JSON.parse(out.trim().split("\n").pop()!) as { bytes: number; cells: number };
    expect(cells).toBe(600_000);
    expect(bytes / cells).toBeLessThan(40);
  });
});

describe("issue 35 §3: the save", () => {
  it("compares only the rows the model touched; every other row keeps its bytes; reading changes nothing", async () => {
    const file = tmp.file("rows.xlsx");
    const port = XlsxPort.open(file, { create: "Data" });
    const id = port.wb.sheets[0]!.id;
    await port.write(
      { sheetId: id, row: 0, col: 0 },
      Array.from({ length: 6000 }, (_, r) => [r, `row ${r}`, r / 7]),
    );
    port.save();
    const part = () => new ZipReader(file, readFileSync(file)).read("xl/worksheets/sheet1.xml");
    const before = part();

    const again = XlsxPort.open(file);
    for await (const _ of again.read({ sheetId: id, row: 0, col: 0, rows: 6000, cols: 3 })) void _;
    again.wb.sheets[0]!.cells.get(10); // handed out, not changed
    expect(again.save()).toBeNull();

    await again.write({ sheetId: id, row: 5990, col: 1 }, [["changed"], ["too"]]);
    await again.write({ sheetId: id, row: 7000, col: 0 }, [["new row"]]);
    const stats = again.save()!;
    expect(stats.cellsWritten).toBe(3);
    const after = part();
    const cut = before.indexOf('<row r="5991"');
    expect(after.subarray(before.indexOf("<sheetData>"), cut).equals(before.subarray(before.indexOf("<sheetData>"), cut))).toBe(true);
    expect(after.toString()).toContain('<c r="B5991" t="inlineStr"><is><t>changed</t></is></c>');
    expect(after.toString()).toMatch(/<row r="7001"><c r="A7001" t="inlineStr"><is><t>new row<\/t><\/is><\/c><\/row><\/sheetData>/);
    const reread = XlsxPort.open(file);
    expect(reread.wb.sheets[0]!.cells.get(5991)!.get(1)!.v).toBe("too");
    expect(reread.wb.sheets[0]!.cells.get(5000)!.get(2)!.v).toBe(Number((5000 / 7).toPrecision(15))); // 15 digits, as the memory port keeps them
  });

  it("a part deflated in pieces inflates to what was handed in, with its CRC and size, in groups that start with a row", () => {
    const d = new PartDeflater(1000);
    const pieces = Array.from({ length: 50 }, (_, i) => Buffer.from(`<row r="${i + 1}">${"x".repeat(i * 37)}</row>`));
    pieces.forEach((p, i) => d.push(p, i));
    const out = d.finish();
    const whole = Buffer.concat(pieces);
    expect(inflateRawSync(Buffer.concat(out.chunks)).equals(whole)).toBe(true);
    expect(out.size).toBe(whole.length);
    expect(out.crc).toBe(crc32(whole) >>> 0);
    expect(out.chunks.length).toBeGreaterThan(5);
    // Each group inflates alone to a run of whole rows beginning with the row it names.
    for (const [i, g] of out.groups!.entries()) {
      const text = inflateRawSync(out.chunks[i]!, { finishFlush: constants.Z_SYNC_FLUSH }).toString();
      expect(text.length).toBe(g.size);
      expect(text.startsWith(`<row r="${g.row + 1}">`)).toBe(true);
    }
  });

  it("a later save inflates and deflates only the groups holding changed rows and copies the others compressed", async () => {
    const was = GROUPS.bytes;
    GROUPS.bytes = 16_000;
    try {
      const file = tmp.file("groups.xlsx");
      const port = XlsxPort.open(file, { create: "Data" });
      const id = port.wb.sheets[0]!.id;
      await port.write(
        { sheetId: id, row: 0, col: 0 },
        Array.from({ length: 6000 }, (_, r) => [r, `row ${r}`, r / 7]),
      );
      port.save();
      const entry = () => {
        const z = new ZipReader(file, readFileSync(file));
        const e = z.entry("xl/worksheets/sheet1.xml")!;
        return { e, data: z.compressed(e), text: z.read(e.name).toString() };
      };
      const before = entry();
      expect(before.e.groups!.length).toBeGreaterThan(10);
      expect(before.e.groups![0]!.row).toBe(-1);

      const again = XlsxPort.open(file);
      await again.write({ sheetId: id, row: 5990, col: 1 }, [["changed"], ["too"]]);
      await again.write({ sheetId: id, row: 7000, col: 0 }, [["new row"]]);
      await again.write({ sheetId: id, row: 3, col: 0 }, [["early"]]);
      expect(again.save()!.cellsWritten).toBe(4);
      const after = entry();
      // The new part is the old one with these rows changed …
      const want = XlsxPort.open(file, { checkData: false });
      expect(want.wb.sheets[0]!.cells.get(5991)!.get(1)!.v).toBe("too");
      expect(want.wb.sheets[0]!.cells.get(3)!.get(0)!.v).toBe("early");
      expect(want.wb.sheets[0]!.cells.get(7000)!.get(0)!.v).toBe("new row");
      expect(want.wb.sheets[0]!.cells.get(4)!.get(1)!.v).toBe("row 4");
      expect(after.text.match(/<row r="4"/g)).toHaveLength(1);
      expect(after.text.match(/<row r="5991"/g)).toHaveLength(1);
      expect(after.text.replace(/<dimension ref="[^"]*"/, "")).toBe(
        before.text
          .replace(/<dimension ref="[^"]*"/, "")
          .replace('<c r="A4"><v>3</v></c>', '<c r="A4" t="inlineStr"><is><t>early</t></is></c>')
          .replace(/<c r="B5991" t="inlineStr"><is><t>row 5990<\/t><\/is><\/c>/, '<c r="B5991" t="inlineStr"><is><t>changed</t></is></c>')
          .replace(/<c r="B5992" t="inlineStr"><is><t>row 5991<\/t><\/is><\/c>/, '<c r="B5992" t="inlineStr"><is><t>too</t></is></c>')
          .replace("</sheetData>", '<row r="7001"><c r="A7001" t="inlineStr"><is><t>new row</t></is></c></row></sheetData>'),
      );
      // … and the groups between the changed ones are the same compressed bytes.
      const slice = (x: typeof before, i: number) => {
        const off = x.e.groups!.slice(0, i).reduce((n, g) => n + g.compressedSize, 0);
        return x.data.subarray(off, off + x.e.groups![i]!.compressedSize);
      };
      const copied = before.e.groups!.map((_, i) => i).filter((i) => i > 1 && i < before.e.groups!.length - 2);
      expect(copied.length).toBeGreaterThan(5);
      for (const i of copied) expect(slice(after, i).equals(slice(before, i)), `group ${i}`).toBe(true);
    } finally {
      GROUPS.bytes = was;
    }
  });
});
