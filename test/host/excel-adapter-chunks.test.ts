// Issue 12 §2: the adapter's write blocks end on the fingerprint's chunk boundaries, so a sync that
// fails between two blocks leaves every chunk all old or all new (never half of each).
import { describe, expect, it } from "vitest";
import { createDevExcel } from "../../dev/excel/index.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";

const adapter = (Excel: unknown, dx: ReturnType<typeof createDevExcel>, writeBlockBytes: number) =>
  new ExcelPort({ Excel: Excel as typeof globalThis.Excel, Office: dx.Office as unknown as typeof Office, writeBlockBytes });

describe("adapter writes on chunk boundaries", () => {
  const rows = 2500;
  const oldGrid = Array.from({ length: rows }, (_, r) => [r, `old ${r}`, "x"]);
  const newGrid = Array.from({ length: rows }, (_, r) => [r, `new ${r}`, "y"]);
  // ~40 bytes a row (values + formats): a 60 kB budget holds about 1,500 rows — more than a chunk.
  const budget = 60_000;

  it("a sync failing after the first block leaves whole chunks new and the rest old", async () => {
    const dx = createDevExcel();
    const book = dx.workbook;
    const id = book.sheets[0]!.id;
    await adapter(dx.Excel, dx, budget).write({ sheetId: id, row: 0, col: 0 }, oldGrid);
    const failing = adapter(wrapFailing(dx, 2), dx, budget); // the second block's sync fails
    await expect(failing.write({ sheetId: id, row: 0, col: 0 }, newGrid, { breakRows: [1000, 2000] })).rejects.toThrow(
      /connection to Excel was lost/,
    );
    const landed = Array.from({ length: rows }, (_, r) => book.readCell(book.requireSheet(id), r, 1));
    const firstOld = landed.findIndex((v) => String(v).startsWith("old"));
    expect(firstOld).toBe(1000); // the block ended on a chunk boundary (the budget alone would end it near row 1,500)
    expect(landed.slice(0, firstOld).every((v) => String(v).startsWith("new"))).toBe(true);
    expect(landed.slice(firstOld).every((v) => String(v).startsWith("old"))).toBe(true);
  });

  it("without boundaries (or a chunk larger than the budget) blocks still follow the byte budget", async () => {
    const dx = createDevExcel();
    const sheetId = dx.workbook.sheets[0]!.id;
    const stats = await adapter(dx.Excel, dx, budget).write({ sheetId, row: 0, col: 0 }, newGrid, { breakRows: [2400] });
    expect(stats.maxSyncBytes).toBeLessThanOrEqual(budget);
    expect(stats.syncs).toBeGreaterThanOrEqual(2);
  });
});

/** Excel.run over `dx` whose n-th sync from now fails before it lands. */
function wrapFailing(dx: ReturnType<typeof createDevExcel>, failAt: number) {
  let syncs = 0;
  const run = dx.Excel.run.bind(dx.Excel) as (...a: unknown[]) => Promise<unknown>;
  return {
    ...dx.Excel,
    run: (...args: unknown[]) => {
      const batch = args[args.length - 1] as (ctx: { sync(): Promise<void> }) => Promise<unknown>;
      return run(...args.slice(0, -1), (ctx: { sync(): Promise<void> }) => {
        const sync = ctx.sync.bind(ctx);
        ctx.sync = async () => {
          if (++syncs === failAt) throw Object.assign(new Error("The connection to Excel was lost."), { code: "GeneralException" });
          return sync();
        };
        return batch(ctx);
      });
    },
  };
}
