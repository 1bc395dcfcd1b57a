// A platform that stops answering (issue 35 §5): once a request's deadline passes with no answer, no
// more files are started — they end at once as "not tried" — and --timeout bounds the whole run.
// The stand-in's fault mode holds every data request unanswered ("hang").
import { readFileSync, statSync } from "node:fs";
import { tempDir } from "../host/xlsx/support.ts";
import { byStatus, startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-hung-");
const files: string[] = [];
beforeAll(async () => {
  env = await startCliEnv();
  const report = await env.createReport(byStatus(3));
  for (let i = 1; i <= 8; i++) {
    const file = tmp.file(`Book ${i}.xlsx`);
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"]);
    expect(out.code, out.stderr).toBe(0);
    files.push(file);
  }
});
afterAll(async () => {
  env.platform.chaos.off();
  await env.close();
  tmp.remove();
});

const hangData = () => env.platform.chaos.set({ seed: 3, rates: { hang: 1 }, paths: /^\/cubejs-api\// });

const snapshot = () => files.map((f) => ({ bytes: readFileSync(f), mtime: statSync(f).mtimeMs }));
const unchanged = (before: ReturnType<typeof snapshot>) =>
  files.forEach((f, i) => {
    expect(readFileSync(f).equals(before[i]!.bytes), f).toBe(true);
    expect(statSync(f).mtimeMs, f).toBe(before[i]!.mtime);
  });

describe("issue 35 §5: a platform that stops answering", () => {
  it("issue 35 §5: after the first deadline with no answer, the files not yet started end at once as not tried", async () => {
    const before = snapshot();
    hangData();
    const t0 = Date.now();
    let out: Awaited<ReturnType<CliEnv["cli"]>>;
    try {
      // Data calls: 2 s per attempt, a budget of a minute — as before the fix, 8 files would take two waves
      // of 4 × 5 attempts × 2 s = 20 s or more.
      out = await env.cli(["refresh", ...files, "--json"], "analyst", {
        api: { deadlines: { dataAttemptMs: 2_000 }, dataRetry: { maxElapsedMs: 60_000, baseDelayMs: 10, maxDelayMs: 50 } },
      });
    } finally {
      env.platform.chaos.off();
    }
    const elapsed = Date.now() - t0;
    expect(out.code).toBe(1);
    const results = out.json().files;
    const notTried = results.filter((f) => f.notTried);
    const tried = results.filter((f) => !f.notTried);
    expect(notTried.length, JSON.stringify(results, null, 1)).toBeGreaterThanOrEqual(4);
    for (const f of notTried) {
      expect(f.notTried).toMatch(/^the platform stopped answering \(no answer within [12](\.\d)? s\)$/);
      expect(f.placements).toEqual([]);
    }
    for (const f of tried)
      expect(f.placements[0]).toMatchObject({ outcome: "not-refreshed", reason: expect.stringMatching(/the platform stopped answering/) });
    expect(elapsed).toBeLessThan(12_000);
    unchanged(before);
    const text = await env.cli(["status", files[0]!]);
    expect(text.code).toBe(0); // the platform answers again: nothing was left half done
  }, 60_000);

  it("issue 35 §5: --timeout bounds the whole run; what it did not reach says so", async () => {
    const before = snapshot();
    hangData(); // with the default deadlines (a minute per data call), only the run's time limit ends it
    const t0 = Date.now();
    let out: Awaited<ReturnType<CliEnv["cli"]>>;
    try {
      out = await env.cli(["refresh", ...files, "--timeout", "3", "--concurrency", "2"]);
    } finally {
      env.platform.chaos.off();
    }
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/not-refreshed — the run's time limit of 3 s \(--timeout\) passed/);
    expect(out.stdout).toMatch(/Book 8\.xlsx\n {2}not tried: the run's time limit of 3 s \(--timeout\) passed/);
    unchanged(before);
  }, 60_000);
});
