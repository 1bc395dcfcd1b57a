// Stored bytes do not depend on the machine's locale (issue 36, item 11): the same save under Danish
// collation (where "aa" sorts after "z") and under the default locale writes the same bytes.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./support.ts";

const tmp = tempDir("cb-locale-");
afterAll(() => tmp.remove());

function saveUnder(locale: string | null, file: string): string {
  const env = { ...process.env };
  delete env.LC_ALL;
  delete env.LC_COLLATE;
  delete env.LANG;
  if (locale) Object.assign(env, { LANG: locale, LC_ALL: locale });
  const out = execFileSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "locale-child.ts"), file], {
    env,
    encoding: "utf8",
  });
  return out.trim();
}

it("issue 36 item 11: a save under da_DK.UTF-8 writes the same bytes as under the default locale", () => {
  const danish = tmp.file("da.xlsx");
  const plain = tmp.file("default.xlsx");
  expect(saveUnder("da_DK.UTF-8", danish)).toBe("da-DK"); // Node's ICU took the Danish locale
  expect(saveUnder(null, plain)).not.toBe("da-DK");
  expect(readFileSync(danish).equals(readFileSync(plain))).toBe(true);
});
