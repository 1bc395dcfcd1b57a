// Start the stand-in as its own process (`dev/platform/main.ts`, what `npm run platform` runs) and
// wait for its JSON line. Used where the platform must not share the caller's event loop, as the
// real platform does not: the CLI test and the sync benchmark.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PlatformInfo } from "./server.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface SpawnedPlatform {
  child: ChildProcess;
  info: PlatformInfo;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `args`: extra CLI options, e.g. ["--data-dir", dir]. Rejects with its stderr if it exits or is not ready in `timeoutMs`. */
export function spawnPlatform(args: string[] = [], timeoutMs = 60_000): Promise<SpawnedPlatform> {
  const child = spawn(process.execPath, ["--import", "tsx", "dev/platform/main.ts", "--port", "0", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.on("exit", (code) => resolve(code));
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`platform did not start in ${timeoutMs / 1000} s; stderr:\n${err}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`platform exited with ${code}; stderr:\n${err}`));
    });
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ child, info: JSON.parse(out.split("\n")[0]!) as PlatformInfo, stdout: () => out, stop });
      }
    });
  });
}
