// Issue 32: a report's filters from cells. Written once and run per workbook kind (memory port; Office.js
// adapter over dev/excel): bind at place and later, refresh with the values the cells hold, the summary naming
// the cells, every validation case (nothing written, nothing recorded), circles refused, producers first.
import { describe, expect, it } from "vitest";
import type { Report, ReportInput } from "../../src/api/index.ts";
import { CannotBind, check, fork, InvalidInput, type SyncEngine } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { byStatus, placed, useEnv, type TestWorkbook, type WorkbookKind } from "./support.ts";

/** Orders by country and status, with the applied-filters summary on: rows of one country when bound. */
const byCountry: ReportInput = {
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.country", "orders.status"],
    filters: [{ member: "customers.country", operator: "equals", values: ["Japan"] }],
    order: [
      ["customers.country", "asc"],
      ["orders.status", "asc"],
    ],
  }),
  pivotItems: { rows: [], columns: [], measures: [], filters: [], showAppliedFilters: true },
};
/** Orders per month of a date range (a time dimension of the query: the inputs become its dateRange). */
const byMonth: ReportInput = {
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2024-01-01", "2024-12-31"] }],
  }),
};

export function inputScenarios(label: string, kind: WorkbookKind): void {
  describe(`issue 32: a report's filters from cells (${label})`, () => {
    const env = useEnv();
    let n = 0;
    const newBook = () => kind(`https://files.example/inputs-${++n}.xlsx`);

    /** A book with "Germany" typed in B1 and the report placed at A4 with its country bound to Sheet1!B1. */
    async function boundBook(input = "Germany"): Promise<{ wb: TestWorkbook; s: string; engine: SyncEngine; key: string; report: Report }> {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 0, 1, input);
      const engine = env().engine(wb);
      const report = await env().createReport(byCountry);
      const out = await engine.place(report, {
        at: { sheetId: s, row: 3, col: 0 },
        inputs: [{ member: "customers.country", ref: "Sheet1!B1" }],
      });
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      return { wb, s, engine, key: out.key, report };
    }
    /** The country column (A) of the data rows below the summary and header. */
    const countries = (wb: TestWorkbook, s: string) =>
      [...wb.user.cells(s)].filter(([k]) => k.endsWith("|0") && Number(k.split("|")[0]) >= 6).map(([, v]) => v);

    it("issue 32: a cell's value replaces the report's own filter; the summary names the cell; the report on the platform is unchanged", async () => {
      const { wb, s, report } = await boundBook();
      expect(wb.user.cell(s, 3, 0)).toBe("Applied filter: Customers Country is Germany (from Sheet1!B1)");
      expect(countries(wb, s).length).toBeGreaterThan(0);
      expect(new Set(countries(wb, s))).toEqual(new Set(["Germany"]));
      let onPlatform: Report | undefined;
      for await (const r of env().client().iterateReports(env().deploymentId)) if (r.id === report.id) onPlatform = r;
      expect(onPlatform?.jsonQuery).toBe(report.jsonQuery);
    });

    it("issue 32: type another country in B1 → Inputs changed; refresh shows its rows; a changed input cell is no hand edit", async () => {
      const { wb, s, engine, key } = await boundBook();
      expect((await engine.inputs(key)).changed).toBe(false);
      wb.user.edit(s, 0, 1, "France");
      const view = await engine.inputs(key);
      expect(view).toMatchObject({
        changed: true,
        inputs: [{ member: "customers.country", where: "Sheet1!B1", values: ["France"], problem: null }],
      });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      expect((await engine.refresh(key, "ask")).kind).toBe("refreshed");
      expect(new Set(countries(wb, s))).toEqual(new Set(["France"]));
      expect(wb.user.cell(s, 3, 0)).toBe("Applied filter: Customers Country is France (from Sheet1!B1)");
      expect((await engine.inputs(key)).changed).toBe(false);
    });

    it("issue 32: a row inserted above the input cell: the binding follows it (B1 → B2)", async () => {
      const { wb, s, engine, key } = await boundBook();
      wb.user.insertRows(s, 0, 1);
      wb.user.edit(s, 1, 1, "Brazil");
      expect((await engine.inputs(key)).inputs[0]).toMatchObject({ where: "Sheet1!B2", values: ["Brazil"] });
      expect((await engine.refresh(key, "ask")).kind).toBe("refreshed");
      expect(wb.user.cell(s, 4, 0)).toBe("Applied filter: Customers Country is Brazil (from Sheet1!B2)");
    });

    /** Refresh with B1 holding `value`: InvalidInput with `words`; the cells and the platform's record as they were. */
    async function refused(value: string | number, words: string) {
      const { wb, s, engine, key } = await boundBook();
      const before = new Map(wb.user.cells(s));
      const recorded = (await loadPlacements(wb.port)).find((p) => p.key === key)!.committed;
      wb.user.edit(s, 0, 1, value);
      const err = await engine.refresh(key, "overwrite").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidInput);
      expect((err as Error).message).toBe(words);
      const now = new Map(wb.user.cells(s));
      now.delete("0|1");
      before.delete("0|1");
      expect(now).toEqual(before);
      expect((await loadPlacements(wb.port)).find((p) => p.key === key)!.committed).toEqual(recorded);
      expect((await engine.inputs(key)).inputs[0]!.problem).toBe(words);
    }

    it("issue 32 validation: an empty input cell names the cell, nothing written or recorded", () =>
      refused("", "Sheet1!B1 is empty: type a country."));
    it("issue 32 validation: an error value names the cell and the error", () =>
      refused("#N/A", "Sheet1!B1 holds an error (#N/A): fix the cell or its formula, then refresh."));

    it("issue 32 validation: text where a number is needed", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 0, 0, "many");
      const report = await env().createReport(byCountry);
      const err = await env()
        .engine(wb)
        .place(report, { at: { sheetId: s, row: 3, col: 0 }, inputs: [{ member: "orders.quantity", ref: "Sheet1!A1" }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidInput);
      expect((err as Error).message).toBe("Sheet1!A1 holds text (“many”) where a number is needed: type a number for quantity.");
      expect([...wb.user.cells(s).keys()]).toEqual(["0|0"]);
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("issue 32 validation: more than 100 values in a bound range", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      for (let r = 0; r < 101; r++) wb.user.edit(s, r, 0, `c${r}`);
      const report = await env().createReport(byCountry);
      const err = await env()
        .engine(wb)
        .place(report, { at: { sheetId: s, row: 0, col: 3 }, inputs: [{ member: "customers.country", ref: "Sheet1!A1:A101" }] })
        .catch((e: unknown) => e);
      expect((err as Error).message).toBe("Sheet1!A1:A101 holds 101 values: at most 100 can filter a report. Bind a smaller range.");
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("issue 32: a range filters on any of its non-empty values", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 0, 0, "Kenya");
      wb.user.edit(s, 2, 0, "India");
      const engine = env().engine(wb);
      const report = await env().createReport(byCountry);
      await engine.place(report, { at: { sheetId: s, row: 0, col: 3 }, inputs: [{ member: "customers.country", ref: "Sheet1!A1:A3" }] });
      expect(wb.user.cell(s, 0, 3)).toBe("Applied filter: Customers Country is Kenya, India (from Sheet1!A1:A3)");
      const shown = [...wb.user.cells(s)].filter(([k]) => k.endsWith("|3") && Number(k.split("|")[0]) >= 3).map(([, v]) => v);
      expect(new Set(shown)).toEqual(new Set(["India", "Kenya"]));
    });

    it("issue 32: a date range from two cells of an Inputs sheet; an end before its start names the cell", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const inputs = wb.user.addSheet("Inputs");
      wb.user.edit(inputs, 0, 1, "2024-03-01");
      wb.user.edit(inputs, 1, 1, 45473); // 2024-06-30 as Excel's date serial
      const engine = env().engine(wb);
      const report = await env().createReport(byMonth);
      const out = await placed(engine, report, { sheetId: s, row: 0, col: 0 }).catch(() => null);
      expect(out).not.toBeNull(); // unbound first: twelve months
      const key = out!.key;
      await engine.bindInputs(key, [{ member: "orders.created_at", ref: "Inputs!B1:B2" }]);
      expect((await engine.inputs(key)).inputs[0]).toMatchObject({
        where: "Inputs!B1:B2",
        values: ["2024-03-01", "2024-06-30"],
        problem: null,
      });
      expect((await engine.refresh(key, "ask")).kind).toBe("refreshed");
      const months = [...wb.user.cells(s)].filter(([k]) => k.endsWith("|0") && k !== "0|0").map(([, v]) => v);
      expect(months.length).toBe(4); // March to June
      wb.user.edit(inputs, 1, 1, "2024-01-31");
      const err = await engine.refresh(key, "ask").catch((e: unknown) => e);
      expect((err as Error).message).toBe(
        "Inputs!B2 (2024-01-31) is before Inputs!B1 (2024-03-01): the end of a date range cannot be before its start.",
      );
      // The card shows what the cells hold beside why they cannot be used.
      expect((await engine.inputs(key)).inputs[0]).toMatchObject({ values: ["2024-03-01", "2024-01-31"], problem: (err as Error).message });
      wb.user.edit(inputs, 1, 1, "next week");
      const err2 = await engine.refresh(key, "ask").catch((e: unknown) => e);
      expect((err2 as Error).message).toBe(
        "Inputs!B2 holds “next week” where a date is needed: type the end date of created at (e.g. 2025-01-31).",
      );
    });

    it("issue 32: SQL reports cannot take inputs; a reference to nothing is refused in words", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const sqlReport = await env().createReport({ sqlQuery: "SELECT status FROM orders GROUP BY status ORDER BY status" });
      const out = await placed(engine, sqlReport, { sheetId: s, row: 0, col: 0 });
      const err = await engine.bindInputs(out.key, [{ member: "orders.status", ref: "Sheet1!H1" }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CannotBind);
      expect((err as Error).message).toBe("SQL reports cannot take inputs: their filters are in the SQL text.");
      const report = await env().createReport(byCountry);
      const err2 = await engine
        .place(report, { at: { sheetId: s, row: 0, col: 5 }, inputs: [{ member: "customers.country", ref: "Nowhere!B1" }] })
        .catch((e: unknown) => e);
      expect((err2 as Error).message).toBe("There is no sheet “Nowhere” in this workbook (in “Nowhere!B1”).");
    });

    it("issue 32: a circle is refused when it is made; an input inside its own placement too", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const a = await placed(engine, await env().createReport(byCountry), { sheetId: s, row: 0, col: 0 });
      const b = await placed(engine, await env().createReport(byCountry), { sheetId: s, row: 0, col: 6 });
      await engine.bindInputs(b.key, [{ member: "customers.country", ref: "Sheet1!A3" }]); // B reads A's cell
      const err = await engine.bindInputs(a.key, [{ member: "customers.country", ref: "Sheet1!G3" }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CannotBind);
      expect((err as Error).message).toMatch(
        /^That would make a circle: “Report \d+” takes its inputs from “Report \d+”, which takes its inputs from “Report \d+”\./,
      );
      const own = await engine.bindInputs(a.key, [{ member: "customers.country", ref: "Sheet1!A3" }]).catch((e: unknown) => e);
      expect((own as Error).message).toMatch(/^The input cells of “Report \d+” are inside its own cells/);
    });

    it("issue 32: Refresh all refreshes the producer first: the consumer uses the producer's new value", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const consumer = await placed(engine, await env().createReport(byCountry), { sheetId: s, row: 0, col: 6 });
      const producerReport = await env().createReport({
        jsonQuery: JSON.stringify({ dimensions: ["customers.country"], order: [["customers.country", "asc"]], limit: 1 }),
      });
      await placed(engine, producerReport, { sheetId: s, row: 0, col: 0 }); // A1 header, A2 "Australia"
      expect(wb.user.cell(s, 1, 0)).toBe("Australia");
      await engine.bindInputs(consumer.key, [{ member: "customers.country", ref: "Sheet1!A2" }]);
      expect((await loadPlacements(wb.port)).map((p) => p.key)[0]).toBe(consumer.key); // the consumer is listed first
      await env()
        .client()
        .updateReport(env().deploymentId, producerReport.id, {
          jsonQuery: JSON.stringify({ dimensions: ["customers.country"], order: [["customers.country", "desc"]], limit: 1 }),
        });
      const q = await engine.refreshAll();
      expect(Object.values(q.items).map((i) => i.state)).toEqual(["done", "done"]);
      expect(wb.user.cell(s, 1, 0)).toBe("United States");
      expect(wb.user.cell(s, 0, 6)).toBe("Applied filter: Customers Country is United States (from Sheet1!A2)");
    });

    it("issue 32: a copy of the workbook (Save As, forked) keeps its inputs: its own B1 filters its own placement", async () => {
      const { wb, s } = await boundBook();
      const copy = wb.user.saveAsCopy(`https://files.example/inputs-copy-${++n}.xlsx`);
      const copyEngine = env().engine(copy);
      expect((await fork(copyEngine)).failed).toEqual({});
      copy.user.edit(s, 0, 1, "India");
      const [p] = await loadPlacements(copy.port);
      expect((await copyEngine.inputs(p!.key)).changed).toBe(true);
      expect((await copyEngine.refresh(p!.key, "ask")).kind).toBe("refreshed");
      expect(new Set(countries(copy, s))).toEqual(new Set(["India"]));
      expect(new Set(countries(wb, s))).toEqual(new Set(["Germany"])); // the original is untouched
    });

    it("issue 32: input cells are never written over — a report placed over its own input is refused, another never grows into them, even empty", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 0, 1, "Germany");
      const engine = env().engine(wb);
      const own = await engine
        .place(await env().createReport(byCountry), {
          at: { sheetId: s, row: 0, col: 0 },
          inputs: [{ member: "customers.country", ref: "Sheet1!B1" }],
        })
        .catch((e: unknown) => e);
      expect(own).toBeInstanceOf(CannotBind);
      expect((own as Error).message).toMatch(
        /^Sheet1!A1:C\d+ holds this report's own input cells: place it elsewhere, or bind cells outside it\.$/,
      );
      expect(await loadPlacements(wb.port)).toEqual([]);
      // A report of 3 rows at E1 (E1:F3); a range bound below it, E5:E6, empty but for E6.
      const grows = await env().createReport(byStatus(2));
      const below = await placed(engine, grows, { sheetId: s, row: 0, col: 4 });
      wb.user.edit(s, 5, 4, "Japan");
      const consumer = await engine.place(await env().createReport(byCountry), {
        at: { sheetId: s, row: 10, col: 0 },
        inputs: [{ member: "customers.country", ref: "Sheet1!E5:E6" }],
      });
      expect(consumer.kind).toBe("placed");
      await env().client().updateReport(env().deploymentId, grows.id, byStatus(5));
      const out = await engine.refresh(below.key, "ask");
      expect(out).toMatchObject({
        kind: "cannotGrow",
        placements: [expect.stringMatching(/^the input cells of “Report \d+” at Sheet1!E5:E6$/)],
      });
      expect(wb.user.cell(s, 4, 4)).toBe("");
    });

    it("issue 32: a viewer cannot change a placement's inputs or its switch: nothing is written", async () => {
      const { wb, key } = await boundBook();
      const before = JSON.stringify(await loadPlacements(wb.port));
      const viewer = env().engine(wb, "viewer", { roleOf: () => "viewer" as const });
      await expect(viewer.bindInputs(key, [])).rejects.toMatchObject({
        name: "ViewOnly",
        message: expect.stringMatching(/^You can view this report but not change its inputs — /),
      });
      await expect(viewer.setAutoRefresh(key, true)).rejects.toMatchObject({ name: "ViewOnly" });
      expect(JSON.stringify(await loadPlacements(wb.port))).toBe(before);
      expect((await wb.port.tracked()).length).toBe(2);
    });

    it("issue 32: Disconnect forgets the inputs' names with the placement's", async () => {
      const { wb, engine, key } = await boundBook();
      expect((await wb.port.tracked()).length).toBe(2);
      await engine.disconnect(key);
      expect(await wb.port.tracked()).toEqual([]);
    });
  });
}
