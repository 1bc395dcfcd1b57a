// The embed page of the stand-in (seeds 02 §4.2 note 3, §6): {baseUrl}/embed/dashboard/{publicId}
// ?session=<id>&hostOrigin=<origin>[&allowExport=true][&timezone=<IANA>]. The HTML is a shell; the
// page's script (embed-page-client.ts, bundled with esbuild on first use) exchanges the session
// itself, draws the widgets with Vega-Lite, and speaks the postMessage protocol.
// The page's own endpoints live under /embed/api (ours, docs/API.md §11): its context (tenant,
// deployment, widgets, when its token stops working, the stand-in's clock), the stand-in's time
// (so that `POST /__dev/clock` moves the session timers), and one widget's rows with the page's
// filters and time zone. All but /time take the embed token like every embed endpoint.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { z } from "zod";
import type { DuckDBConnection } from "@duckdb/node-api";
import { EMBED_LIMITS } from "../../src/api/embed/schemas";
import { normalizeOrigin } from "../../src/api/embed/protocol";
import { HttpProblem } from "./service";
import type { EmbedService, SeededDashboard } from "./embed";
import { compileLoad, QueryError } from "./semantic";
import { widgetQuery } from "./dashboard-spec";
import { jsonBody } from "./validation";
import type { LoadQuery } from "../../src/api/schemas/data";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, "../..");

/** Host origins the dev stand-in posts to (issue 16): loopback http with a port, nothing else. */
const HOST_ORIGIN_ALLOWED = /^http:\/\/(127\.0\.0\.1|localhost):\d{1,5}$/;

export function allowedHostOrigin(o: string | undefined | null): string | null {
  if (!o) return null;
  const n = normalizeOrigin(o);
  return n && HOST_ORIGIN_ALLOWED.test(n) ? n : null;
}

const WidgetLoadBody = z.strictObject({
  filters: z
    .array(
      z.strictObject({
        member: z.string().regex(/^[A-Za-z_]\w*\.[A-Za-z_]\w*$/),
        values: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).max(1000),
      }),
    )
    .max(50),
  timezone: z.string().min(1).max(64).nullable(),
});

/** Runs one widget's query (the same compiler as /v1/load) and returns its rows. */
export async function loadWidgetRows(conn: DuckDBConnection, query: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  let compiled;
  try {
    compiled = compileLoad(query as LoadQuery);
  } catch (e) {
    if (e instanceof QueryError) throw new HttpProblem(400, e.message, "invalid", "filters");
    throw e;
  }
  const reader = await conn.runAndReadAll(compiled.jsonSql, compiled.params);
  return JSON.parse(`[${String(reader.getColumns()[0]?.[0] ?? "")}]`) as Array<Record<string, unknown>>;
}

/** The token's issue time (ms): the page's session stops working tokenUsableMs after it. Already verified by caller(). */
function issuedAtMs(header: string): number {
  const token = header.replace(/^(Embed-Token|Bearer) /, "");
  const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as { iat: number };
  return claims.iat * 1000;
}

let bundled: Promise<string> | null = null;
/** The page script, bundled once per process (zod and the protocol schemas included). */
function pageScript(): Promise<string> {
  bundled ??= (async () => {
    const esbuild = await import("esbuild");
    const r = await esbuild.build({
      entryPoints: [path.join(here, "embed-page-client.ts")],
      bundle: true,
      write: false,
      format: "iife",
      target: "es2022",
      platform: "browser",
      minify: false,
      logLevel: "silent",
    });
    return r.outputFiles[0]!.text;
  })();
  bundled.catch(() => {
    bundled = null;
  });
  return bundled;
}

const VENDOR: Record<string, string> = {
  "vega.js": "node_modules/vega/build/vega.min.js",
  "vega-lite.js": "node_modules/vega-lite/build/vega-lite.min.js",
  "vega-embed.js": "node_modules/vega-embed/build/vega-embed.min.js",
};
const vendorCache = new Map<string, string>();

const escapeJson = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface EmbedPageConfig {
  publicId: string;
  sessionId: string | null;
  /** null: not allow-listed; the page then posts nothing and accepts no action. */
  hostOrigin: string | null;
  allowExport: boolean;
  timezone: string | null;
  tokenUsableMs: number;
  expiringLeadMs: number;
}

export function embedPageRoutes(embed: EmbedService, conn: DuckDBConnection): Hono {
  const app = new Hono();

  app.get("/dashboard/:publicId", (c) => {
    const url = new URL(c.req.url);
    const cfg: EmbedPageConfig = {
      publicId: c.req.param("publicId"),
      sessionId: url.searchParams.get("session"),
      hostOrigin: allowedHostOrigin(url.searchParams.get("hostOrigin")),
      allowExport: url.searchParams.get("allowExport") === "true",
      timezone: url.searchParams.get("timezone"),
      tokenUsableMs: EMBED_LIMITS.tokenUsableMs,
      expiringLeadMs: EMBED_LIMITS.expiringLeadMs,
    };
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard ${escapeHtml(cfg.publicId)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script type="application/json" id="embed-config">${escapeJson(cfg)}</script>
<script src="/embed/assets/vega.js"></script><script src="/embed/assets/vega-lite.js"></script><script src="/embed/assets/vega-embed.js"></script>
</head><body><main id="app" aria-live="polite"><p>Loading…</p></main><script src="/embed/assets/page.js"></script></body></html>`;
    // No frame-ancestors here: a page framed by a host off the allow-list still loads, and then posts
    // nothing and accepts nothing (the rule issue 16 asks to observe). A platform may also restrict framing.
    return c.html(html, 200, { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
  });

  app.get("/assets/:name", async (c) => {
    const name = c.req.param("name");
    if (name === "page.js") return c.body(await pageScript(), 200, { "Content-Type": "text/javascript; charset=utf-8" });
    const file = VENDOR[name];
    if (!file) return c.json({ error: `No asset ${name}` }, 404);
    let text = vendorCache.get(name);
    if (text === undefined) vendorCache.set(name, (text = readFileSync(path.join(ROOT, file), "utf8")));
    return c.body(text, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "max-age=3600" });
  });

  app.get("/api/time", (c) => c.json({ now: embed.clock.now() }));

  app.get("/api/context/:publicId", (c) => {
    const header = c.req.header("Authorization");
    const caller = embed.caller(header);
    const d: SeededDashboard = embed.readableDashboard(caller, c.req.param("publicId"));
    return c.json({
      publicId: d.publicId,
      title: d.title,
      widgets: d.widgets,
      deploymentId: d.deploymentId,
      embedTenant: caller.kind === "external" ? caller.tenant : null,
      usableUntil: issuedAtMs(header!) + EMBED_LIMITS.tokenUsableMs,
      now: embed.clock.now(),
    });
  });

  app.post("/api/dashboard/:publicId/widgets/:widgetId/load", async (c) => {
    const caller = embed.caller(c.req.header("Authorization"));
    const d = embed.readableDashboard(caller, c.req.param("publicId"));
    const w = d.widgets.find((x) => x.id === c.req.param("widgetId"));
    if (!w) throw new HttpProblem(404, `Dashboard ${d.publicId} has no widget ${c.req.param("widgetId")}`);
    const body = await jsonBody(c, WidgetLoadBody);
    const query = widgetQuery(w, body.filters, body.timezone);
    return c.json({ query, data: await loadWidgetRows(conn, query) });
  });

  return app;
}
