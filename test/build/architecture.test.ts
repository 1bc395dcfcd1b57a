// The import rules of docs/ARCHITECTURE.md (pure core ← adapters ← UI), checked
// by reading every import specifier in src/, dev/ and scripts/.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { REPO } from "../manifest/helpers.ts";

interface Import {
  file: string; // repo-relative
  line: number;
  specifier: string;
  /** Repo-relative target for relative specifiers; null for packages. */
  target: string | null;
}

const IMPORT =
  /(?:\bimport\s*(?:type\s+)?(?:[\w*{}\s,$]+from\s*)?|\bexport\s+(?:type\s+)?[\w*{}\s,$]+from\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  const abs = path.join(REPO, dir);
  let entries: string[];
  try {
    entries = readdirSync(abs);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(REPO, rel)).isDirectory()) return name === "node_modules" ? [] : sourceFiles(rel);
    return /\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

export function importsOf(file: string, source: string): Import[] {
  const found: Import[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const specifier = m[1]!;
    const line = source.slice(0, m.index).split("\n").length;
    const target = specifier.startsWith(".") ? path.normalize(path.join(path.dirname(file), specifier)) : null;
    found.push({ file, line, specifier, target });
  }
  return found;
}

const under = (p: string | null, dir: string) => p !== null && (p === dir || p.startsWith(dir + path.sep) || p.startsWith(dir + "."));

interface Rule {
  from: string;
  forbidden: (i: Import) => string | null;
}

const forbidDirs =
  (...dirs: string[]) =>
  (i: Import) => {
    const hit = dirs.find((d) => under(i.target, d));
    return hit ? `imports ${hit}` : null;
  };
/** A pane's live service: its live.ts and live-*.ts, the only files of a pane that reach src/api, src/sync or src/host. */
const isLive = (file: string) => /^live(-[\w-]+)?\.ts$/.test(path.basename(file));
const exceptLive =
  (check: (i: Import) => string | null) =>
  (i: Import): string | null =>
    isLive(i.file) ? null : check(i);
const both =
  (...checks: Array<(i: Import) => string | null>) =>
  (i: Import) =>
    checks.map((c) => c(i)).find((r) => r !== null) ?? null;

const RULES: Rule[] = [
  { from: "src", forbidden: forbidDirs("dev", "test", "bench", "scripts") },
  {
    from: "src/checksum",
    forbidden: both(
      (i) => (i.target !== null && !under(i.target, "src/checksum") ? `imports ${i.target} (the checksum core imports only itself)` : null),
      (i) =>
        i.target === null && i.specifier !== "xxhash-wasm" ? `imports the package ${i.specifier} (only xxhash-wasm is allowed)` : null,
    ),
  },
  { from: "src/api", forbidden: forbidDirs("src/host", "src/sync", "src/taskpane") },
  {
    // The chat protocol (schemas, NDJSON, conversation, client) is framework-free: no Preact, no vega.
    from: "src/api/chat",
    forbidden: both(forbidDirs("src/checksum"), (i) =>
      i.target === null && i.specifier !== "zod" ? `imports the package ${i.specifier} (src/api/chat uses only zod)` : null,
    ),
  },
  { from: "src/host", forbidden: forbidDirs("src/api", "src/sync", "src/taskpane") },
  // Protocol code with no UI framework: zod is the only package (style-models §1).
  {
    from: "src/api/comments",
    forbidden: (i) => (i.target === null && i.specifier !== "zod" ? `imports the package ${i.specifier} (only zod)` : null),
  },
  {
    from: "src/api/embed",
    forbidden: both(forbidDirs("src/api/comments"), (i) =>
      i.target === null && i.specifier !== "zod" ? `imports the package ${i.specifier} (only zod)` : null,
    ),
  },
  // A pane's views and state never import src/api or src/sync: only its live service (live.ts, live-*.ts),
  // the composition root (app/'s modules: backend.ts, workspace.ts…; never its views) and the shared
  // types' leaf (types.ts: the engine's facts about a placement, as a type) do.
  {
    from: "src/taskpane",
    forbidden: (i) =>
      isLive(i.file) || (under(i.file, "src/taskpane/app") && i.file.endsWith(".ts")) || i.file === path.normalize("src/taskpane/types.ts")
        ? null
        : forbidDirs("src/api", "src/sync")(i),
  },
  // The comments pane's views and state reach the API only through its live service (comments/live.ts).
  { from: "src/taskpane/comments", forbidden: exceptLive(forbidDirs("src/api", "src/sync", "src/host")) },
  // The dashboard pane likewise: the iframe, window and origin checks live in its live service (dashboard/live.ts).
  { from: "src/taskpane/dashboard", forbidden: exceptLive(forbidDirs("src/api", "src/sync", "src/host")) },
  { from: "src/sync", forbidden: forbidDirs("src/taskpane", "src/host/excel") },
  // The command line: the engine over the file port; no UI, no Office.js adapter of its own.
  { from: "src/cli", forbidden: forbidDirs("src/taskpane") },
  { from: "src/host/xlsx", forbidden: forbidDirs("src/host/memory/driver.ts", "src/host/contract") },
  { from: "dev/platform", forbidden: forbidDirs("src/host", "src/sync", "src/taskpane") },
  { from: "dev/excel", forbidden: forbidDirs("src/api", "src/sync", "src/taskpane") },
  // The Cube peer (installer, server, model, and its starter for tests and benchmarks) stands alone.
  { from: "dev/cube", forbidden: forbidDirs("src", "test", "bench") },
  { from: "scripts", forbidden: forbidDirs("src", "dev") },
  { from: "bench", forbidden: forbidDirs("test") },
];

