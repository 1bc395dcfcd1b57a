// `npm run validate` as a process: exit codes and the FILE:LINE: output.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { edit, lineOf, REAL_MANIFEST, REPO } from "./helpers.ts";

function runValidate(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(REPO, "scripts/validate-manifest.ts"), ...args], {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("scripts/validate-manifest.ts", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "cellbound-validate-"));
    cpSync(path.join(REPO, "assets"), path.join(dir, "assets"), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes manifest.xml offline and exits 0", () => {
    const run = runValidate(["--offline", "manifest.xml"]);
    expect(run.err).toBe("");
    expect(run.out).toContain("manifest.xml: offline check passed");
    expect(run.out).toContain("manifest.xml: online validation not run: --offline was given.");
    expect(run.code).toBe(0);
  });

  it("prints each problem of a broken copy as FILE:LINE: message and exits 1", () => {
    const broken = edit(
      REAL_MANIFEST.replace(/<Version>[^<]*<\/Version>/, "<Version>2</Version>"),
      'resid="OpenPane.Tooltip"',
      'resid="Nope"',
    );
    const file = path.join(dir, "broken.xml");
    writeFileSync(file, broken);
    const run = runValidate(["--offline", file]);
    expect(run.code).toBe(1);
    const lines = run.err.trim().split("\n");
    expect(lines).toEqual([
      `${file}:${lineOf(broken, "<Version>")}: <Version> "2" must be a four-part version such as 1.0.0.0`,
      `${file}:${lineOf(broken, 'resid="Nope"')}: resid "Nope" on <Description> does not resolve: no bt:LongStrings entry has that id`,
      `${file}: 2 problems found by the offline check.`,
    ]);
    expect(run.out).not.toContain("passed");
  });

  it("without --offline, reports the online check plainly: passed, rejected, or not run with a reason", () => {
    const run = runValidate(["manifest.xml"], { CELLBOUND_VALIDATE_TIMEOUT_MS: "10000" });
    const notRun = /online validation not run: \S.*/.test(run.out);
    const passed = run.out.includes("Microsoft's online validation passed.");
    expect(notRun !== passed).toBe(true); // exactly one of them
    if (notRun) expect(run.code).toBe(0); // the offline check passed; nothing claims more
  });

  it("checks every file given and fails if any fails", () => {
    const file = path.join(dir, "no-version.xml");
    writeFileSync(file, REAL_MANIFEST.replace(/ {2}<Version>[^<]*<\/Version>\n/, ""));
    const run = runValidate(["--offline", "manifest.xml", file]);
    expect(run.out).toContain("manifest.xml: offline check passed");
    expect(run.err).toContain(`${file}:${lineOf(REAL_MANIFEST, "<OfficeApp")}: <OfficeApp> is missing <Version>`);
    expect(run.code).toBe(1);
  });

  it("rejects unknown options", () => {
    const run = runValidate(["--strict", "manifest.xml"]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("usage:");
  });
});
