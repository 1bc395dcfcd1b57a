// Build the task pane + harness with webpack (programmatically, into a directory) and serve it with a
// tiny static server on 127.0.0.1, answering /harness-config.json too. Used by the e2e tests and the UI
// benchmark: a one-off build served statically is faster and steadier than webpack-dev-server.
import { createServer, type Server } from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { CONFIG_PATH, type HarnessConfig } from "./config.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".wasm": "application/wasm",
  ".xml": "application/xml",
  ".map": "application/json",
};

/** Build into outDir. mode "production" minifies (what the size budget measures); harness pages are included either way. */
export async function buildHarness(
  outDir: string,
  mode: "development" | "production" = "production",
): Promise<{ assets: string[]; entrypoints: Record<string, string[]> }> {
  const { default: webpack } = await import("webpack");
  const { default: configFn } = (await import(path.join(root, "webpack.config.js"))) as { default: (env: object, argv: object) => Promise<Record<string, unknown>> };
  const config = await configFn({ harness: true }, { mode });
  const output = { ...(config.output as object), path: outDir };
  const compiler = webpack({ ...config, output, context: root, devtool: false, infrastructureLogging: { level: "error" } } as never);
  const stats = await new Promise<import("webpack").Stats>((resolve, reject) =>
    compiler.run((err, s) => {
      compiler.close(() => undefined);
      if (err || !s) reject(err ?? new Error("webpack produced no stats"));
      else resolve(s);
    }),
  );
  if (stats.hasErrors()) throw new Error(`webpack build failed:\n${stats.toString({ all: false, errors: true })}`);
  const json = stats.toJson({ all: false, entrypoints: true, assets: true });
  const entrypoints: Record<string, string[]> = {};
  for (const [name, ep] of Object.entries(json.entrypoints ?? {})) {
    entrypoints[name] = (ep.assets ?? []).map((a) => a.name).filter((n) => n.endsWith(".js"));
  }
  return { assets: Object.keys(stats.compilation.assets), entrypoints };
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

export async function serveDir(dir: string, config: HarnessConfig): Promise<Served> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === CONFIG_PATH) {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(config));
      return;
    }
    const rel = url.pathname === "/" ? "harness.html" : decodeURIComponent(url.pathname).replace(/^\/+/, "");
    const file = path.resolve(dir, rel);
    if (!file.startsWith(path.resolve(dir) + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => {
        res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
        res.end(body);
      },
      () => res.writeHead(404).end("not found"),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
