// Where Debian's Chromium lives, and the flags it needs on these machines.
// Playwright cannot download its own browser here, so every browser test,
// e2e test and benchmark launches this one. A missing Chromium is a loud error.
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist.`);
    return fromEnv;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      "Chromium was not found (looked in " +
        CANDIDATES.join(", ") +
        "). Install it with: sudo apt-get update && sudo apt-get install -y chromium  " +
        "(or set CHROMIUM_PATH to a Chromium binary).",
    );
  }
  return found;
}

/** Flags that keep headless Chromium quiet on a machine with no network but loopback. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];
