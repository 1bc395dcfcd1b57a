// Child process for store.test.ts (issue 35 §3): opens a workbook with the file port and prints how
// much memory the port's model of it takes (V8 heap and array buffers, after a full collection).
import { XlsxPort } from "../../../src/host/xlsx/port.ts";

const gc = (globalThis as { gc?: () => void }).gc!;
const used = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const before = used();
const port = XlsxPort.open(process.argv[2]!);
const after = used();
let cells = 0;
for (const s of port.wb.sheets) for (const [, row] of s.cells) cells += row.size;
console.log(JSON.stringify({ bytes: after - before, cells }));
