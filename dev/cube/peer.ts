// A real semantic layer for tests and benchmarks: open-source Cube 0.33.65 on SQLite
// (dev/cube/server). installCube() installs it when missing (idempotent, see install.cjs);
// startCube() generates the dataset, starts Cube on a free 127.0.0.1 port and signs tokens with
// its secret. Both fail loudly with the reason: this suite never skips.
import { spawn, spawnSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SERVER_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "server");
/** Generated datasets are kept here between runs (git-ignored with the folder's node_modules). */
const DATA_DIR = path.join(SERVER_DIR, "node_modules", ".cache", "cellbound-cube");

/** Runs install.cjs; throws with its output when the install fails. */
export function installCube(): void {
  const r = spawnSync(process.execPath, [path.join(SERVER_DIR, "install.cjs")], { encoding: "utf8", timeout: 15 * 60_000 });
  if (r.status !== 0) {
    throw new Error(
      `Cube could not be installed for test/cube (node dev/cube/server/install.cjs exited ${r.status ?? r.signal}):\n${r.stderr}\n${r.stdout}`,
    );
  }
}

export interface RunningCube {
  url: string;
  /** e.g. http://127.0.0.1:PORT/cubejs-api — what createDataClient takes. */
  dataUrl: string;
  orders: number;
  /** An HS256 JWT signed with the server's secret (Cube accepts it raw in Authorization). */
  token(o?: { expiresInSec?: number; secret?: string }): string;
  stop(): Promise<void>;
}

/** HS256 JWT with node:crypto (no dependency of the main install). */
export function signJwt(payload: Record<string, unknown>, secret: string): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const head = `${b64({ alg: "HS256", typ: "JWT" })}.${b64(payload)}`;
  return `${head}.${createHmac("sha256", secret).update(head).digest("base64url")}`;
}

export async function startCube(o: { orders?: number; startTimeoutMs?: number } = {}): Promise<RunningCube> {
  const secret = randomBytes(24).toString("hex");
  const orders = o.orders ?? 100_000;
  mkdirSync(DATA_DIR, { recursive: true });
  const child = spawn(process.execPath, [path.join(SERVER_DIR, "serve.cjs")], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      NODE_ENV: "production",
      CUBEJS_CACHE_AND_QUEUE_DRIVER: "memory",
      CUBEJS_API_SECRET: secret,
      CUBEJS_DB_TYPE: "sqlite",
      CUBE_DATA_DIR: DATA_DIR,
      CUBE_ORDERS: String(orders),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-8000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const info = await new Promise<{ url: string; dataUrl: string }>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`Cube did not start within ${o.startTimeoutMs ?? 90_000} ms:\n${stderr}`));
    }, o.startTimeoutMs ?? 90_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line && out.includes("\n")) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string; dataUrl: string });
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Cube exited (${code ?? signal}) before it was ready:\n${stderr}`));
    });
  });
  return {
    ...info,
    orders,
    token: (t = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return signJwt({ iat: now, exp: now + (t.expiresInSec ?? 3600) }, t.secret ?? secret);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
