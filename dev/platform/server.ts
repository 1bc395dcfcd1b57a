// The platform stand-in: one Hono app on 127.0.0.1 serving the management API
// (/api/v1), the data API (/cubejs-api/v1) and, in a later issue, the agent chat API
// (under /ai). State and the sample dataset live in DuckDB in the data dir.
//   startPlatform({ dataDir?, port?, slowQueryMs? }) → { info, close(), hooks, setSlowQueryMs }
// `info` is exactly the JSON line `npm run platform` prints.
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { serve, type ServerType } from "@hono/node-server";
import { Db } from "./db";
import { DEFAULT_CACHE_DIR, ensureDatasetFile } from "./dataset";
import { Store } from "./store";
import { Credentials } from "./auth";
import { ReportService, HttpProblem, type UpsertRaceHook } from "./service";
import { seedIfEmpty, seededIds } from "./seed";
import { managementRoutes } from "./management-routes";
import { dataRoutes } from "./data-routes";
import { platformCors } from "./cors";
import { Clock } from "./clock";
import { devRoutes } from "./dev-routes";
import { EmbedService, seededEmbed } from "./embed";
import { CommentService } from "./comments";
import { embedRoutes } from "./embed-routes";
import { commentsRoutes } from "./comments-routes";
import { embedPageRoutes } from "./embed-page";
import { exportsRoutes } from "./exports-routes";
import { SQL_VIEWS_DDL } from "./semantic";
import { ACCOUNT_NAME, DEPLOYMENTS, USERS, type PersonaName } from "./personas";

export interface PlatformOptions {
  /** Where the DuckDB file lives; omitted → a fresh temp dir, removed on close. */
  dataDir?: string;
  /** Origins allowed by CORS besides loopback ones (e.g. a tunnel's https origin). */
  corsOrigins?: string[];
  /** 0 (default) → any free port. */
  port?: number;
  /** Extra time every /v1/load takes; with it, slow queries answer "Continue wait". */
  slowQueryMs?: number;
  /** How long a data request waits for a running query before "Continue wait" (default 1000). */
  continueWaitMs?: number;
  /** Shared cache of the generated dataset (default node_modules/.cache/cellbound-platform). */
  datasetCacheDir?: string;
  /** Log lines (default: stderr). */
  log?: (line: string) => void;
  /** Mount the dev-only routes under /__dev (`POST /__dev/clock`); off unless asked for. */
  devHooks?: boolean;
  /** DuckDB worker threads (default 1: on a 2-core dev machine the JS thread needs the other; A/B measured in docs/API.md §7). */
  threads?: number;
}

/** Exactly the JSON line printed on startup. */
export interface PlatformInfo {
  baseUrl: string;
  dataUrl: string;
  aiUrl: string;
  accountName: string;
  deployments: Array<{ id: number; name: string }>;
  apiKeys: Record<PersonaName, string>;
  legacyPublicIds: { unique: string; ambiguous: string };
  externalWorkbooks: { mixed: string; oversized: string };
  /** Seeded embed tenants, dashboards (shared: every tenant reads it; restricted: only the first) and branches of deployment 1. */
  embed: { tenants: string[]; dashboards: { shared: string; restricted: string }; branches: { running: string; stopped: string } };
}

export interface PlatformHooks {
  /** Runs `hook` once, inside the next upsert, between its decision and its application. */
  onNextUpsert(hook: UpsertRaceHook): void;
  /**
   * The next `times` upserts see another writer act between decision and application:
   * "create" or "delete" the report with their publicId, or "flip" (delete it when it
   * exists, else create it). Each such upsert answers 409 upsert_branch_changed.
   */
  raceNextUpsert(kind: "create" | "delete" | "flip", times?: number): void;
}

export interface RunningPlatform {
  info: PlatformInfo;
  /** The stand-in's clock (tests may advance it directly, as `POST /__dev/clock` does). */
  clock: Clock;
  hooks: PlatformHooks;
  setSlowQueryMs(ms: number): void;
  /** Startup figures in ms; `generated` is true when the dataset was built on this start. */
  startup: { ms: number; datasetMs: number; generated: boolean };
  close(): Promise<void>;
}

