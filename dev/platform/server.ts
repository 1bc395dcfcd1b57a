// The platform stand-in: one Hono app on 127.0.0.1 serving the management API
// (/api/v1), the data API (/cubejs-api/v1) and the agent chat API (under /ai, chat-routes.ts). State and the sample dataset live in DuckDB in the data dir.
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
import { Store, type StoredPlacement, type StoredReport } from "./store";
import { Credentials } from "./auth";
import { ReportService, HttpProblem, type UpsertRaceHook } from "./service";
import { seedIfEmpty, seededIds } from "./seed";
import { managementRoutes } from "./management-routes";
import { dataRoutes, type SvcsqlLimits } from "./data-routes";
import { platformCors } from "./cors";
import { Clock } from "./clock";
import { devRoutes } from "./dev-routes";
import { EmbedService, seededEmbed } from "./embed";
import { CommentService } from "./comments";
import { embedRoutes } from "./embed-routes";
import { commentsRoutes } from "./comments-routes";
import { embedPageRoutes } from "./embed-page";
import { exportsRoutes } from "./exports-routes";
import { SQL_VIEW_NAMES } from "./semantic";
import { DataDb } from "./data-db";
import { clientWentAway, lingeringClose, requestBody } from "./request-body";
import { Chaos, type ChaosSettings } from "./chaos";
import { ACCOUNT_NAME, DEPLOYMENTS, USERS, type PersonaName } from "./personas";
import { chatRoutes, DEFAULT_AGENTS } from "./chat-routes";
import { DEFAULT_APP_CONFIG } from "./management-routes";
import type { AppConfig } from "../../src/api/chat/schemas";
import { ScheduledTasks, scheduledTaskRoutes } from "./scheduled-tasks";

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
  /** svcsql row cap, byte cap and statement timeout (defaults: SVCSQL_LIMITS in data-routes.ts). */
  svcsql?: Partial<SvcsqlLimits>;
  /** Shared cache of the generated dataset (default node_modules/.cache/cellbound-platform). */
  datasetCacheDir?: string;
  /** Log lines (default: stderr). */
  log?: (line: string) => void;
  /** Mount the dev-only routes under /__dev (`POST /__dev/clock`); off unless asked for. */
  devHooks?: boolean;
  /** Start in fault mode (dev/platform/chaos.ts); `platform.chaos.set()` can also turn it on later. */
  chaos?: Partial<ChaosSettings>;
  /** Delay between streamed chat deltas in ms (default 30, so a stream lasts long enough to interrupt). */
  chatDeltaMs?: number;
  /** Overrides of GET /api/v1/app-config (tests turn chat off with `{ sheetsAgentChatEnabled: false }`). */
  appConfig?: Partial<AppConfig>;
  /** Scheduled tasks enabled for the account (default true; `--no-scheduled-tasks` turns them off). */
  scheduledTasks?: boolean;
  /**
   * Seed the edge-case fixtures the tests need (legacy placeholder ids, the mixed and over-limit
   * workbooks; default true). The demo starts (`npm start`, the e2e and bench harness servers) pass
   * false, so a new user's catalogue holds only the demo's reports (seed.ts).
   */
  fixtures?: boolean;
  /** DuckDB worker threads (default 1: on a 2-core dev machine the JS thread needs the other; A/B measured in docs/API.md §7). */
  threads?: number;
}

/** Exactly the JSON line printed on startup. */
export interface PlatformInfo {
  baseUrl: string;
  dataUrl: string;
  aiUrl: string;
  accountName: string;
  /** `apiSecret`: the HS256 secret that signs the deployment's tokens (dev only: tests craft tokens with it). */
  deployments: Array<{ id: number; name: string; apiSecret: string }>;
  /** The chat API's default agent (deployment 1's) and the deployments whose token form of chat is on. */
  chat: { agentId: string; tokenChatDeploymentIds: number[] };
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
   * exists, else create it). Each such upsert answers 409 upsert_branch_changed. The other
   * writer is the admin (default) or, with "caller", the user whose upsert is raced (another tab).
   */
  raceNextUpsert(kind: "create" | "delete" | "flip", times?: number, writer?: "admin" | "caller"): void;
}