describe("import rules (docs/ARCHITECTURE.md)", () => {
  it("finds imports of every form", () => {
    const source = [
      'import { a } from "../api/x.ts";',
      'import type { B } from "../host/port.ts";',
      'export { c } from "./c";',
      'const d = await import("../taskpane/d");',
      'import "./side-effect";',
    ].join("\n");
    expect(importsOf("src/sync/engine.ts", source).map((i) => [i.line, i.target])).toEqual([
      [1, path.normalize("src/api/x.ts")],
      [2, path.normalize("src/host/port.ts")],
      [3, path.normalize("src/sync/c")],
      [4, path.normalize("src/taskpane/d")],
      [5, path.normalize("src/sync/side-effect")],
    ]);
  });

  it.each(RULES.map((r) => [r.from, r]))("%s follows its rule", (_from, rule) => {
    const violations = sourceFiles(rule.from)
      .flatMap((file) => importsOf(file, readFileSync(path.join(REPO, file), "utf8")))
      .map((i) => ({ i, why: rule.forbidden(i) }))
      .filter((v) => v.why !== null)
      .map(({ i, why }) => `${i.file}:${i.line}: ${why} ("${i.specifier}")`);
    expect(violations).toEqual([]);
  });

  it("the rule for src/taskpane would catch a pane's view or state importing src/api or src/sync, not its live service", () => {
    const rule = RULES.find((r) => r.from === "src/taskpane")!;
    const [view] = importsOf("src/taskpane/chat/ChatView.tsx", 'import { x } from "../../api/chat";');
    const [state] = importsOf("src/taskpane/home/state.ts", 'import type { X } from "../../sync/status";');
    const [live] = importsOf("src/taskpane/chat/live.ts", 'import { x } from "../../api/chat";');
    const [frame] = importsOf("src/taskpane/app/App.tsx", 'import { x } from "../../api";');
    expect([view, state, live, frame].map((i) => rule.forbidden(i!))).toEqual([
      "imports src/api",
      "imports src/sync",
      null,
      "imports src/api",
    ]);
  });

  it("the rule for src/sync would catch an import of the UI", () => {
    const rule = RULES.find((r) => r.from === "src/sync")!;
    const [bad] = importsOf("src/sync/engine.ts", 'import { x } from "../taskpane/model";');
    expect(rule.forbidden(bad!)).toBe("imports src/taskpane");
  });
});
