// Child process for store.test.ts (issue 35 §3): opens a workbook with the file port and prints how
// much memory the port's model of it takes (V8 heap and array buffers, after a full collection).
import { setTimeout as sleep } from "node:timers/promises";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";

const gc = (globalThis as { gc?: () => void }).gc!;
// A collection frees an ArrayBuffer's backing store on a background thread, so `arrayBuffers`
// can still count a buffer that is already garbage right after gc() (measured: 52 MB once in
// six runs, 11 MB 50 ms later). Collect until two readings in a row agree.
const used = async () => {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    gc();
    await sleep(20);
    const m = process.memoryUsage();
    const now = m.heapUsed + m.arrayBuffers;
    if (Math.abs(now - last) < 64 * 1024) return now;
    last = now;
  }
  return last;
};
const before = await used();
const port = XlsxPort.open(process.argv[2]!);
const after = await used();
let cells = 0;
for (const s of port.wb.sheets) for (const [, row] of s.cells) cells += row.size;
console.log(JSON.stringify({ bytes: after - before, cells }));
