// `npm run platform`: exactly one JSON line on stdout, curl-style calls answered as the
// seeds say, SIGTERM stops cleanly with nothing lost, and a restart on the same data dir
// keeps state and reuses the dataset.
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPlatformClient, generatePublicId } from "../../src/api";
import type { PlatformInfo } from "../../dev/platform/server";
import { spawnPlatform } from "../../dev/platform/spawn";

const root = path.resolve(import.meta.dirname, "../..");
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<{ child: ChildProcess; info: PlatformInfo; stdout: () => string }> {
  const p = await spawnPlatform(["--data-dir", dataDir]);
  children.push(p.child);
  return p;
}
const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.on("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });

describe("npm run platform", () => {
  it("prints one JSON line, serves the seeds' answers, stops on SIGTERM and keeps state across restarts", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cellbound-cli-"));
    dirs.push(dir);
    const a = await start(dir);
    expect(Object.keys(a.info)).toEqual([
      "baseUrl",
      "dataUrl",
      "aiUrl",
      "accountName",
      "deployments",
      "chat",
      "apiKeys",
      "legacyPublicIds",
      "externalWorkbooks",
      "embed",
    ]);
    expect(a.info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.info.deployments).toHaveLength(2);
    expect(Object.keys(a.info.apiKeys)).toEqual(["admin", "analyst", "viewer", "outsider"]);

    const me = await fetch(`${a.info.baseUrl}/api/v1/users/me`, { headers: { Authorization: `Bearer ${a.info.apiKeys.viewer}` } });
    expect(me.status).toBe(200);
    const c = createPlatformClient({ baseUrl: a.info.baseUrl, credential: a.info.apiKeys.analyst });
    const publicId = generatePublicId();
    const created = await c.upsertReport(1, publicId, { name: "survives restarts" });

    expect(await stop(a.child)).toBe(0);
    expect(a.stdout().trim().split("\n")).toHaveLength(1);

    const b = await start(dir);
    expect(b.info.apiKeys).toEqual(a.info.apiKeys);
    const c2 = createPlatformClient({ baseUrl: b.info.baseUrl, credential: b.info.apiKeys.analyst });
    const again = (await c2.listReports(1)).items.find((r) => r.publicId === publicId);
    expect(again).toEqual(created);
    expect(await stop(b.child)).toBe(0);
  }, 120_000);
  it("rejects a bad option with a usage message", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "dev/platform/main.ts", "--port", "abc"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let err = "";
    let out = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(2);
    expect(err).toContain("--port");
    expect(out).toBe("");
  }, 60_000);
});
