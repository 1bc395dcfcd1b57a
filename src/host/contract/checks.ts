// The SheetPort contract: named async checks with no test-framework imports, so the same list runs
// in vitest (node: memory port; browser: Office.js adapter on dev/excel) and inside real Excel
// (the task pane's hidden Diagnostics view). Each check gets a fresh scratch sheet.

import type { Area, SheetChange, SheetPort, SheetRef, SheetValue } from "../port.ts";
import { holdsFormula, type ContractDriver } from "./driver.ts";

export interface CheckContext {
  port: SheetPort;
  driver: ContractDriver;
  /** A scratch sheet created for this check and deleted after it. */
  sheet: SheetRef;
  hostileStrings: readonly string[];
}

export class CheckSkipped extends Error {
  override name = "CheckSkipped";
}

export interface ContractCheck {
  name: string;
  run(ctx: CheckContext): Promise<void>;
}

// ---- tiny assertion helpers ----------------------------------------------------------------
export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}
export function checkEqual(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual),
    e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${clip(e)}, got ${clip(a)}`);
}
async function checkRejects(p: Promise<unknown>, pattern: RegExp, what: string): Promise<void> {
  try {
    await p;
  } catch (e) {
    const msg = String((e as Error)?.message ?? e);
    check(pattern.test(msg), `${what}: error "${clip(msg)}" does not match ${pattern}`);
    return;
  }
  throw new Error(`${what}: expected an error, but it succeeded`);
}
function clip(s: string | undefined): string {
  return s === undefined ? "undefined" : s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

export async function readAll(port: SheetPort, area: Area, blockRows?: number): Promise<{ rows: SheetValue[][]; blocks: number }> {
  const rows: SheetValue[][] = [];
  let blocks = 0;
  for await (const block of port.read(area, blockRows === undefined ? {} : { blockRows })) {
    blocks++;
    rows.push(...block);
  }
  return { rows, blocks };
}

/** Listen for changes; `until` resolves with the first change matching pred (or fails after ms). */
async function listen(port: SheetPort): Promise<{
  seen: SheetChange[];
  until(pred: (c: SheetChange) => boolean, what: string, ms?: number): Promise<SheetChange>;
  stop(): Promise<void>;
}> {
  const seen: SheetChange[] = [];
  const stop = await port.onChange((c) => seen.push(c));
  return {
    seen,
    stop,
    async until(pred, what, ms = 3000) {
      const end = Date.now() + ms;
      for (;;) {
        const hit = seen.find(pred);
        if (hit) return hit;
        if (Date.now() > end) throw new Error(`no change event ${what} within ${ms} ms; saw ${clip(JSON.stringify(seen))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const at = (sheet: SheetRef, row: number, col: number) => ({ sheetId: sheet.id, row, col });
const area = (sheet: SheetRef, row: number, col: number, rows: number, cols: number): Area => ({ sheetId: sheet.id, row, col, rows, cols });

// ---- the checks ----------------------------------------------------------------------------
export const CONTRACT_CHECKS: readonly ContractCheck[] = [
  {
    name: 'write then read returns the same values; empty cells read as ""',
    async run({ port, sheet }) {
      const grid: SheetValue[][] = [
        ["id", "name", "amount", "ok"],
        [1, "Ada", 12.5, true],
        [2, "", -0.25, false],
        [3, "Zoë ✓ 日本", 1e-7, true],
      ];
      const stats = await port.write(at(sheet, 2, 1), grid);
      checkEqual([stats.rows, stats.cols, stats.cells], [4, 4, 16], "write stats");
      const { rows } = await readAll(port, area(sheet, 1, 0, 6, 6));
      const expected: SheetValue[][] = [["", "", "", "", "", ""]];
      for (const r of grid) expected.push(["", ...r, ""]);
      expected.push(["", "", "", "", "", ""]);
      checkEqual(rows, expected, "read back");
    },
  },
  {
    name: "numbers keep 15 significant digits",
    async run({ port, sheet }) {
      await port.write(at(sheet, 0, 0), [[123456789012345], [0.1 + 0.2], [1 / 3], [-9.99999999999999e307]]);
      const { rows } = await readAll(port, area(sheet, 0, 0, 4, 1));
      checkEqual(
        rows.map((r) => r[0]),
        [123456789012345, 0.3, 0.333333333333333, -9.99999999999999e307],
        "numbers",
      );
    },
  },
  {
    name: "read comes in row blocks, top to bottom",
    async run({ port, sheet }) {
      const grid = Array.from({ length: 250 }, (_, r) => [r, `row ${r}`]);
      const w = await port.write(at(sheet, 0, 0), grid, { onProgress: () => undefined });
      checkEqual(w.rows, 250, "rows written");
      const { rows, blocks } = await readAll(port, area(sheet, 0, 0, 250, 2), 100);
      checkEqual(blocks, 3, "blocks of 100 rows for 250 rows");
      checkEqual(rows, grid, "values");
    },
  },
  {
    name: "a write with chunk boundaries lands every value, each block ending on a boundary or at the end",
    async run({ port, sheet }) {
      const grid = Array.from({ length: 2500 }, (_, r) => [r, `row ${r} ${"x".repeat(r % 40)}`]);
      const breaks = [1000, 2000];
      const seen: number[] = [];
      await port.write(at(sheet, 0, 0), grid, { breakRows: breaks, onProgress: (done) => seen.push(done) });
      for (const done of seen)
        check(done === grid.length || breaks.includes(done), `a block ended at row ${done}, not on a chunk boundary`);
      const { rows } = await readAll(port, area(sheet, 0, 0, 2500, 2));
      checkEqual(rows, grid, "values");
    },
  },
  {
    name: "writing reports progress up to the total",
    async run({ port, sheet }) {
      const grid = Array.from({ length: 300 }, (_, r) => [r, r * 2, `x${r}`]);
      const seen: Array<[number, number]> = [];
      await port.write(at(sheet, 0, 0), grid, { onProgress: (done, total) => seen.push([done, total]) });
      check(seen.length >= 1, "onProgress was never called");
      checkEqual(seen[seen.length - 1], [300, 300], "last progress");
      for (let i = 1; i < seen.length; i++) check(seen[i]![0] > seen[i - 1]![0], "progress went backwards");
    },
  },
  {
    name: "hostile strings round-trip as the same text, with no formula in any cell",
    async run({ port, driver, sheet, hostileStrings }) {
      const grid = hostileStrings.map((s) => [s]);
      await port.write(at(sheet, 0, 0), grid);
      const a = area(sheet, 0, 0, grid.length, 1);
      const { rows } = await readAll(port, a);
      const wrong = rows.map((r, i) => [hostileStrings[i], r[0]] as const).filter(([w, g]) => w !== g);
      check(wrong.length === 0, `${wrong.length} strings changed, e.g. ${clip(JSON.stringify(wrong.slice(0, 5)))}`);
      const cells = await driver.inspect(a);
      const formulas = cells.formulas.map((r) => r[0]!).filter((f, i) => holdsFormula(f, rows[i]![0]!));
      checkEqual(formulas, [], "cells holding a formula");
      const nonText = cells.valueTypes.map((r, i) => [hostileStrings[i], r[0]] as const).filter(([, t]) => t !== "String");
      checkEqual(nonText, [], "cells that are not text");
    },
  },
  {
    name: "column number formats are applied",
    async run({ port, driver, sheet }) {
      await port.write(
        at(sheet, 0, 0),
        [
          [45292, "a"],
          [45293, "b"],
        ],
        { columnFormats: ["yyyy-mm-dd", null] },
      );
      const cells = await driver.inspect(area(sheet, 0, 0, 2, 1));
      checkEqual(cells.numberFormats, [["yyyy-mm-dd"], ["yyyy-mm-dd"]], "number formats");
      checkEqual(cells.values, [[45292], [45293]], "values stay serial numbers");
    },
  },
  {
    name: "clear empties values",
    async run({ port, sheet }) {
      await port.write(at(sheet, 0, 0), [
        [1, 2],
        [3, 4],
      ]);
      await port.clear(area(sheet, 0, 0, 2, 1));
      const { rows } = await readAll(port, area(sheet, 0, 0, 2, 2));
      checkEqual(
        rows,
        [
          ["", 2],
          ["", 4],
        ],
        "after clear",
      );
    },
  },
  {
    name: "bad input is refused with a clear error and nothing is written",
    async run({ port, sheet }) {
      await checkRejects(port.write(at(sheet, 0, 0), [[1, 2], [3]]), /rectangular/, "ragged grid");
      await checkRejects(port.write(at(sheet, 0, 0), [[1], [Number.NaN]]), /NaN/, "NaN");
      await checkRejects(port.write(at(sheet, 0, 0), [["ok"], ["x".repeat(32_768)]]), /32767/, "too long a string");
      await checkRejects(port.write(at(sheet, 0, 0), [[null as unknown as SheetValue]]), /null/, "null cell");
      await checkRejects(
        port.write(at(sheet, 0, 0), [[1]], { columnFormats: ["0.00", "@"] }),
        /columnFormats/,
        "more formats than columns",
      );
      const { rows } = await readAll(port, area(sheet, 0, 0, 2, 2));
      checkEqual(
        rows,
        [
          ["", ""],
          ["", ""],
        ],
        "nothing written",
      );
    },
  },
  {
    name: "sheets are listed with ids; a rename keeps the id",
    async run({ port, driver, sheet }) {
      const before = await port.sheets();
      check(
        before.some((s) => s.id === sheet.id && s.name === sheet.name),
        "scratch sheet not listed",
      );
      const newName = `${sheet.name} r`;
      await driver.renameSheet(sheet.id, newName);
      const after = await port.sheets();
      checkEqual(after.find((s) => s.id === sheet.id)?.name, newName, "renamed sheet");
      checkEqual(after.length, before.length, "sheet count");
    },
  },
  {
    name: "select (Locate) selects the range and its sheet",
    async run({ port, sheet }) {
      const a = area(sheet, 4, 2, 3, 2);
      await port.select(a);
      const sel = await port.selection();
      checkEqual(sel.sheet, { id: sheet.id, name: sheet.name }, "active sheet");
      checkEqual(sel.area, a, "selected area");
    },
  },
  {
    name: "a tracked area follows rows inserted above and columns inserted to its left",
    async run({ port, driver, sheet }) {
      await port.track("CtrFollow", area(sheet, 5, 2, 4, 3));
      await driver.insertRows(sheet.id, 1, 3);
      await driver.insertColumns(sheet.id, 0, 2);
      const t = (await port.tracked()).find((x) => x.name.toLowerCase() === "ctrfollow");
      check(t, "tracked name missing");
      checkEqual(t.area, area(sheet, 8, 4, 4, 3), "area after inserts");
      checkEqual(t.sheet?.id, sheet.id, "sheet id");
      await driver.insertRows(sheet.id, 20, 5); // below: no move
      await driver.deleteRows(sheet.id, 0, 1); // above: moves up
      const t2 = (await port.tracked()).find((x) => x.name.toLowerCase() === "ctrfollow");
      checkEqual(t2?.area, area(sheet, 7, 4, 4, 3), "area after a row below was inserted and a row above deleted");
      await port.untrack("CtrFollow");
    },
  },
  {
    name: "a tracked area grows when rows are inserted inside it, and follows a sheet rename",
    async run({ port, driver, sheet }) {
      await port.track("CtrGrow", area(sheet, 2, 0, 4, 2));
      await driver.insertRows(sheet.id, 4, 2);
      await driver.renameSheet(sheet.id, `${sheet.name} x`);
      const t = (await port.tracked()).find((x) => x.name.toLowerCase() === "ctrgrow");
      checkEqual(t?.area, area(sheet, 2, 0, 6, 2), "area after insert inside");
      checkEqual(t?.sheet, { id: sheet.id, name: `${sheet.name} x` }, "sheet after rename");
      await port.untrack("CtrGrow");
    },
  },
  {
    name: "a tracked area whose rows are deleted is reported deleted; untrack forgets it",
    async run({ port, driver, sheet }) {
      await port.track("CtrGone", area(sheet, 3, 0, 2, 2));
      await port.track("CtrStay", area(sheet, 10, 0, 1, 1));
      await driver.deleteRows(sheet.id, 2, 4);
      const all = await port.tracked();
      const gone = all.find((x) => x.name.toLowerCase() === "ctrgone");
      checkEqual([gone?.area, gone?.sheet], [null, null], "deleted placement");
      checkEqual(all.find((x) => x.name.toLowerCase() === "ctrstay")?.area, area(sheet, 6, 0, 1, 1), "placement below moved up");
      await port.untrack("CtrGone");
      await port.untrack("CtrStay");
      const left = (await port.tracked()).filter((x) => /^ctr(gone|stay)$/i.test(x.name));
      checkEqual(left, [], "tracked after untrack");
    },
  },
  {
    name: "namedArea: a person's workbook-scoped name gives its range (any case), following inserted rows and a sheet rename; #REF!, unknown and tracking names give null (issue 32)",
    async run({ port, driver, sheet }) {
      if (!port.namedArea) throw new CheckSkipped("this host has no defined names");
      if (!driver.defineName || !driver.deleteName) throw new CheckSkipped("needs a person: define a name in Formulas › Define Name");
      await driver.defineName("CtrRegion", area(sheet, 1, 1, 1, 1));
      await driver.defineName("CtrGoneName", area(sheet, 20, 0, 2, 1));
      try {
        checkEqual(await port.namedArea("ctrREGION"), { sheet, area: area(sheet, 1, 1, 1, 1) }, "the name's cell");
        await driver.insertRows(sheet.id, 0, 2);
        await driver.renameSheet(sheet.id, `${sheet.name} n`);
        const moved = { sheet: { id: sheet.id, name: `${sheet.name} n` }, area: area(sheet, 3, 1, 1, 1) };
        checkEqual(await port.namedArea("CtrRegion"), moved, "after rows inserted above and a rename");
        await driver.deleteRows(sheet.id, 22, 2);
        checkEqual(await port.namedArea("CtrGoneName"), null, "a name whose cells were deleted (#REF!)");
        checkEqual(await port.namedArea("CtrNoSuchName"), null, "an unknown name");
        await port.track("CtrTrackedOnly", area(sheet, 5, 5, 1, 1));
        // Cellbound's own hidden names (Excel: Cellbound_<name>) are not the person's.
        checkEqual(await port.namedArea("CtrTrackedOnly"), null, "a tracking name, as the engine calls it");
        checkEqual(await port.namedArea("Cellbound_CtrTrackedOnly"), null, "a tracking name, as Excel calls it");
        await port.untrack("CtrTrackedOnly");
      } finally {
        await driver.deleteName("CtrRegion");
        await driver.deleteName("CtrGoneName");
      }
    },
  },
  {
    name: "tracking the same name again moves it",
    async run({ port, sheet }) {
      await port.track("CtrMove", area(sheet, 0, 0, 1, 1));
      await port.track("CtrMove", area(sheet, 9, 9, 2, 2));
      const mine = (await port.tracked()).filter((x) => x.name.toLowerCase() === "ctrmove");
      checkEqual(
        mine.map((x) => x.area),
        [area(sheet, 9, 9, 2, 2)],
        "re-tracked",
      );
      await port.untrack("CtrMove");
    },
  },
  {
    name: "per-workbook data round-trips as JSON",
    async run({ port }) {
      const value = { placements: [{ id: "p1", n: 3, ok: true, nested: { s: 'é"<&>\r\n\t\u0000\uFFFF ]]>' } }], at: null };
      await port.setData("contract.test", value);
      checkEqual(await port.getData("contract.test"), value, "stored value");
      checkEqual(await port.getData("contract.absent"), undefined, "missing key");
      await checkRejects(
        port.setData("contract.bad", () => 1),
        /cannot be stored/,
        "a function",
      );
      await checkRejects(port.setData("bad key!", 1), /data key/, "bad key");
      await port.setData("contract.test", 2);
      checkEqual(await port.getData("contract.test"), 2, "overwritten value");
    },
  },
  {
    name: "workbook identity is stable; forking gives a new id",
    async run({ port }) {
      const a = await port.identity();
      const b = await port.identity();
      check(/^[0-9a-f-]{36}$/i.test(a.workbookId), `workbookId ${a.workbookId} is not a UUID`);
      checkEqual(b.workbookId, a.workbookId, "second identity()");
      checkEqual(a.copied, false, "copied");
      check(typeof a.name === "string" && a.name.length > 0, "workbook name");
    },
  },
  {
    name: "a copy saved under another URL keeps the id and is detected as a copy",
    async run({ port, driver }) {
      if (!driver.saveAsCopy) throw new CheckSkipped("needs a person: save the file as a copy, then re-run");
      const original = await port.identity();
      const copyPort = await driver.saveAsCopy(`https://contoso.example/copies/copy-${Date.now()}.xlsx`);
      const copy = await copyPort.identity();
      checkEqual(copy.workbookId, original.workbookId, "copied id");
      checkEqual(copy.copied, true, "copy detected");
      const forked = await copyPort.forkIdentity();
      check(forked.workbookId !== original.workbookId, "fork kept the old id");
      checkEqual([forked.copied, forked.recordedUrl], [false, copy.documentUrl], "after fork");
      checkEqual((await port.identity()).workbookId, original.workbookId, "original untouched");
    },
  },
  {
    name: "change events: our writes are ThisLocalAddin, row/column insertions and deletions carry their address",
    async run({ port, driver, sheet }) {
      const ev = await listen(port);
      try {
        await port.write(at(sheet, 1, 1), [
          [1, 2],
          [3, 4],
        ]);
        const w = await ev.until((c) => c.sheetId === sheet.id && c.kind === "RangeEdited", "for our write");
        checkEqual([w.address, w.source], ["B2:C3", "ThisLocalAddin"], "our write");
        await driver.insertRows(sheet.id, 4, 2);
        const ri = await ev.until((c) => c.sheetId === sheet.id && c.kind === "RowInserted", "RowInserted");
        checkEqual(ri.address.replace(/\$/g, ""), "5:6", "inserted rows address");
        await driver.deleteRows(sheet.id, 4, 1);
        const rd = await ev.until((c) => c.sheetId === sheet.id && c.kind === "RowDeleted", "RowDeleted");
        checkEqual(rd.address.replace(/\$/g, ""), "5:5", "deleted rows address");
        await driver.insertColumns(sheet.id, 0, 1);
        const ci = await ev.until((c) => c.sheetId === sheet.id && c.kind === "ColumnInserted", "ColumnInserted");
        checkEqual(ci.address.replace(/\$/g, ""), "A:A", "inserted column address");
        await driver.deleteColumns(sheet.id, 1, 2);
        const cd = await ev.until((c) => c.sheetId === sheet.id && c.kind === "ColumnDeleted", "ColumnDeleted");
        checkEqual(cd.address.replace(/\$/g, ""), "B:C", "deleted columns address");
      } finally {
        await ev.stop();
      }
    },
  },
  {
    name: "change events: a user's edit is Local; after unsubscribing no events arrive",
    async run({ port, driver, sheet }) {
      if (!driver.userEdit) throw new CheckSkipped("needs a person: type into a cell while the check listens");
      const ev = await listen(port);
      await driver.userEdit(sheet.id, 6, 3, "typed");
      const e = await ev.until((c) => c.sheetId === sheet.id && c.kind === "RangeEdited", "for the user's edit");
      checkEqual([e.address, e.source], ["D7", "Local"], "user edit");
      await ev.stop();
      const n = ev.seen.length;
      await driver.userEdit(sheet.id, 7, 3, "again");
      await port.write(at(sheet, 0, 0), [[1]]);
      await pause(100);
      checkEqual(ev.seen.length, n, "events after unsubscribe");
    },
  },
  {
    name: "number formats per column, bold and fill round-trip; values are untouched",
    async run({ port, sheet }) {
      await port.write(
        at(sheet, 0, 0),
        [
          ["Month", "Revenue", "Share"],
          [45292, 1234.5, 12.5],
          [45323, 99, 0],
        ],
        { columnFormats: ["mmm yyyy", "$#,##0.00", '0.0"%"'] },
      );
      const before = await readAll(port, area(sheet, 0, 0, 3, 3));
      await port.style(area(sheet, 0, 0, 1, 3), { bold: true, fill: "#DDEBF7" });
      const head = await port.readStyle(area(sheet, 0, 0, 1, 3));
      checkEqual([head.bold, head.fill], [true, "#DDEBF7"], "header bold and fill");
      const body = await port.readStyle(area(sheet, 1, 0, 2, 3));
      checkEqual(
        body.numberFormats,
        [
          ["mmm yyyy", "$#,##0.00", '0.0"%"'],
          ["mmm yyyy", "$#,##0.00", '0.0"%"'],
        ],
        "column formats",
      );
      checkEqual([body.bold, body.fill], [false, "#FFFFFF"], "body not bold, no fill (reads as white)");
      const mixed = await port.readStyle(area(sheet, 0, 0, 2, 1));
      checkEqual([mixed.bold, mixed.fill], [null, null], "mixed formatting reads as null");
      // null leaves a column as it is; a later style() sets only what it names.
      await port.style(area(sheet, 3, 0, 2, 3), { columnFormats: ["yyyy-mm-dd", null, "0.00%"] });
      checkEqual(
        (await port.readStyle(area(sheet, 3, 0, 1, 3))).numberFormats,
        [["yyyy-mm-dd", "General", "0.00%"]],
        "formats on empty cells",
      );
      await port.style(area(sheet, 0, 0, 1, 3), { bold: false, fill: null });
      const cleared = await port.readStyle(area(sheet, 0, 0, 1, 3));
      checkEqual([cleared.bold, cleared.fill], [false, "#FFFFFF"], "bold off, fill cleared");
      checkEqual((await readAll(port, area(sheet, 0, 0, 3, 3))).rows, before.rows, "values unchanged by formatting");
    },
  },
  {
    name: 'keepFormats: a rewrite keeps the formats a user chose (text still gets "@")',
    async run({ port, sheet }) {
      await port.write(
        at(sheet, 0, 0),
        [
          [1.5, "a"],
          [2.5, "b"],
        ],
        { columnFormats: ["#,##0.00", null] },
      );
      await port.style(area(sheet, 0, 0, 2, 1), { columnFormats: ["0.000"] }); // the user's choice
      await port.write(
        at(sheet, 0, 0),
        [
          [7.25, "c"],
          [8.5, "d"],
        ],
        { columnFormats: ["#,##0.00", null], keepFormats: true },
      );
      const st = await port.readStyle(area(sheet, 0, 0, 2, 1));
      checkEqual(st.numberFormats, [["0.000"], ["0.000"]], "user format kept");
      checkEqual(
        (await readAll(port, area(sheet, 0, 0, 2, 2))).rows,
        [
          [7.25, "c"],
          [8.5, "d"],
        ],
        "values written",
      );
    },
  },
  {
    name: 'keepFormats: a number written where text was (format "@") reads back as a number',
    async run({ port, sheet }) {
      await port.write(at(sheet, 0, 0), [["#N/A", "x"]], { columnFormats: [null, "0.00"] });
      await port.write(at(sheet, 0, 0), [[12.5, 3]], { columnFormats: [null, "0.00"], keepFormats: true });
      checkEqual((await readAll(port, area(sheet, 0, 0, 1, 2))).rows, [[12.5, 3]], "numbers, not the text of numbers");
      checkEqual((await port.readStyle(area(sheet, 0, 0, 1, 2))).numberFormats, [["General", "0.00"]], "the column's format, not @");
    },
  },
  {
    name: "keepFormats with the formats read alongside the values (read numberFormats → currentFormats): numbers stay numbers",
    async run({ port, sheet }) {
      const a = area(sheet, 0, 0, 1, 3);
      await port.write(at(sheet, 0, 0), [["#N/A", "x", 1]], { columnFormats: [null, "0.00", "0.000"] });
      await port.style(area(sheet, 0, 0, 1, 1), { columnFormats: ["@"] }); // the user's text format
      const formats: string[][] = [];
      const values: unknown[][] = [];
      for await (const b of port.read(a, { numberFormats: (f) => formats.push(...f) })) values.push(...b);
      checkEqual(values, [["#N/A", "x", 1]], "the values");
      // A host may not report formats (then the writer reads them itself); those it reports are the cells'.
      if (formats.length) checkEqual(formats, (await port.readStyle(a)).numberFormats, "the formats readStyle reports");
      await port.write(at(sheet, 0, 0), [[12.5, 3, 4]], {
        columnFormats: [null, "0.00", "0.000"],
        keepFormats: true,
        ...(formats.length ? { currentFormats: formats } : {}),
      });
      checkEqual((await readAll(port, a)).rows, [[12.5, 3, 4]], "numbers, not the text of numbers");
      // (A host that stores numbers under "@" as text also resets that "@": test/host/excel-sharp-edges.test.ts.)
      checkEqual((await port.readStyle(a)).numberFormats[0]!.slice(1), ["0.00", "0.000"], "the other formats kept");
    },
  },
  {
    name: "freezeRows freezes the top rows; 0 unfreezes",
    async run({ port, sheet }) {
      checkEqual(await port.frozenRows(sheet.id), 0, "nothing frozen on a new sheet");
      await port.freezeRows(sheet.id, 2);
      checkEqual(await port.frozenRows(sheet.id), 2, "two rows frozen");
      await port.freezeRows(sheet.id, 0);
      checkEqual(await port.frozenRows(sheet.id), 0, "unfrozen");
    },
  },
  {
    name: "snapshot: identity, sheets, tracked areas, every data key and the values asked for, in one read step",
    async run({ port, sheet }) {
      await port.write({ sheetId: sheet.id, row: 2, col: 2 }, [
        ["a", 1],
        ["b", 2],
      ]);
      await port.track("CtrSnap", area(sheet, 2, 2, 2, 2));
      await port.setData("contract.snap", { n: 1 });
      const snap = await port.snapshot({ trackedValues: ["ctrsnap"], areas: [area(sheet, 0, 0, 1, 2)], frozenRows: [sheet.id] });
      checkEqual(snap.identity.workbookId, (await port.identity()).workbookId, "identity");
      check(
        snap.sheets.some((s) => s.id === sheet.id && s.name === sheet.name),
        "the scratch sheet is listed",
      );
      checkEqual(
        snap.tracked.filter((t) => t.name.toLowerCase() === "ctrsnap").map((t) => t.area),
        [area(sheet, 2, 2, 2, 2)],
        "tracked area",
      );
      checkEqual(snap.data.get("contract.snap"), { n: 1 }, "data key");
      checkEqual(
        [...snap.values].sort((a, b) => b.area.row - a.area.row).map((v) => [v.area, v.grid]),
        [
          [
            area(sheet, 2, 2, 2, 2),
            [
              ["a", 1],
              ["b", 2],
            ],
          ],
          [area(sheet, 0, 0, 1, 2), [["", ""]]],
        ],
        "values of the tracked name and of the area asked for",
      );
      checkEqual(snap.frozenRows.get(sheet.id), 0, "frozen rows");
      await port.untrack("CtrSnap");
    },
  },
  {
    name: "commit: commands apply in order; a second commit planned on the same snapshot sees what the first added",
    async run({ port, sheet }) {
      const snap = await port.snapshot();
      await port.commit(
        [
          { kind: "data", key: "contract.commit", value: { step: 1 } },
          { kind: "write", at: { sheetId: sheet.id, row: 0, col: 0 }, grid: [["x", 1]] },
          { kind: "track", name: "CtrCommit", area: area(sheet, 0, 0, 1, 2) },
          { kind: "data", key: "contract.commit", value: { step: 2 } },
        ],
        { basis: snap },
      );
      // The same snapshot again: the part and the name now exist, and must be updated, not duplicated.
      await port.commit(
        [
          { kind: "data", key: "contract.commit", value: { step: 3 } },
          { kind: "track", name: "CtrCommit", area: area(sheet, 0, 0, 2, 2) },
          { kind: "clear", area: area(sheet, 0, 1, 1, 1) },
        ],
        { basis: snap },
      );
      checkEqual(await port.getData("contract.commit"), { step: 3 }, "data after both commits");
      const after = await port.snapshot({ areas: [area(sheet, 0, 0, 1, 2)] });
      checkEqual(
        after.tracked.filter((t) => t.name.toLowerCase() === "ctrcommit").map((t) => t.area),
        [area(sheet, 0, 0, 2, 2)],
        "one tracking name, moved",
      );
      checkEqual(after.values[0]?.grid, [["x", ""]], "written, then cleared");
      const empty = await port.commit([]);
      checkEqual(empty.syncs, 0, "an empty commit costs nothing");
      await port.commit([{ kind: "untrack", name: "CtrCommit" }], { basis: after });
      checkEqual(
        (await port.tracked()).filter((t) => t.name.toLowerCase() === "ctrcommit"),
        [],
        "untracked",
      );
    },
  },
  {
    name: "commit: data sent with ifUnchanged over someone else's save since the snapshot is written, and what it replaced is reported",
    async run({ port, sheet }) {
      await port.setData("contract.guard", { by: "us" });
      const snap = await port.snapshot();
      await port.setData("contract.guard", { by: "a co-author" }); // saved between our read and our write
      const sent = await port.commit(
        [
          { kind: "data", key: "contract.guard", value: { by: "us, again" }, ifUnchanged: { value: snap.data.get("contract.guard") } },
          { kind: "write", at: { sheetId: sheet.id, row: 7, col: 7 }, grid: [["ours"]] },
          { kind: "data", key: "contract.guard", value: { by: "us, later" } },
        ],
        { basis: snap },
      );
      checkEqual(sent.conflicts, [{ key: "contract.guard", found: { value: { by: "a co-author" } } }], "the replaced save, reported once");
      checkEqual(await port.getData("contract.guard"), { by: "us, later" }, "written (the caller merges)");
      checkEqual((await readAll(port, area(sheet, 7, 7, 1, 1))).rows, [["ours"]], "the cells after it landed");
      // A key the snapshot did not hold, added since: reported (with what was there, or null when the host cannot tell).
      await port.setData("contract.guard.new", { by: "a co-author" });
      const added = await port.commit(
        [{ kind: "data", key: "contract.guard.new", value: { by: "us" }, ifUnchanged: { value: undefined } }],
        {
          basis: snap,
        },
      );
      check(
        added.conflicts?.length === 1 &&
          added.conflicts[0]!.key === "contract.guard.new" &&
          (added.conflicts[0]!.found === null || JSON.stringify(added.conflicts[0]!.found.value) === JSON.stringify({ by: "a co-author" })),
        `a key added since: ${JSON.stringify(added.conflicts)}`,
      );
      const fresh = await port.snapshot();
      const quiet = await port.commit(
        [{ kind: "data", key: "contract.guard", value: { by: "us, again" }, ifUnchanged: { value: fresh.data.get("contract.guard") } }],
        { basis: fresh },
      );
      checkEqual(quiet.conflicts ?? [], [], "unchanged since the snapshot: nothing to report");
      checkEqual(await port.getData("contract.guard"), { by: "us, again" }, "written");
    },
  },
  {
    name: "commit refuses bad input before anything is written",
    async run({ port, sheet }) {
      await checkRejects(
        port.commit([
          { kind: "write", at: { sheetId: sheet.id, row: 5, col: 5 }, grid: [["kept out"]] },
          { kind: "data", key: "bad key!", value: 1 },
        ]),
        /data key/,
        "a bad data key after a write",
      );
      checkEqual((await readAll(port, area(sheet, 5, 5, 1, 1))).rows, [[""]], "the write before it did not land");
    },
  },
  {
    name: "commit: a guarded write reports what it found over what was expected (values, formulas, formats), and restore puts it back (issue 36)",
    async run({ port, driver, sheet }) {
      await port.write(at(sheet, 1, 1), [["seen"]]);
      // Expected as checked: nothing to report.
      const quiet = await port.commit([
        {
          kind: "write",
          at: at(sheet, 0, 0),
          grid: [
            ["a", "b"],
            ["c", "d"],
          ],
          guard: {
            expect: [
              ["", ""],
              ["", "seen"],
            ],
          },
        },
      ]);
      checkEqual(quiet.cellConflicts ?? [], [], "what the check saw: no conflict");
      // Someone typed after the check: reported with what they typed, written over all the same.
      await port.write(at(sheet, 5, 1), [[12.5]], { columnFormats: ["0.00"] });
      const sent = await port.commit([
        {
          kind: "write",
          at: at(sheet, 4, 0),
          grid: [
            ["x", "y"],
            ["z", "w"],
          ],
          guard: { expect: "empty" },
        },
      ]);
      const c = sent.cellConflicts ?? [];
      checkEqual(
        c.map((x) => ({
          area: x.area,
          found: x.found && { area: x.found.area, values: x.found.values, numberFormats: x.found.numberFormats },
        })),
        [{ area: area(sheet, 4, 0, 2, 2), found: { area: area(sheet, 5, 1, 1, 1), values: [[12.5]], numberFormats: [["0.00"]] } }],
        "the conflict: where the write landed, and the cell found there",
      );
      checkEqual(
        (await readAll(port, area(sheet, 4, 0, 2, 2))).rows,
        [
          ["x", "y"],
          ["z", "w"],
        ],
        "the write landed (a host cannot hold it back)",
      );
      await port.commit([
        { kind: "clear", area: area(sheet, 4, 0, 2, 2) },
        { kind: "restore", cells: c[0]!.found! },
      ]);
      const back = await driver.inspect(area(sheet, 4, 0, 2, 2));
      checkEqual(
        back.values,
        [
          ["", ""],
          ["", 12.5],
        ],
        "put back",
      );
      checkEqual(back.numberFormats[1]?.[1], "0.00", "with its format");
    },
  },
  {
    name: "commit: an anchored command lands where its name is now; a re-point with expect reports where the name was (issue 36)",
    async run({ port, driver, sheet }) {
      await port.track("CtrAnchor", area(sheet, 2, 1, 2, 2));
      await driver.insertRows(sheet.id, 0, 3); // the name moves to row 5 while the caller plans on row 2
      const planned = area(sheet, 2, 1, 2, 2);
      const sent = await port.commit([
        { kind: "write", at: at(sheet, 3, 1), grid: [["below the top"]], anchor: { name: "CtrAnchor", area: planned } },
        { kind: "clear", area: area(sheet, 2, 2, 1, 1), anchor: { name: "CtrAnchor", area: planned } },
        { kind: "track", name: "CtrAnchor", area: area(sheet, 2, 1, 3, 2), expect: planned },
      ]);
      checkEqual(
        (await readAll(port, area(sheet, 6, 1, 1, 1))).rows,
        [["below the top"]],
        "written one row below the name's top, where it is now",
      );
      checkEqual((await readAll(port, area(sheet, 3, 1, 1, 1))).rows, [[""]], "nothing where it was planned");
      checkEqual(sent.moved, [{ name: "CtrAnchor", found: area(sheet, 5, 1, 2, 2) }], "the name was elsewhere: reported");
      const quiet = await port.commit([
        { kind: "track", name: "CtrAnchor", area: area(sheet, 5, 1, 2, 2), expect: area(sheet, 2, 1, 3, 2) },
      ]);
      checkEqual(quiet.moved ?? [], [], "where it was expected: nothing to report");
      await port.untrack("CtrAnchor");
    },
  },
  {
    name: "commit: a name re-pointed on a snapshot taken before its sheet was renamed lands, and the commit gives the sheets' names now (issue 36, item 16)",
    async run({ port, driver, sheet }) {
      await port.track("CtrRename", area(sheet, 0, 0, 1, 1));
      const snap = await port.snapshot();
      await driver.renameSheet(sheet.id, `${sheet.name} n`);
      const sent = await port.commit(
        [
          { kind: "write", at: at(sheet, 0, 0), grid: [["a"], ["b"]] },
          { kind: "track", name: "CtrRename", area: area(sheet, 0, 0, 2, 1) },
          { kind: "write", at: at(sheet, 2, 0), grid: [["after it"]] },
        ],
        { basis: snap },
      );
      checkEqual(
        (await port.tracked()).filter((t) => t.name.toLowerCase() === "ctrrename").map((t) => [t.sheet?.name, t.area]),
        [[`${sheet.name} n`, area(sheet, 0, 0, 2, 1)]],
        "the name re-pointed on the renamed sheet",
      );
      checkEqual((await readAll(port, area(sheet, 0, 0, 3, 1))).rows, [["a"], ["b"], ["after it"]], "every write landed once");
      checkEqual(sent.sheets?.find((x) => x.id === sheet.id)?.name, `${sheet.name} n`, "the sheet's name now, reported");
      await port.untrack("CtrRename");
    },
  },
  {
    name: "recheck: the sheets and tracking names as they are now, and the areas' values and formats, in one read (issue 36)",
    async run({ port, driver, sheet }) {
      await port.write(at(sheet, 0, 0), [[1, "t"]], { columnFormats: ["0.0", null] });
      await port.track("CtrRecheck", area(sheet, 0, 0, 1, 2));
      await driver.insertRows(sheet.id, 0, 1);
      await driver.renameSheet(sheet.id, `${sheet.name} r`);
      const r = await port.recheck({ areas: [area(sheet, 1, 0, 1, 2)], numberFormats: true });
      checkEqual(
        r.sheets.find((x) => x.id === sheet.id),
        { id: sheet.id, name: `${sheet.name} r` },
        "the sheet's name now",
      );
      checkEqual(
        r.tracked.filter((t) => t.name.toLowerCase() === "ctrrecheck").map((t) => t.area),
        [area(sheet, 1, 0, 1, 2)],
        "the name where it is now",
      );
      checkEqual(r.values[0]?.grid, [[1, "t"]], "values");
      checkEqual(r.values[0]?.numberFormats?.[0]?.[0], "0.0", "formats");
      await port.untrack("CtrRecheck");
    },
  },
  {
    name: "usedArea: where an area holds values, without reading them; formats alone are not content",
    async run({ port, sheet }) {
      const band = area(sheet, 0, 1, 1_000_000, 3);
      checkEqual(await port.usedArea(band), null, "an empty sheet");
      await port.write(at(sheet, 4, 2), [["x"], [""], [7]]);
      await port.write(at(sheet, 9, 0), [["left of the band"]]);
      await port.style(area(sheet, 20, 1, 2, 3), { columnFormats: ["0.00", "0.00", "0.00"] });
      checkEqual(await port.usedArea(band), area(sheet, 4, 2, 3, 1), "the used cells' bounding box");
      checkEqual(await port.usedArea(area(sheet, 7, 1, 100, 3)), null, "below them: empty, formats alone do not count");
      const snap = await port.snapshot({ usedIn: [band, area(sheet, 7, 1, 100, 3)] });
      checkEqual(
        snap.used?.map((u) => u.used),
        [area(sheet, 4, 2, 3, 1), null],
        "the snapshot answers the same",
      );
    },
  },
];
