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
    probe("Excel.run accepts delayForCellEdit and runs at once when no cell is being edited", async ({ sheet }) => {
      await X.run({ delayForCellEdit: true }, async (ctx) => {
        ctx.workbook.worksheets.getItem(sheet.id).getRange("A1").values = [[1]];
        await ctx.sync();
      });
    }),
    probe("in cell-edit mode a batch fails with InvalidOperationInCellEditMode; with delayForCellEdit it waits", async ({ sheet }) => {
      const edit = user.cellEdit;
      if (!edit)
        throw new CheckSkipped(
          "needs a person: code cannot put Excel in cell-edit mode. To check by hand, run a Refresh all while typing in a cell (do not press Enter): it must wait, not fail.",
        );
      const write = (delay: boolean) =>
        X.run({ delayForCellEdit: delay }, async (ctx) => {
          ctx.workbook.worksheets.getItem(sheet.id).getRange("A1").values = [[delay ? 2 : 1]];
          await ctx.sync();
        });
      edit.enter();
      let code: unknown = "no error";
      try {
        await write(false);
      } catch (e) {
        code = (e as { code?: unknown }).code;
      }
      let waited = true;
      const delayed = write(true).then(() => void (waited = false));
      await new Promise((r) => setTimeout(r, 50));
      const stillWaiting = waited;
      edit.leave();
      await delayed;
      if (code !== "InvalidOperationInCellEditMode") throw differs("a batch in cell-edit mode", "InvalidOperationInCellEditMode", code);
      if (!stillWaiting) throw differs("a delayed batch in cell-edit mode", "waiting until the cell is left", "ran at once");
    }),
  ];
}
