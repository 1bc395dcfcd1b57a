// The offline manifest validator: parse (with line numbers), then the schema's
// rules (structure.ts), cross-references and icon files (references.ts), and
// Cellbound's own rules (policy.ts). Every problem carries the line it is on.
//
//   import { validateManifestFile, formatProblem } from "./scripts/manifest/validate.ts";
//   const problems = validateManifestFile("manifest.xml");
import { readFileSync } from "node:fs";
import path from "node:path";
import { checkPolicy } from "./policy.ts";
import { checkReferences } from "./references.ts";
import { checkStructure, type Problem } from "./structure.ts";
import { parseXml } from "./xml.ts";

export type { Problem } from "./structure.ts";

export interface ValidateOptions {
  /** Directory the add-in's own URLs (its origin) are served from: where icon files are looked up. */
  baseDir: string;
}

/** All problems in a manifest's text, sorted by line. An empty list means it passed. */
export function validateManifestText(source: string, options: ValidateOptions): Problem[] {
  const parsed = parseXml(source);
  if (!parsed.ok) return [{ line: parsed.line, message: `not well-formed XML: ${parsed.message}` }];
  const { problems, typeOf } = checkStructure(parsed.root);
  if (typeOf.size > 0) {
    problems.push(...checkReferences({ root: parsed.root, typeOf, baseDir: options.baseDir }));
    problems.push(...checkPolicy(parsed.root));
  }
  const seen = new Set<string>();
  return problems
    .filter((p) => {
      const key = `${p.line}\n${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.line - b.line);
}

/** Validates a manifest file; icon URLs on the pane's origin are looked up next to it. */
export function validateManifestFile(file: string): Problem[] {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (err) {
    return [{ line: 0, message: `cannot read the manifest: ${err instanceof Error ? err.message : String(err)}` }];
  }
  return validateManifestText(source, { baseDir: path.dirname(path.resolve(file)) });
}

/** "manifest.xml:12: message" — the form editors and CI logs link to (no line: "manifest.xml: message"). */
export function formatProblem(label: string, problem: Problem): string {
  return problem.line > 0 ? `${label}:${problem.line}: ${problem.message}` : `${label}: ${problem.message}`;
}
