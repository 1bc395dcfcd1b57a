// Every workbook in test/fixtures/xlsx-corpus (see SOURCE.md there): place a report beside what a sheet
// holds, refresh it unchanged and changed, and check that every part other than the ones Cellbound
// edits keeps its bytes, the edited parts keep their other XML, LibreOffice shows what the engine
// wrote, and a LibreOffice save keeps the placement (corpus-check.ts).
import { readdirSync } from "node:fs";
import path from "node:path";
import { startCliEnv, type CliEnv } from "../../cli/support.ts";
import { libreOffice, type LibreOffice } from "../../support/libreoffice.ts";
import { placeAndRefreshKeepsTheRest } from "./corpus-check.ts";
import { tempDir } from "./support.ts";

const CORPUS = path.resolve(import.meta.dirname, "../../fixtures/xlsx-corpus");
const FILES = readdirSync(CORPUS).filter((f) => /\.xls[xm]$/i.test(f));

let env: CliEnv;
let lo: LibreOffice;
const tmp = tempDir("cb-corpus-");
beforeAll(async () => {
  env = await startCliEnv();
  lo = libreOffice();
});
afterAll(async () => {
  await env.close();
  lo.close();
  tmp.remove();
});

it("the corpus folder holds workbooks", () => {
  expect(FILES.length).toBeGreaterThan(0);
});

for (const name of FILES) {
  it(`${name}: place and refresh keep every other part byte-identical; LibreOffice agrees`, { timeout: 240_000 }, async () => {
    await placeAndRefreshKeepsTheRest(env, lo, path.join(CORPUS, name), tmp.file(name), { wholeWorkbook: true });
  });
}
