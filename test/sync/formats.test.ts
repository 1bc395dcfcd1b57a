// Number formats from the semantic layer, the header style, and what a refresh keeps (issue 13):
// pure rules first, then the engine over both workbook kinds (memory port, Office.js adapter on dev/excel).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textWidthPoints } from "../../src/host/column-width.ts";
import { cellA1 } from "../../src/host/a1.ts";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { numberFormatFor, quarterFormat, settleNumberFormats, withShortTitles, HEADER_STYLE } from "../../src/sync/formats.ts";
import { formatValue } from "../../src/host/number-format.ts";
import { flatTable, layout } from "../../src/sync/layout.ts";
import { check } from "../../src/sync/index.ts";
import type { TypedResult } from "../../src/checksum/types.ts";
import type { SheetPort } from "../../src/host/port.ts";
import { startEnv, wrapDevExcel, type Env } from "./support.ts";
import { createDevExcel } from "../../dev/excel/index.ts";

describe("formats from the semantic layer", () => {
  it("maps type, granularity and format to Excel number formats", () => {
    expect(numberFormatFor({ type: "time", granularity: "month" })).toBe("mmm yyyy");
    expect(numberFormatFor({ type: "time", granularity: "day" })).toBe("yyyy-mm-dd");
    expect(numberFormatFor({ type: "time", granularity: "year" })).toBe("yyyy");
    expect(numberFormatFor({ type: "time", granularity: "second" })).toBe("yyyy-mm-dd hh:mm:ss");
    expect(numberFormatFor({ type: "number", format: "currency", kind: "measure" })).toBe("$#,##0.00");
    expect(numberFormatFor({ type: "number", format: "percent", kind: "measure" })).toBe('0.00"%"');
    expect(numberFormatFor({ type: "number", format: "id", kind: "dimension" })).toBeNull();
    expect(numberFormatFor({ type: "string", kind: "dimension" })).toBeNull();
  });
  it("a plain measure gets thousands separators, with decimals only when its values have them", () => {
    const cells = [
      ["n", "x"],
      [1200, 1.5],
      [3, 2],
    ];
    expect(settleNumberFormats(cells, ["#,##0.##", "#,##0.##"], 1)).toEqual(["#,##0", "#,##0.00"]);
  });
  it("a SQL report's columns (no granularity, no format) take their formats from their values", () => {
    const time = numberFormatFor({ type: "time", kind: "dimension" });
    const num = numberFormatFor({ type: "number", kind: "dimension" });
    // Serial dates: whole days (a month's first day) read as dates, times of day keep their time.
    const cells = [
      ["month", "at", "revenue", "year"],
      [45292, 45292.5, 17004330.82, 2024],
      [45323, 45323, 15294788.18, 2025],
    ];
    expect(settleNumberFormats(cells, [time, time, num, num], 1)).toEqual(["yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss", "#,##0.00", null]);
  });
  it("issue 31 item 5: a quarter bucket keeps its date serial and reads “Q1 2025”; a date of another quarter in that cell reads as the date", () => {
    // 2025-01-01 is serial 45658, 2025-04-01 45748, 2024-10-01 45566.
    const q1 = quarterFormat(45658)!;
    expect(q1).toBe('[<45658]yyyy-mm-dd;[<45748]"Q1 "yyyy;yyyy-mm-dd');
    expect(formatValue(45658, q1)).toBe("Q1 2025");
    expect(formatValue(45748, q1)).toBe("2025-04-01"); // a value that moved into the cell is not shown as Q1
    expect(formatValue(45657, q1)).toBe("2024-12-31");
    expect(formatValue(45566, quarterFormat(45566))).toBe("Q4 2024");
    expect(formatValue(45658, "mmm yyyy")).toBe("Jan 2025"); // the month bucket, for comparison
    const r: TypedResult = {
      columns: [
        {
          key: "orders.created_at.quarter",
          title: "Created at",
          shortTitle: "Created at",
          type: "time",
          kind: "dimension",
          granularity: "quarter",
        },
        { key: "orders.count", title: "Count", shortTitle: "Count", type: "number", kind: "measure" },
      ],
      rows: [
        ["2025-01-01T00:00:00.000", 3],
        ["2025-04-01T00:00:00.000", 4],
      ],
      total: null,
      timezone: "UTC",
    };
    const laid = flatTable(r);
    expect(laid.cells.slice(1).map((row) => row[0])).toEqual([45658, 45748]);
    expect(laid.quarterColumns).toEqual([0]);
    // A pivot's quarter rows too: first, or after the "Measure" column when measures lead the rows.
    const rows = { rows: ["orders.created_at.quarter"], measures: ["orders.count"] };
    expect(
      layout({
        result: r,
        pivot: { ...rows, showColumnTotals: true },
        totals: { byColumns: { ...r, columns: r.columns.slice(1), rows: [[7]] } },
      }).quarterColumns,
    ).toEqual([0]);
    expect(layout({ result: r, pivot: { ...rows, measuresAxis: "rows", measuresPosition: "before" } }).quarterColumns).toEqual([1]);
  });
  it("titles are short unless two columns would share one", () => {
    const col = (key: string, title: string, shortTitle: string) => ({
      key,
      title,
      shortTitle,
      type: "number" as const,
      kind: "measure" as const,
    });
    const r: TypedResult = {
      columns: [
        col("orders.is_returned", "Orders Is Returned", "Is Returned"),
        col("orders.count", "Orders Count", "Count"),
        col("customers.count", "Customers Count", "Count"),
      ],
      rows: [],
      total: null,
      timezone: "UTC",
    };
    expect(withShortTitles(r).columns.map((c) => c.title)).toEqual(["Is Returned", "Orders Count", "Customers Count"]);
  });
});

