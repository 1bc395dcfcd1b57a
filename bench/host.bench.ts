// Benchmark (issue 5): write and then read back 100,000 × 20 cells through the Office.js adapter on
// dev/excel. Reports the number of syncs, the largest request/response bytes of one sync (must stay
// ≤ 5 MB: Excel on the web's limit) and the time; the plain in-memory port doing the same work in the
// same run is the baseline for the ratio.
import { createDevExcel, PAYLOAD_LIMIT_BYTES } from "../dev/excel/index.ts";
import { ExcelPort } from "../src/host/excel/index.ts";
import { MemoryPort } from "../src/host/memory/index.ts";
import type { SheetPort, SheetValue } from "../src/host/port.ts";
import { round, writeResult } from "./lib.ts";

const ROWS = 100_000;
const COLS = 20;

function makeGrid(): SheetValue[][] {
  const grid: SheetValue[][] = new Array(ROWS);
  for (let r = 0; r < ROWS; r++) {
    const row: SheetValue[] = new Array(COLS);
    for (let c = 0; c < COLS; c++) {
      row[c] = c % 4 === 0 ? `item-${r}-${c}` : c % 4 === 1 ? r * 1.25 + c : c % 4 === 2 ? `=SUM(A${r})` : r % 2 === 0;
    }
    grid[r] = row;
  }
  return grid;
}

async function writeAndRead(port: SheetPort, sheetId: string, grid: SheetValue[][]) {
  const t0 = performance.now();
  const w = await port.write({ sheetId, row: 0, col: 0 }, grid);
  const t1 = performance.now();
  let rows = 0,
    mismatches = 0;
  for await (const block of port.read({ sheetId, row: 0, col: 0, rows: ROWS, cols: COLS })) {
    for (const row of block) {
      const want = grid[rows++]!;
      for (let c = 0; c < COLS; c++) if (row[c] !== want[c]) mismatches++;
    }
  }
  const t2 = performance.now();
  if (rows !== ROWS || mismatches !== 0) throw new Error(`read back ${rows} rows with ${mismatches} mismatching cells`);
  return { writeMs: t1 - t0, readMs: t2 - t1, totalMs: t2 - t0, writeSyncs: w.syncs, adapterMaxWriteBytes: w.maxSyncBytes };
}

const grid = makeGrid();

const mem = new MemoryPort();
const memSheet = (await mem.sheets())[0]!.id;
const baseline = await writeAndRead(mem, memSheet, grid);

const dx = createDevExcel({ platform: "OfficeOnline" });
const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
const sheetId = dx.workbook.sheets[0]!.id;
const result = await writeAndRead(port, sheetId, grid);
const stats = dx.workbook.stats;
if (stats.maxRequestBytes > PAYLOAD_LIMIT_BYTES || stats.maxResponseBytes > PAYLOAD_LIMIT_BYTES) {
  throw new Error(`a sync exceeded 5 MB: request ${stats.maxRequestBytes}, response ${stats.maxResponseBytes}`);
}
const formulaCells = dx.workbook.sheets[0]!.rows.reduce((n, row) => n + (row?.filter((c) => c?.f !== undefined).length ?? 0), 0);
if (formulaCells !== 0) throw new Error(`${formulaCells} cells hold formulas`);

writeResult({
  name: "host-write-read-100k-x-20",
  unit: "ms",
  value: round(result.totalMs),
  baseline: round(baseline.totalMs),
  ratio: result.totalMs / baseline.totalMs,
  details: {
    rows: ROWS,
    cols: COLS,
    cells: ROWS * COLS,
    syncs: stats.syncs,
    writeSyncs: result.writeSyncs,
    failedSyncs: stats.failedSyncs,
    maxRequestBytes: stats.maxRequestBytes,
    maxResponseBytes: stats.maxResponseBytes,
    limitBytes: PAYLOAD_LIMIT_BYTES,
    calcSuspensions: stats.calcSuspensions,
    screenSuspensions: stats.screenSuspensions,
    undoGroups: stats.undoGroups,
    writeMs: round(result.writeMs),
    readMs: round(result.readMs),
    formulaCells,
    baseline: "plain in-memory port, same grid, same run",
  },
});
console.log(
  `  syncs ${stats.syncs} (write ${result.writeSyncs}), largest request ${stats.maxRequestBytes} B, largest response ${stats.maxResponseBytes} B (limit ${PAYLOAD_LIMIT_BYTES}), ` +
    `write ${round(result.writeMs)} ms, read ${round(result.readMs)} ms`,
);