export interface RunningPlatform {
  info: PlatformInfo;
  /** The stand-in's clock (tests may advance it directly, as `POST /__dev/clock` does). */
  clock: Clock;
  hooks: PlatformHooks;
  /** The fault mode: `set({ seed, rates })`, `off()`, `counts()`. */
  chaos: Chaos;
  /** Read-only view of the management state, for tests and the soak (never served over HTTP). */
  state: {
    reports(): StoredReport[];
    placements(): StoredPlacement[];
    /** Consistency problems (see Store.verify); empty when healthy. */
    verify(): Promise<string[]>;
    /** svcsql statements running now. */
    svcsqlRunning(): number;
  };
  setSlowQueryMs(ms: number): void;
  setChatDeltaMs(ms: number): void;
  /** Changes GET /api/v1/app-config from now on (tests: turn chat off). */
  setAppConfig(patch: Partial<AppConfig>): void;
  /** Turn scheduled tasks on or off for the account (as `--no-scheduled-tasks` does at start). */
  setScheduledTasks(on: boolean): void;
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
  let chatDeltaMs = options.chatDeltaMs ?? 30;
  /** Deployment 1 has "Use authentication for Chat and embedding APIs" on, deployment 2 off. */
  const tokenChatDeploymentIds = [1];

  const td = performance.now();
  const dataset = await ensureDatasetFile(dataDir, options.datasetCacheDir ?? DEFAULT_CACHE_DIR);
  const generated = dataset.generated;
  const datasetMs = performance.now() - td;
  const db = await Db.open(dataDir, options.threads ?? 1);
  // Views a data dir from before the sandbox may still hold in its state database (they named `sample`).
  for (const v of SQL_VIEW_NAMES) await db.run(`DROP VIEW IF EXISTS ${v}`);
  const dataDb = await DataDb.open(dataset.file, { threads: options.threads ?? 1 });
  const store = await Store.load(db);
  await seedIfEmpty(store, { fixtures: options.fixtures ?? true });
  const clock = new Clock();
  const creds = await Credentials.load(store, clock);
  const service = new ReportService(store, clock);
  const embed = await EmbedService.load(store, db, creds, clock);
  const comments = new CommentService(embed, clock);