export async function startPlatform(options: PlatformOptions = {}): Promise<RunningPlatform> {
  const t0 = performance.now();
  const log = options.log ?? ((l: string) => process.stderr.write(l + "\n"));
  const temp = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "cellbound-platform-"));
  mkdirSync(dataDir, { recursive: true });
  let slowQueryMs = options.slowQueryMs ?? 0;

  const td = performance.now();
  const dataset = await ensureDatasetFile(dataDir, options.datasetCacheDir ?? DEFAULT_CACHE_DIR);
  const generated = dataset.generated;
  const datasetMs = performance.now() - td;
  const db = await Db.open(dataDir, dataset.file, options.threads ?? 1);
  for (const ddl of SQL_VIEWS_DDL) await db.run(ddl);
  const store = await Store.load(db);
  await seedIfEmpty(store);
  const clock = new Clock();
  const creds = await Credentials.load(store, clock);
  const service = new ReportService(store, clock);
  const embed = await EmbedService.load(store, db, creds, clock);
  const comments = new CommentService(embed, clock);
  const dataConn = await db.reader();
  await dataConn.run("SET enable_external_access = false");

  const app = new Hono();
  app.use("*", platformCors(options.corsOrigins));
  app.use("*", bodyLimit({ maxSize: 2 * 1024 * 1024, onError: (c) => c.json({ error: "The body is over 2 MiB", code: "too_long", field: "(body)" }, 400) }));
  if (options.devHooks) app.route("/__dev", devRoutes(clock, embed));
  // Embed routes first: they authenticate with embed tokens, not the management API's Bearer keys.
  app.route("/api/v1/embed/dashboard/:publicId/comments", commentsRoutes(embed, comments));
  app.route("/api/v1/embed", embedRoutes(embed, creds));
  // The embed page and its own endpoints (seeds 02 §4.2 note 3, §6; docs/API.md §8).
  app.route("/embed", embedPageRoutes(embed, dataConn));
  app.route("/api/v1/dashboard-exports", exportsRoutes(creds, clock, dataConn));
  app.route("/api/v1", managementRoutes(service, creds));
  app.route("/cubejs-api", dataRoutes(dataConn, creds, { slowQueryMs: () => slowQueryMs, continueWaitMs: options.continueWaitMs ?? 1000 }));
  app.notFound((c) => c.json({ error: `No route for ${c.req.method} ${new URL(c.req.url).pathname}` }, 404));
  app.onError((e, c) => {
    if (e instanceof HttpProblem) {
      return c.json({ error: e.message, ...(e.code ? { code: e.code } : {}), ...(e.field ? { field: e.field } : {}) }, e.status as 400);
    }
    log(`platform: internal error on ${c.req.method} ${new URL(c.req.url).pathname}: ${(e as Error).stack ?? e}`);
    return c.json({ error: "Internal error" }, 500);
  });

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: options.port ?? 0 }, () => resolve(s));
  });
  // Keep idle connections longer than clients do (undici drops them after 4 s): a client reusing a
  // socket the server is just closing sees ECONNRESET (met between two large svcsql answers).
  if ("keepAliveTimeout" in server) {
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  }
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const info: PlatformInfo = {
    baseUrl,
    dataUrl: `${baseUrl}/cubejs-api`,
    aiUrl: `${baseUrl}/ai`,
    accountName: ACCOUNT_NAME,
    deployments: DEPLOYMENTS.map((d) => ({ id: d.id, name: d.name })),
    apiKeys: creds.apiKeys,
    ...seededIds,
    embed: seededEmbed,
  };

  const admin = USERS.find((u) => u.persona === "admin")!;
  const hooks: PlatformHooks = {
    onNextUpsert: (hook) => service.onNextUpsert(hook),
    raceNextUpsert: (kind, times = 1) => {
      let left = times;
      const arm = () => service.onNextUpsert(async (ctx) => {
        if (--left > 0) arm();
        const k = kind !== "flip" ? kind : service.hasPublicId(ctx.publicId) ? "delete" : "create";
        await service.concurrentWrite(k, ctx.deploymentId, ctx.publicId, admin);
      });
      if (left > 0) arm();
    },
  };

  let closing: Promise<void> | null = null;
  const close = () => closing ??= (async () => {
    // Stop accepting, let in-flight requests finish (at most 2 s), then drop what is left.
    // Writes are committed before their response, and db.close() waits for the write queue.
    const http = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => http.closeAllConnections?.(), 2_000);
      server.close(() => { clearTimeout(force); resolve(); });
      http.closeIdleConnections?.();
    });
    dataConn.closeSync();
    await db.close();
    if (temp) rmSync(dataDir, { recursive: true, force: true });
  })();

  const startupMs = performance.now() - t0;
  log(`platform: listening on ${baseUrl} (data dir ${dataDir}; dataset ${generated ? "generated" : "reused"} in ${datasetMs.toFixed(0)} ms; ready in ${startupMs.toFixed(0)} ms)`);
  return { info, clock, hooks, setSlowQueryMs: (ms) => { slowQueryMs = ms; }, startup: { ms: startupMs, datasetMs, generated }, close };
}