interface Book {
  port: SheetPort;
  sheetId: string;
  cell(row: number, col: number): unknown;
  userFormat(row: number, col: number, format: string): void;
  /** Column width after autofit (dev/excel models widths; the memory port does not). */
  width?(col: number): number | undefined;
}
const kinds: Array<[string, () => Book]> = [
  [
    "memory port",
    () => {
      const wb = new MemoryWorkbook("https://files.example/fmt.xlsx", "Fmt.xlsx");
      const sheetId = wb.sheets[0]!.id;
      return {
        port: new MemoryPort(wb),
        sheetId,
        cell: (r, c) => wb.cell(sheetId, r, c).value,
        userFormat: (r, c, f) => wb.userFormat(sheetId, r, c, f),
      };
    },
  ],
  [
    "Office.js adapter on dev/excel",
    () => {
      const t = wrapDevExcel(createDevExcel({ platform: "OfficeOnline" }).workbook.saveAsCopy("https://files.example/fmt.xlsx"));
      const sheetId = t.user.firstSheetId();
      return {
        port: t.port,
        sheetId,
        cell: (r, c) => t.user.cell(sheetId, r, c),
        userFormat: (r, c, f) => t.workbook.setNumberFormat(sheetId, cellA1(r, c), f),
        width: (c) => t.workbook.sheetById(sheetId)?.colWidths?.[c],
      };
    },
  ],
];

const monthly = (limit: number) => ({
  jsonQuery: JSON.stringify({
    measures: ["orders.total_amount", "orders.return_rate", "orders.count"],
    timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
    order: [["orders.created_at", "asc"]],
    limit,
  }),
});

