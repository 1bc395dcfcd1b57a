// Build the task pane + harness with webpack (programmatically, into a directory) and serve it with a
// tiny static server on 127.0.0.1, answering /harness-config.json too. Used by the e2e tests and the UI
// benchmark: a one-off build served statically is faster and steadier than webpack-dev-server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { CONFIG_PATH, type HarnessConfig } from "./config.ts";
import { handleXlsxBridge } from "./xlsx-bridge.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Where Office.js is served from in local runs (same as webpack.config.js) and where it is read from. */
const OFFICE_JS_PATH = "/office-js/";
const OFFICE_JS_DIR = path.join(root, "node_modules/@microsoft/office-js/dist");

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
  const { default: configFn } = (await import(path.join(root, "webpack.config.js"))) as {
    default: (env: object, argv: object) => Promise<Record<string, unknown>>;
  };
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

/** Does the platform answer a CORS preflight from another origin? (The pane runs on its own origin.) */
export async function answersCors(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/$/, "")}/api/v1/users/me`, {
      method: "OPTIONS",
      headers: { origin: "http://127.0.0.1:1", "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    return res.headers.get("access-control-allow-origin") !== null;
  } catch {
    return false;
  }
}

const PROXY_PREFIX = "/_platform";

/**
 * Serve a built directory. When the stand-in does not answer CORS, the platform is reached through a
 * same-origin pass-through under /_platform (and a warning says so on stderr), so the harness still
 * works; with CORS the pane talks to the stand-in's own origin, as it talks to a real tenant.
 */
export async function serveDir(dir: string, upstream: HarnessConfig): Promise<Served & { config: HarnessConfig; proxied: boolean }> {
  const proxied = !(await answersCors(upstream.baseUrl));
  const target = new URL(upstream.baseUrl).origin;
  if (proxied) process.stderr.write(`harness: the platform at ${target} does not answer CORS; proxying it under ${PROXY_PREFIX}\n`);
  let config = upstream;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (handleXlsxBridge(req, res)) return; // "Open .xlsx…" / "Save as .xlsx"
    if (proxied && url.pathname.startsWith(PROXY_PREFIX + "/")) {
      void passThrough(req, res, target + url.pathname.slice(PROXY_PREFIX.length) + url.search);
      return;
    }
    if (url.pathname === CONFIG_PATH) {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(config));
      return;
    }
    // Office.js from the pinned @microsoft/office-js package (never the CDN in a local run).
    const fromOffice = url.pathname.startsWith(OFFICE_JS_PATH);
    const base = fromOffice ? OFFICE_JS_DIR : dir;
    const rel =
      url.pathname === "/"
        ? "harness.html"
        : decodeURIComponent(fromOffice ? url.pathname.slice(OFFICE_JS_PATH.length) : url.pathname).replace(/^\/+/, "");
    const file = path.resolve(base, rel);
    if (!file.startsWith(path.resolve(base) + path.sep)) {
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
  const own = `http://127.0.0.1:${port}`;
  if (proxied) {
    const via = (u: string) => (new URL(u).origin === target ? own + PROXY_PREFIX + u.slice(target.length) : u);
    config = {
      ...upstream,
      baseUrl: via(upstream.baseUrl),
      dataUrl: via(upstream.dataUrl),
      ...(upstream.sessionUrl ? { sessionUrl: via(upstream.sessionUrl) } : {}),
    };
  }
  return {
    url: own,
    config,
    proxied,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function passThrough(req: IncomingMessage, res: ServerResponse, to: string): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
    const method = req.method ?? "GET";
    const upstream = await fetch(to, {
      method,
      headers,
      ...(method === "GET" || method === "HEAD" ? {} : { body: Buffer.concat(chunks) }),
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (k !== "content-encoding" && k !== "content-length" && k !== "transfer-encoding") out[k] = v;
    });
    res.writeHead(upstream.status, out);
    res.end(Buffer.from(await upstream.arrayBuffer()));
  } catch (e) {
    res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: `harness proxy: ${(e as Error).message}` }));
  }
}
