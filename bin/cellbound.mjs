#!/usr/bin/env node
// The `cellbound` command (src/cli/main.ts). Runs dist/cli/cellbound.mjs — the command line bundled
// by `npm run build:cli`, which npm runs after `npm ci` (dev/cli-bundle.ts) — with plain node while
// every source it was built from has the size and mtime recorded beside it (a few ms of stat calls);
// otherwise (no bundle, or a source changed since) it runs the sources through tsx's loader, so an
// edit in src/ is never run stale. The same program either way: same output, same exit codes; the
// bundle starts faster and peaks ~50 MB lower (no loader thread, no TypeScript compiled at start).
// Dev aid: CELLBOUND_BIN_TRACE=1 prints on stderr which of the two runs, and why.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "dist", "cli");
const bundle = path.join(dir, "cellbound.mjs");
const entry = "src/cli/main.ts";

const isRecord = (r) =>
  typeof r === "object" &&
  r !== null &&
  typeof r.bytes === "number" &&
  typeof r.mtimeMs === "number" &&
  (r.path === undefined || (typeof r.path === "string" && r.path !== "" && !path.isAbsolute(r.path)));

/** The bundle's record of its inputs (dev/cli-bundle.ts's InputsFile), or null when missing or not one. */
function readInputs() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(path.join(dir, "cellbound.inputs.json"), "utf8"));
  } catch {
    return null;
  }
  const ok =
    inputs?.version === 1 &&
    inputs.entry === entry &&
    isRecord(inputs.bundle) &&
    Array.isArray(inputs.inputs) &&
    inputs.inputs.every((i) => isRecord(i) && i.path !== undefined) &&
    inputs.inputs.some((i) => i.path === entry);
  return ok ? inputs : null;
}

const same = (file, r) => {
  try {
    const s = statSync(file);
    return s.size === r.bytes && s.mtimeMs === r.mtimeMs;
  } catch {
    return false;
  }
};

/** Why the bundle must not run (a sentence), or null when it is as fresh as its sources. */
function staleness() {
  const inputs = readInputs();
  if (!inputs) return "no bundle built (npm run build:cli)";
  if (!same(bundle, inputs.bundle)) return "the bundle is not the one its record describes";
  const changed = inputs.inputs.find((i) => !same(path.resolve(root, i.path), i));
  return changed ? `${changed.path} changed since the bundle was built` : null;
}

const stale = staleness();
const trace = process.env.CELLBOUND_BIN_TRACE === "1" ? (t) => process.stderr.write(`cellbound: ${t}\n`) : () => {};
if (stale === null) {
  trace(`running the bundle ${path.relative(root, bundle)}`);
  await import(pathToFileURL(bundle).href);
} else {
  trace(`running ${entry} through tsx: ${stale}`);
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(root, entry)).href);
}
