// The `cellbound` command as it ships: src/cli/main.ts bundled by esbuild into one ES module that plain
// `node` runs (issue 35 §3: tsx's loader runs on its own thread with its own V8 isolate, ~50 MB of a
// refresh's peak RSS, and compiles TypeScript at every start). npm packages stay external: they load
// from node_modules as they do under tsx. Beside the bundle, `cellbound.inputs.json` records what it was
// built from (esbuild's metafile inputs, with their size and mtime), so bin/cellbound.mjs runs the bundle
// only while every one of them is unchanged, and the sources through tsx otherwise.
// Used by `npm run build:cli` (dev/build-cli.ts), the command-line tests and bench/xlsx.bench.ts.
import { existsSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Where `npm run build:cli` puts the bundle; bin/cellbound.mjs looks there. */
export const CLI_BUNDLE_DIR = "dist/cli";
export const CLI_BUNDLE = "cellbound.mjs";
/** The record of what the bundle was built from (read by bin/cellbound.mjs; keep the two in step). */
export const CLI_INPUTS = "cellbound.inputs.json";
export const CLI_ENTRY = "src/cli/main.ts";
/** Files that shape the bundle without being in it: a change to them also makes it stale. */
const BUILT_WITH = ["tsconfig.json", "dev/cli-bundle.ts"];

export interface InputRecord {
  /** Relative to the project root, with forward slashes. */
  path: string;
  bytes: number;
  mtimeMs: number;
}
export interface InputsFile {
  version: 1;
  entry: string;
  builtAt: string;
  bundle: { bytes: number; mtimeMs: number };
  inputs: InputRecord[];
}

/** Bundles `entry` (relative to `root`) into `outFile`: one ES module for Node 20, packages external. Returns the inputs it read. */
export async function bundle(o: { root?: string; entry: string; outFile: string }): Promise<string[]> {
  const root = o.root ?? ROOT;
  const result = await build({
    absWorkingDir: root,
    entryPoints: [o.entry],
    outfile: o.outFile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(result.metafile.inputs);
}

/**
 * Links `dir/node_modules` to the project's when `dir` lies outside the project: a bundle's external
 * packages are found from the folder it is in, as Node finds any module's.
 */
export function linkPackages(dir: string, root = ROOT): void {
  const inside = !path.relative(root, dir).startsWith("..");
  const link = path.join(dir, "node_modules");
  if (!inside && !existsSync(link)) symlinkSync(path.join(root, "node_modules"), link, "dir");
}

const record = (root: string, file: string): InputRecord => {
  const s = statSync(path.resolve(root, file));
  return { path: file.split(path.sep).join("/"), bytes: s.size, mtimeMs: s.mtimeMs };
};

/**
 * Builds the command line into `outDir` (default dist/cli under `root`): the bundle, then the record of
 * its inputs, each written whole and renamed into place. A source saved while esbuild was reading it
 * could be recorded with its new mtime but bundled as it was: any input saved during the build builds
 * again (at most 3 times, then fails).
 */
export async function buildCli(o: { root?: string; outDir?: string } = {}): Promise<{ bundle: string; inputs: InputsFile }> {
  const root = o.root ?? ROOT;
  const outDir = path.resolve(root, o.outDir ?? CLI_BUNDLE_DIR);
  mkdirSync(outDir, { recursive: true });
  const out = path.join(outDir, CLI_BUNDLE);
  const tmp = `${out}.${process.pid}.tmp`;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const started = Date.now();
    const read = await bundle({ root, entry: CLI_ENTRY, outFile: tmp });
    const finished = Date.now();
    const inputs = [...read.filter((f) => !f.startsWith("<")), ...BUILT_WITH.filter((f) => existsSync(path.join(root, f)))].map((f) =>
      record(root, f),
    );
    if (inputs.some((i) => i.mtimeMs >= started && i.mtimeMs <= finished)) continue;
    renameSync(tmp, out);
    const s = statSync(out);
    const file: InputsFile = {
      version: 1,
      entry: CLI_ENTRY,
      builtAt: new Date().toISOString(),
      bundle: { bytes: s.size, mtimeMs: s.mtimeMs },
      inputs,
    };
    const inputsPath = path.join(outDir, CLI_INPUTS);
    writeFileSync(`${inputsPath}.${process.pid}.tmp`, JSON.stringify(file, null, 1) + "\n");
    renameSync(`${inputsPath}.${process.pid}.tmp`, inputsPath);
    linkPackages(outDir, root);
    return { bundle: out, inputs: file };
  }
  rmSync(tmp, { force: true });
  throw new Error(`${CLI_ENTRY}'s sources kept changing while the command line was being bundled; run npm run build:cli again.`);
}
