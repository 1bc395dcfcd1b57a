// dev/excel's fault mode (dev/excel/faults.ts), driven through the real Office.js adapter
// (src/host/excel) as Cellbound drives it: a multi-block write meets payload-limit errors, a sync
// that fails halfway, and co-authors typing between two blocks, inside the block and beside it.
import { createDevExcel, DevExcelFaults, type DevWorkbook } from "../../dev/excel/index.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";

/** 40 rows × 3 columns of distinct values; ~25 bytes a row. */
const GRID = Array.from({ length: 40 }, (_, r) => [`r${r}`, r, r % 2 === 0]);

function setup(faults: DevExcelFaults) {
  const dx = createDevExcel({ platform: "OfficeOnline", faults });
  // Blocks of about 4 rows: a 40-row write takes ~10 syncs.
  const port = new ExcelPort({
    Excel: dx.Excel as unknown as typeof Excel,
    Office: dx.Office as unknown as typeof Office,
    writeBlockBytes: 160,
  });
  const sheetId = dx.workbook.sheets[0]!.id;
  return { port, wb: dx.workbook, sheetId };
}
const at = (sheetId: string) => ({ sheetId, row: 1, col: 1 }); // B2
const cell = (wb: DevWorkbook, r: number, c: number) => wb.readCell(wb.sheets[0]!, r, c);

describe("dev/excel fault mode", () => {
  it("is off unless set: a multi-block write lands whole", async () => {
    const { port, wb, sheetId } = setup(new DevExcelFaults());
    const stats = await port.write(at(sheetId), GRID);
    expect(stats.syncs).toBeGreaterThan(5);
    expect(cell(wb, 40, 1)).toBe("r39");
    expect(wb.stats.failedSyncs).toBe(0);
  });

  it("payload-limit errors are RequestPayloadSizeLimitExceeded; the adapter halves its blocks and the write still lands", async () => {
    const faults = new DevExcelFaults({ seed: 3, rates: { payloadLimit: 0.3 } });
    const { port, wb, sheetId } = setup(faults);
    await port.write(at(sheetId), GRID);
    expect(faults.counts().payloadLimit).toBeGreaterThan(0);
    expect(wb.stats.failedSyncs).toBe(faults.counts().payloadLimit);
    for (let r = 0; r < GRID.length; r++) expect(cell(wb, 1 + r, 1)).toBe(`r${r}`);
  });

  it("a sync that fails mid-write: blocks before it stay written, the rest never arrive, and the error is Excel's GeneralException", async () => {
    const faults = new DevExcelFaults({ seed: 11, rates: { syncFailure: 0.25 } });
    const { port, wb, sheetId } = setup(faults);
    const err = await port.write(at(sheetId), GRID).then(
      () => null,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    expect(err).not.toBeNull();
    expect(faults.counts().syncFailure).toBe(1);
    expect(err!.cause?.code ?? (err as { code?: string }).code).toMatch(/GeneralException/);
    // Rows are written top-down: a prefix is there, the row after the failure point is not.
    const written = GRID.map((_, r) => cell(wb, 1 + r, 1) === `r${r}`);
    const firstMissing = written.indexOf(false);
    expect(firstMissing).toBeGreaterThanOrEqual(0);
    expect(written.slice(firstMissing).every((w) => !w)).toBe(true);
    expect(cell(wb, 40, 1)).toBe(""); // the last row never arrived
  });

  it("co-authors type between two blocks, inside the block just written and beside it; every edit is logged and fires onChanged", async () => {
    const faults = new DevExcelFaults({ seed: 5, rates: { coauthorInside: 0.3, coauthorBeside: 0.3 } });
    const { port, wb, sheetId } = setup(faults);
    const seen: string[] = [];
    wb.subscribe((e) => {
      if (e.kind === "changed" && e.triggerSource === "Unknown") seen.push(e.address);
    });
    await port.write(at(sheetId), GRID);
    await new Promise((r) => setTimeout(r, 0)); // events arrive after the change, as in Excel
    const edits = faults.edits();
    expect(edits.filter((e) => e.inside).length).toBeGreaterThan(0);
    expect(edits.filter((e) => !e.inside).length).toBeGreaterThan(0);
    expect(seen).toHaveLength(edits.length);
    for (const e of edits) {
      if (e.inside) {
        expect(e.col).toBeGreaterThanOrEqual(1);
        expect(e.col).toBeLessThanOrEqual(3);
      } else {
        expect(e.col).toBe(4); // just right of B:D
      }
      // An edit inside a block stays (the writer moved on); one beside it always does.
      expect(cell(wb, e.row, e.col)).toBe(e.value);
    }
    expect(faults.counts().coauthorInside + faults.counts().coauthorBeside).toBe(edits.length);
  });

  it("reads are never faulted, and the same seed gives the same faults", async () => {
    const run = async () => {
      const faults = new DevExcelFaults({ seed: 99, rates: { coauthorInside: 0.2, coauthorBeside: 0.2, payloadLimit: 0.2 } });
      const { port, wb, sheetId } = setup(faults);
      await port.write(at(sheetId), GRID);
      const before = faults.counts();
      for await (const _ of port.read({ sheetId, row: 0, col: 0, rows: 50, cols: 6 })) void _;
      expect(faults.counts()).toEqual(before);
      return { counts: faults.counts(), edits: [...faults.edits()], snapshot: JSON.stringify(wb.snapshot()) };
    };
    const a = await run();
    const b = await run();
    expect(a.counts).toEqual(b.counts);
    expect(a.edits).toEqual(b.edits);
  });
});
