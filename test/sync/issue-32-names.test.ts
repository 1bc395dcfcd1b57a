// Issue 32: an input bound to a workbook-scoped defined name (the port's namedArea), on the in-memory
// port and on the Office.js adapter over dev/excel: the name's cells are bound, found whatever the name's
// case; the binding follows them; a name the workbook does not have is refused in words.
import { describe, expect, it } from "vitest";
import type { ReportInput } from "../../src/api/index.ts";
import { CannotBind } from "../../src/sync/index.ts";
import { devExcelWorkbook, memoryWorkbook, useEnv, type TestWorkbook, type WorkbookKind } from "./support.ts";

const COUNTRIES = ["Germany", "France", "United States", "Japan", "Brazil", "India", "Kenya", "Australia"];
const byCountry: ReportInput = {
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.country", "orders.status"],
    order: [
      ["customers.country", "asc"],
      ["orders.status", "asc"],
    ],
  }),
};

/** The countries of the placed rows (whole cells). */
const countries = (wb: TestWorkbook, s: string) =>
  new Set([...wb.user.cells(s).values()].filter((v): v is string => typeof v === "string" && COUNTRIES.includes(v)));

function nameScenarios(label: string, kind: WorkbookKind): void {
  describe(`issue 32: inputs bound to a defined name (${label})`, () => {
    const env = useEnv();
    let n = 0;

    /** "Inputs" with Germany and Kenya in B1:B2, named Regions; the report placed on Sheet1. */
    function book(): { wb: TestWorkbook; sheet: string; inputs: string } {
      const wb = kind(`https://files.example/names-${++n}.xlsx`);
      const inputs = wb.user.addSheet("Inputs");
      wb.user.edit(inputs, 0, 1, "Germany");
      wb.user.edit(inputs, 1, 1, "Kenya");
      wb.user.defineName("Regions", inputs, 0, 1, 2, 1);
      return { wb, sheet: wb.user.firstSheetId(), inputs };
    }

    it("issue 32: a defined name (in any case) binds its cells; the rows are those of its values; a row inserted above moves the binding with them", async () => {
      const { wb, sheet, inputs } = book();
      const engine = env().engine(wb);
      const out = await engine.place(await env().createReport(byCountry), {
        at: { sheetId: sheet, row: 0, col: 0 },
        inputs: [{ member: "customers.country", ref: "REGIONS" }],
      });
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      expect(countries(wb, sheet)).toEqual(new Set(["Germany", "Kenya"]));
      expect((await engine.inputs(out.key)).inputs[0]).toMatchObject({
        where: "Inputs!B1:B2",
        values: ["Germany", "Kenya"],
        problem: null,
      });
      wb.user.insertRows(inputs, 0, 1);
      wb.user.edit(inputs, 2, 1, "Japan");
      expect((await engine.inputs(out.key)).inputs[0]).toMatchObject({ where: "Inputs!B2:B3", values: ["Germany", "Japan"] });
      expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
      expect(countries(wb, sheet)).toEqual(new Set(["Germany", "Japan"]));
    });

    it("issue 32: Inputs… binds a placement's filter to a defined name later (bindInputs), and an unknown member is refused in words", async () => {
      const { wb, sheet } = book();
      const engine = env().engine(wb);
      const out = await engine.place(await env().createReport(byCountry), { at: { sheetId: sheet, row: 0, col: 0 } });
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      await engine.bindInputs(out.key, [{ member: "customers.country", ref: "Regions" }]);
      expect((await engine.inputs(out.key)).inputs[0]).toMatchObject({ where: "Inputs!B1:B2", values: ["Germany", "Kenya"] });
      expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
      expect(countries(wb, sheet)).toEqual(new Set(["Germany", "Kenya"]));
      const err = await engine.bindInputs(out.key, [{ member: "customers.nonesuch", ref: "Regions" }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CannotBind);
      expect((err as Error).message).toBe("“customers.nonesuch” is not a member of the data model: check its name (cube.member).");
    });

    it("issue 32: a name the workbook does not have is refused when bound, and nothing is placed", async () => {
      const { wb, sheet } = book();
      const engine = env().engine(wb);
      const err = await engine
        .place(await env().createReport(byCountry), {
          at: { sheetId: sheet, row: 0, col: 0 },
          inputs: [{ member: "customers.country", ref: "Nowhere" }],
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CannotBind);
      expect((err as Error).message).toMatch(/Nowhere/);
      expect(wb.user.cells(sheet).size).toBe(0);
      expect(await engine.placements()).toEqual([]);
    });
  });
}

nameScenarios("memory port", memoryWorkbook);
nameScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
