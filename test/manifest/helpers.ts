// Shared helpers for the manifest tests: the real manifest's text, edited copies,
// and the line number of a snippet inside an edited copy.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const MANIFEST_PATH = path.join(REPO, "manifest.xml");
export const REAL_MANIFEST = readFileSync(MANIFEST_PATH, "utf8");

/** Replaces `from` (which must occur exactly once) with `to` in the real manifest. */
export function edit(source: string, from: string, to: string): string {
  const first = source.indexOf(from);
  if (first < 0) throw new Error(`test setup: snippet not found in manifest: ${from}`);
  if (source.indexOf(from, first + 1) >= 0) throw new Error(`test setup: snippet occurs more than once: ${from}`);
  return source.slice(0, first) + to + source.slice(first + from.length);
}

/** 1-based line of the `nth` (1-based) occurrence of `snippet` in `source`. */
export function lineOf(source: string, snippet: string, nth = 1): number {
  let at = -1;
  for (let i = 0; i < nth; i++) {
    at = source.indexOf(snippet, at + 1);
    if (at < 0) throw new Error(`test setup: snippet not found: ${snippet}`);
  }
  return source.slice(0, at).split("\n").length;
}
