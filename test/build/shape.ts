// The shape of src/, measured with the TypeScript compiler API (issue 34): how long each function is,
// and which modules import each other in a circle. Used by test/build/architecture.test.ts and by
// `npx tsx test/build/shape.ts` (prints the figures).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { REPO } from "../manifest/helpers.ts";

export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(REPO, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(REPO, rel)).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

function parse(file: string): ts.SourceFile {
  const text = readFileSync(path.join(REPO, file), "utf8");
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** The name people would search for: the declaration's, the variable or property it is assigned to, else "(anonymous)". */
function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name)))
    return named.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const p = node.parent;
  if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
  if (ts.isPropertyDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  return "(anonymous)";
}

/** Every function, method, arrow function and accessor of src/ with its length in lines (its whole text, nested functions included). */
export function functionSizes(dir = "src"): FunctionSize[] {
  const out: FunctionSize[] = [];
  for (const file of sourceFiles(dir)) {
    const sf = parse(file);
    const visit = (node: ts.Node) => {
      if (
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node)
      ) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        out.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** The files of src/ each file imports (relative imports, type-only ones included). */
export function importGraph(dir = "src"): Map<string, string[]> {
  const files = sourceFiles(dir);
  const known = new Set(files);
  const resolve = (from: string, spec: string): string | null => {
    const base = path.normalize(path.join(path.dirname(from), spec));
    for (const c of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")])
      if (known.has(c)) return c;
    return null;
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const sf = parse(file);
    const targets = new Set<string>();
    const visit = (node: ts.Node) => {
      let spec: ts.Expression | undefined;
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) spec = node.moduleSpecifier;
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) spec = node.arguments[0];
      if (spec && ts.isStringLiteral(spec) && spec.text.startsWith(".")) {
        const t = resolve(file, spec.text);
        if (t) targets.add(t);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Import circles: the strongly connected components of more than one file (Tarjan), each sorted. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out;
}

// `npx tsx test/build/shape.ts`: the figures.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(REPO, "test/build/shape.ts")) {
  const sizes = functionSizes().sort((a, b) => b.lines - a.lines);
  const over = (n: number) => sizes.filter((f) => f.lines > n);
  process.stdout.write(`functions over 80 lines: ${over(80).length}; over 120: ${over(120).length}\n`);
  for (const f of over(80)) process.stdout.write(`  ${f.lines}\t${f.name}\t${f.file}:${f.line}\n`);
  const circles = importCircles(importGraph());
  process.stdout.write(`import circles: ${circles.length}\n`);
  for (const c of circles) process.stdout.write(`  ${c.join(" ↔ ")}\n`);
  const lines = (f: string) => readFileSync(path.join(REPO, f), "utf8").split("\n").length;
  process.stdout.write(`src/sync/engine.ts: ${lines("src/sync/engine.ts")} lines\n`);
}
