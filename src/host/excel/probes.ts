// Excel probes: checks of Excel ITSELF (not of Cellbound's port) that pin what dev/excel assumes about
// real Excel's sharp edges (issue 22; docs/EXCEL-FIDELITY.md, "Sharp edges"). The Diagnostics view runs
// them after the port contract, on scratch sheets, so the first person who runs it in Excel learns in
// one click where dev/excel is wrong: a failing probe names what dev/excel models and what this Excel did.
// In vitest they run on dev/excel (test/host/excel-probes.test.ts), where they must all pass.

import { CheckSkipped, type CheckContext, type ContractCheck } from "../contract/checks.ts";

/** What a stand-in can do that code in real Excel cannot (a person does it there). */
export interface ProbeUserSide {
  /** Put the user in cell-edit mode (typing in a cell) and take them out of it. */
  cellEdit?: { enter(): void; leave(): void };
}

export const PROBE_PREFIX = "Excel: ";

function differs(what: string, modelled: string, seen: unknown): Error {
  return new Error(`${what}: dev/excel models ${modelled}; this Excel gave ${JSON.stringify(seen)}`);
}

export function excelProbes(X: typeof Excel, user: ProbeUserSide = {}): ContractCheck[] {
  const probe = (name: string, run: (ctx: CheckContext) => Promise<void>): ContractCheck => ({ name: PROBE_PREFIX + name, run });
  return [
    probe('a number written into a cell formatted "@" is stored as text', async ({ sheet }) => {
      const seen = await X.run(async (ctx) => {
        const r = ctx.workbook.worksheets.getItem(sheet.id).getRange("A1:B1");
        r.numberFormat = [["@", "@"]];
        r.values = [[42.5, true]];
        r.load("values,valueTypes");
        await ctx.sync();
        return { values: r.values, valueTypes: r.valueTypes };
      });
      if (JSON.stringify(seen) !== JSON.stringify({ values: [["42.5", "TRUE"]], valueTypes: [["String", "String"]] }))
        throw differs("number into a text cell", 'the text "42.5" / "TRUE" (valueTypes String)', seen);
    }),
  ];
}
