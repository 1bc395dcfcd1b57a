// Child process for test/host/xlsx/locale.test.ts: saves a new workbook with tracking names whose
// order differs between locales ("aa…" sorts after "z…" in Danish), under the locale it was started with.
import { XlsxPort } from "../../../src/host/xlsx/port.ts";

const [file] = process.argv.slice(2);
const port = XlsxPort.open(file!, { create: "Sheet1" });
const [s] = await port.sheets();
for (const [i, name] of ["CB_zebra", "CB_aardvark", "CB_ab", "CB_Z2", "CB_aa_2"].entries())
  await port.track(name, { sheetId: s!.id, row: i * 3, col: 0, rows: 2, cols: 2 });
port.save();
console.log(Intl.DateTimeFormat().resolvedOptions().locale);