  const app = new Hono();
  app.use("*", platformCors(options.corsOrigins));
  app.use(
    "*",
    bodyLimit({
      maxSize: 2 * 1024 * 1024,
      // The body is not read: the answer says the connection closes (a keep-alive client would
      // otherwise send its next request on it), and the rest of the body is drained before it does,
      // so a client still sending reads this answer instead of a reset (lingeringClose).
      onError: (c) => {
        lingeringClose(c.env);
        return c.json({ error: "The body is over 2 MiB", code: "too_long", field: "(body)" }, 400, {
          Connection: "close",
        });
      },
    }),
  );
  const running = { svcsql: 0 };
  const chaos = new Chaos({ clock, raceNextUpsert: (kind, times) => hooks.raceNextUpsert(kind, times, "caller") });
  if (options.chaos) chaos.set(options.chaos);
  app.use("*", chaos.middleware());
  app.use("*", requestBody());
  if (options.devHooks) app.route("/__dev", devRoutes(clock, chaos, embed));
  // Embed routes first: they authenticate with embed tokens, not the management API's Bearer keys.
  app.route("/api/v1/embed/dashboard/:publicId/comments", commentsRoutes(embed, comments));
  app.route("/api/v1/embed", embedRoutes(embed, creds));
  // The embed page and its own endpoints (seeds 02 §4.2 note 3, §6; docs/API.md §11), and dashboard exports.
  app.route("/embed", embedPageRoutes(embed, dataDb.loadConn));
  app.route("/api/v1/dashboard-exports", exportsRoutes(creds, clock, dataDb.loadConn));
  // The agent chat (its threads also hold the runs of scheduled tasks).
  const chat = chatRoutes(dataDb.loadConn, creds, clock, {
    agents: DEFAULT_AGENTS,
    tokenChatDeploymentIds,
    deltaMs: () => chatDeltaMs,
    devHooks: options.devHooks === true,
    store,
  });
  let scheduledOn = options.scheduledTasks ?? true;
  const scheduled = new ScheduledTasks(store, clock, chat.runs, () => scheduledOn);
  // Before the other management routes: an embed token meets this family's 403, not an unknown key's 401.
  app.route("/api/v1/deployments/:deploymentId/scheduled-tasks", scheduledTaskRoutes(scheduled, service, creds, embed));
  // app-config also names where the chat API is (aiUrl, accountName): our choice, docs/API.md §Chat.
  let aiUrl = "";
  let appConfig: AppConfig = { ...DEFAULT_APP_CONFIG, ...options.appConfig };
  app.route(
    "/api/v1",
    managementRoutes(service, creds, () => ({ ...appConfig, aiUrl, accountName: ACCOUNT_NAME })),
  );
  // The agent's SQL runs in the data API's sandbox (data-db.ts), never on the state database.
  app.route("/ai", chat);
  app.route(
    "/cubejs-api",
    dataRoutes(dataDb, creds, {
      slowQueryMs: () => slowQueryMs,
      continueWaitMs: options.continueWaitMs ?? 1000,
      running,
      ...(options.svcsql ? { svcsql: options.svcsql } : {}),
    }),
  );
  app.notFound((c) => c.json({ error: `No route for ${c.req.method} ${new URL(c.req.url).pathname}` }, 404));
  app.onError((e, c) => {
    if (e instanceof HttpProblem) {
      return c.json({ error: e.message, ...(e.code ? { code: e.code } : {}), ...(e.field ? { field: e.field } : {}) }, e.status as 400);
    }
    const where = `${c.req.method} ${new URL(c.req.url).pathname}`;
    // A client that closed its connection mid-request is not a fault of ours: one quiet line, no 500
    // (nobody is left to read the answer; a half-closed client still gets a 400 that says why).
    if (clientWentAway(e)) {
      log(`platform: the client went away during ${where} (the request was not served)`);
      return c.json({ error: "The request ended before its body did: send it again", code: "invalid", field: "(body)" }, 400);
    }
    log(`platform: internal error on ${where}: ${(e as Error).stack ?? e}`);
    return c.json({ error: "Internal error" }, 500);
  });

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: options.port ?? 0 }, () => resolve(s));
    s.once("error", reject); // a fixed port already taken (EADDRINUSE) fails the start, loudly
  });
  // Keep idle connections longer than clients do (undici drops them after 4 s): a client reusing a
  // socket the server is just closing sees ECONNRESET (met between two large svcsql answers).
  if ("keepAliveTimeout" in server) {
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  }
  const port = (server.address() as AddressInfo).port;
  scheduled.start();
  const baseUrl = `http://127.0.0.1:${port}`;
  aiUrl = `${baseUrl}/ai`;
  const info: PlatformInfo = {
    baseUrl,
    dataUrl: `${baseUrl}/cubejs-api`,
    aiUrl: `${baseUrl}/ai`,
    accountName: ACCOUNT_NAME,
    deployments: DEPLOYMENTS.map((d) => ({ id: d.id, name: d.name, apiSecret: creds.apiSecrets[d.id]! })),
    chat: { agentId: Object.keys(DEFAULT_AGENTS)[0]!, tokenChatDeploymentIds },
    apiKeys: creds.apiKeys,
    ...seededIds,
    embed: seededEmbed,
  };

  const admin = USERS.find((u) => u.persona === "admin")!;
  const hooks: PlatformHooks = {
    onNextUpsert: (hook) => service.onNextUpsert(hook),
    raceNextUpsert: (kind, times = 1, writer = "admin") => {
      let left = times;
      const arm = () =>
        service.onNextUpsert(async (ctx) => {
          if (--left > 0) arm();
          const k = kind !== "flip" ? kind : service.hasPublicId(ctx.publicId) ? "delete" : "create";
          await service.concurrentWrite(k, ctx.deploymentId, ctx.publicId, writer === "caller" ? ctx.user : admin);
        });
      if (left > 0) arm();
    },
  };

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting, let in-flight requests finish (at most 2 s), then drop what is left.
      // Writes are committed before their response, and db.close() waits for the write queue.
      chaos.release();
      scheduled.stop();
      const http = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => http.closeAllConnections?.(), 2_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        http.closeIdleConnections?.();
      });
      dataDb.close();
      await db.close();
      if (temp) rmSync(dataDir, { recursive: true, force: true });
    })());

  const startupMs = performance.now() - t0;
  log(
    `platform: listening on ${baseUrl} (data dir ${dataDir}; dataset ${generated ? "generated" : "reused"} in ${datasetMs.toFixed(0)} ms; ready in ${startupMs.toFixed(0)} ms)`,
  );
  const state = {
    reports: () => [...store.reports.values()].map((r) => structuredClone(r)),
    placements: () => [...store.placements.values()].map((p) => structuredClone(p)),
    verify: () => store.verify(),
    svcsqlRunning: () => running.svcsql,
  };
  return {
    info,
    clock,
    hooks,
    chaos,
    state,
    setSlowQueryMs: (ms) => {
      slowQueryMs = ms;
    },
    setChatDeltaMs: (ms) => {
      chatDeltaMs = ms;
    },
    setScheduledTasks: (on) => {
      scheduledOn = on;
    },
    setAppConfig: (patch) => {
      appConfig = { ...appConfig, ...patch };
    },
    startup: { ms: startupMs, datasetMs, generated },
    close,
  };
}
