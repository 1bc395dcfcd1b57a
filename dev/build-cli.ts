// npm run build:cli (and npm's `prepare`, after npm ci / npm install): bundles the command line into
// dist/cli/cellbound.mjs, with dist/cli/cellbound.inputs.json (what it was built from) beside it.
// bin/cellbound.mjs runs that bundle with plain node while its sources are unchanged (dev/cli-bundle.ts).
// Where esbuild (a devDependency) is not installed, nothing is built and the command runs through tsx.
import path from "node:path";

const esbuildMissing = (e: unknown) =>
  (e as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && /['"]esbuild['"]/.test(String((e as Error).message));

try {
  const { buildCli, ROOT } = await import("./cli-bundle.ts");
  const t = performance.now();
  const built = await buildCli();
  console.log(
    `cellbound: built ${path.relative(ROOT, built.bundle)} from ${built.inputs.inputs.length} files in ${Math.round(performance.now() - t)} ms`,
  );
} catch (e) {
  if (!esbuildMissing(e)) throw e;
  console.log("cellbound: esbuild is not installed (dev dependencies left out): the command runs through tsx.");
}