for (const [label, make] of kinds) {
  describe(`placed formats (${label})`, () => {
    let env: Env;
    beforeAll(async () => {
      env = await startEnv();
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });

    it("place: formats from meta, short titles, styled and frozen header; growth formatted; the user's format kept and never a hand edit", async () => {
      const book = make();
      const engine = env.engine({ port: book.port, user: null as never });
      const report = await env.createReport(monthly(3));
      const out = await engine.place(report, { at: { sheetId: book.sheetId, row: 0, col: 0 } });
      expect(out.kind).toBe("placed");
      if (out.kind !== "placed") return;
      expect([0, 1, 2, 3].map((c) => book.cell(0, c))).toEqual(["Created at", "Total Amount", "Return Rate", "Count"]);
      const body = await book.port.readStyle({ sheetId: book.sheetId, row: 1, col: 0, rows: 2, cols: 4 });
      expect(body.numberFormats[0]).toEqual(["mmm yyyy", "$#,##0.00", '0.00"%"', "#,##0"]);
      expect(typeof book.cell(1, 0)).toBe("number"); // a real date (serial), shown as "Jan 2024"
      const head = await book.port.readStyle({ sheetId: book.sheetId, row: 0, col: 0, rows: 1, cols: 4 });
      expect([head.bold, head.fill]).toEqual([HEADER_STYLE.bold, HEADER_STYLE.fill]);
      expect(await book.port.frozenRows(book.sheetId)).toBe(1);
      // Columns fit their formatted values ("$17,004,330.82" is 14 characters: no "####").
      if (book.width) expect(book.width(1)).toBeGreaterThanOrEqual(textWidthPoints(14));

      // The user re-formats the revenue column; the report then grows by three rows.
      for (let r = 1; r <= 3; r++) book.userFormat(r, 1, "#,##0");
      const c1 = await check(engine);
      expect(c1.placements[0]).toMatchObject({ edit: "clean" });
      await env.client().updateReport(env.deploymentId, out.reportId, monthly(6));
      const refreshed = await engine.refresh(out.key, "ask");
      expect(refreshed.kind).toBe("refreshed");
      const after = await book.port.readStyle({ sheetId: book.sheetId, row: 1, col: 0, rows: 6, cols: 4 });
      for (const row of after.numberFormats) expect(row).toEqual(["mmm yyyy", "#,##0", '0.00"%"', "#,##0"]); // grown rows too
      const c2 = await check(engine);
      expect(c2.placements[0]).toMatchObject({ edit: "clean" });
    });

    it("issue 31 item 5: quarterly buckets read “Q1 2023” (date serials with a format per quarter), also in the rows a refresh grows into; never a hand edit", async () => {
      const book = make();
      const engine = env.engine({ port: book.port, user: null as never });
      const quarterly = (limit: number) => ({
        jsonQuery: JSON.stringify({
          measures: ["orders.count"],
          timeDimensions: [{ dimension: "orders.created_at", granularity: "quarter" }],
          order: [["orders.created_at", "asc"]],
          limit,
        }),
      });
      const out = await engine.place(await env.createReport(quarterly(2)), { at: { sheetId: book.sheetId, row: 0, col: 0 } });
      if (out.kind !== "placed") throw new Error(out.kind);
      const shown = async (rows: number) => {
        const st = await book.port.readStyle({ sheetId: book.sheetId, row: 1, col: 0, rows, cols: 1 });
        return st.numberFormats.map((f, r) => {
          const v = book.cell(r + 1, 0);
          expect(typeof v, `row ${r + 2}`).toBe("number"); // still a date serial
          return formatValue(v as number, f[0]);
        });
      };
      expect(await shown(2)).toEqual(["Q1 2023", "Q2 2023"]);
      await env.client().updateReport(env.deploymentId, out.reportId, quarterly(5));
      expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
      expect(await shown(5)).toEqual(["Q1 2023", "Q2 2023", "Q3 2023", "Q4 2023", "Q1 2024"]);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("the demo catalogue (Revenue by month, Top customers, Orders by status and region) places, in its folders", async () => {
      const book = make();
      const engine = env.engine({ port: book.port, user: null as never });
      const all = (await env.client().listReports(env.deploymentId, {})).items;
      const demo = ["Revenue by month", "Top customers", "Orders by status and region"].map((n) => all.find((r) => r.name === n)!);
      expect(demo.map((r) => r.folderPath?.map((f) => f.name).join("/"))).toEqual(["Sales", "Customers", "Operations"]);
      let col = 0;
      for (const r of demo) {
        const out = await engine.place(r, { at: { sheetId: book.sheetId, row: 0, col } });
        expect(out.kind).toBe("placed");
        col += 30;
      }
      expect(book.cell(0, 0)).toBe("Created at");
    });

    it("Values only: no number formats beyond text, no header style, no freeze — also after growth", async () => {
      const book = make();
      const engine = env.engine({ port: book.port, user: null as never });
      const report = await env.createReport(monthly(2));
      const out = await engine.place(report, { at: { sheetId: book.sheetId, row: 0, col: 0 }, valuesOnly: true });
      if (out.kind !== "placed") throw new Error(out.kind);
      await env.client().updateReport(env.deploymentId, out.reportId, monthly(4));
      expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
      const st = await book.port.readStyle({ sheetId: book.sheetId, row: 1, col: 0, rows: 4, cols: 4 });
      for (const row of st.numberFormats) expect(row).toEqual(["General", "General", "General", "General"]);
      const head = await book.port.readStyle({ sheetId: book.sheetId, row: 0, col: 0, rows: 1, cols: 4 });
      expect(head.bold).toBe(false);
      expect(await book.port.frozenRows(book.sheetId)).toBe(0);
    });
  });
}
