// What `cellbound` says: sheet names Excel refuses, usage, reports you cannot open, targets in the way
// (issue 36 item 9, issue 35 §4) — against the platform stand-in, files in a temporary folder.
import { existsSync, readFileSync, statSync } from "node:fs";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byStatus, startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-words-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};

describe("issue 36 item 9: sheet names Excel refuses are refused before anything is written", () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      "'A name that is longer than thirty-one characters'",
      "A name that is longer than thirty-one characters",
      /at most 31 characters \(this one has 48\)/,
    ],
    ["'Sales/Costs'", "Sales/Costs", /cannot contain any of : \\ \/ \? \* \[ \] \(this one holds \/\)/],
    ["'Q[1]'", "Q[1]", /\(this one holds \[ \]\)/],
    ["'What?'", "What?", /\(this one holds \?\)/],
    ["'All*'", "All*", /\(this one holds \*\)/],
    ["'a:b'", "a:b", /\(this one holds :\)/],
    ["'back\\slash'", "back\\slash", /\(this one holds \\\)/],
    ["'''quoted'", "'quoted", /cannot begin or end with an apostrophe/],
    ["'ends'''", "ends'", /cannot begin or end with an apostrophe/],
    ["History", "History", /Excel reserves the name History/],
    ["''", "", /a sheet name cannot be blank/],
  ];

  it("issue 36 item 9: a new workbook is not created, and nothing reaches the platform (exit 2, the name and the rule)", async () => {
    const report = await env.createReport(byStatus(2));
    const placementsBefore = env.platform.state.placements().length;
    for (const [i, [quoted, name, rule]] of cases.entries()) {
      const file = tmp.file(`new-${i}.xlsx`);
      const out = await env.cli(["place", file, "--report", String(report.id), "--at", `${quoted}!A1`, "--json"]);
      expect(out.code, quoted).toBe(2);
      const error = out.json().files[0]!.error!;
      expect(error, quoted).toMatch(rule);
      if (name) expect(error, quoted).toContain(`“${name}”`);
      expect(error, quoted).toMatch(/Nothing was written\.$/);
      expect(existsSync(file), quoted).toBe(false);
    }
    expect(env.platform.state.placements()).toHaveLength(placementsBefore);
  });

  it("issue 36 item 9: an existing workbook gets no such sheet and keeps its bytes; a sheet it already has is used as it is", async () => {
    const report = await env.createReport(byStatus(2));
    const file = tmp.file("existing.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const same = untouched(file);
    const text = await env.cli(["place", file, "--report", String(report.id), "--at", "'Sales/Costs'!A1"]);
    expect(text.code).toBe(2);
    expect(text.stdout + text.stderr).toMatch(/Excel does not allow the sheet name “Sales\/Costs”/);
    same();
    expect(XlsxPort.open(file).wb.sheets.map((s) => s.name)).toEqual(["Sheet1"]);
    // A name Excel accepts, at its limit of 31 characters and with an apostrophe inside, is added.
    const ok = "It's thirty-one characters long";
    expect(ok).toHaveLength(31);
    const added = await env.cli(["place", file, "--report", String(report.id), "--at", `'${ok.replace(/'/g, "''")}'!A1`, "--json"]);
    expect(added.code).toBe(0);
    expect(XlsxPort.open(file).wb.sheets.map((s) => s.name)).toEqual(["Sheet1", ok]);
  });
});
