// The stand-in's fault mode: seeded, reproducible network and platform faults on the management
// and data APIs, for tests and the soak. Off unless asked for (`npm run platform -- --chaos SEED`,
// `startPlatform({ chaos: { seed } })`, or `platform.chaos.set({...})` from a test).
//
// Each request draws one number from the seeded generator and gets at most one fault:
//   latency       answered late (up to maxLatencyMs)
//   error5xx      500/502/503 before the handler runs (nothing done)
//   reset         the connection is destroyed: before the handler (nothing done) or after it
//                 (the work is committed, the answer is lost), half and half
//   truncate      the handler runs; the answer announces its full Content-Length, sends half, and
//                 the connection is destroyed
//   hang          no answer until the client gives up (or hangMs, far past any client deadline)
//   upsertRace    PUT …/reports/by-public-id/…: another writer creates or deletes the report between
//                 the upsert's decision and its application (hooks.raceNextUpsert, "flip"): 409
//                 upsert_branch_changed
//   continueWait  POST /v1/load answers 200 {"error":"Continue wait"} (after up to maxLatencyMs)
//                 without running the query: a slow query, as the client sees one
//   tokenExpiry   the stand-in's clock jumps past the longest token lifetime: every data token
//                 minted so far is expired from this request on
// A kind that does not apply to the request drawn for it (a race on a GET) injects nothing and is
// not counted. `counts()` tells how many of each were injected.
import type { MiddlewareHandler } from "hono";
import type { IncomingMessage, ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { LIMITS } from "../../src/api/schemas/common";
import type { Clock } from "./clock";

export const FAULT_KINDS = ["latency", "error5xx", "reset", "truncate", "hang", "upsertRace", "continueWait", "tokenExpiry"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ChaosSettings {
  seed: number;
  /** Chance per request of each kind (their sum must be ≤ 1). */
  rates: Partial<Record<FaultKind, number>>;
  /** Upper bound of an injected latency. */
  maxLatencyMs: number;
  /** How long a hung request is held when its client never gives up. */
  hangMs: number;
  /** Which request paths may get faults (default: the management and data APIs, not /__dev). */
  paths: RegExp;
}

/** What `--chaos SEED` turns on: every kind, often enough for a soak to meet each many times. */
export const DEFAULT_CHAOS_RATES: Record<FaultKind, number> = {
  latency: 0.1,
  error5xx: 0.03,
  reset: 0.02,
  truncate: 0.02,
  hang: 0.005,
  upsertRace: 0.15,
  continueWait: 0.1,
  tokenExpiry: 0.01,
};

const DEFAULTS: Omit<ChaosSettings, "seed" | "rates"> = { maxLatencyMs: 250, hangMs: 120_000, paths: /^\/(api\/v1|cubejs-api)\// };

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface NodeEnv {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

export interface ChaosDeps {
  clock: Clock;
  /** hooks.raceNextUpsert of the running stand-in. */
  raceNextUpsert(kind: "flip", times: number): void;
}

export class Chaos {
  private settings: ChaosSettings | null = null;
  private random: () => number = Math.random;
  private readonly injected = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  private readonly hung = new Set<() => void>();

  constructor(private readonly deps: ChaosDeps) {}

  /** Turns the fault mode on (or changes it). A given seed restarts the sequence. */
  set(s: Partial<ChaosSettings> & { seed?: number }): void {
    const prev = this.settings;
    const next: ChaosSettings = { ...DEFAULTS, seed: 1, rates: {}, ...prev, ...s };
    const sum = Object.values(next.rates).reduce((a, b) => a + (b ?? 0), 0);
    for (const [k, v] of Object.entries(next.rates)) {
      if (!(FAULT_KINDS as readonly string[]).includes(k) || !(typeof v === "number" && v >= 0 && v <= 1))
        throw new RangeError(`chaos rate ${k}=${v}: a known kind and a chance from 0 to 1`);
    }
    if (sum > 1 + 1e-9) throw new RangeError(`chaos rates add up to ${sum}; at most 1`);
    if (!prev || s.seed !== undefined) this.random = seededRandom(next.seed);
    this.settings = next;
  }

  /** No more faults (hung requests are let go). Counts are kept. */
  off(): void {
    this.settings = null;
    this.release();
  }

  get enabled(): boolean {
    return this.settings !== null;
  }

  /** Faults injected so far, by kind. */
  counts(): Record<FaultKind, number> {
    return { ...this.injected };
  }

  /** Lets every hung request go (its connection is destroyed): the stand-in is closing. */
  release(): void {
    for (const free of [...this.hung]) free();
  }

  private pick(s: ChaosSettings): FaultKind | null {
    let r = this.random();
    for (const k of FAULT_KINDS) {
      const p = s.rates[k] ?? 0;
      if (r < p) return k;
      r -= p;
    }
    return null;
  }

  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const s = this.settings;
      const path = new URL(c.req.url).pathname;
      if (!s || c.req.method === "OPTIONS" || !s.paths.test(path)) return next();
      const kind = this.pick(s);
      if (kind === null) return next();
      const env = c.env as NodeEnv | undefined;
      const alreadySent = () => new Response(null, { headers: new Headers(RESPONSE_ALREADY_SENT.headers) });
      const count = () => {
        this.injected[kind]++;
      };
      switch (kind) {
        case "latency": {
          count();
          await sleep(Math.round(this.random() * s.maxLatencyMs));
          return next();
        }
        case "error5xx": {
          count();
          const status = ([500, 502, 503] as const)[Math.floor(this.random() * 3)]!;
          return c.json({ error: `Injected fault: ${status}` }, status);
        }
        case "reset": {
          if (!env) return next();
          count();
          if (this.random() < 0.5) await next(); // the work is done; its answer is lost
          env.incoming.socket.destroy();
          c.res = alreadySent();
          return;
        }
        case "truncate": {
          if (!env) return next();
          count();
          await next();
          const res = c.res;
          const body = new Uint8Array(await res.arrayBuffer());
          const headers: Record<string, string> = {};
          res.headers.forEach((v, k) => {
            headers[k] = v;
          });
          headers["content-length"] = String(body.length);
          env.outgoing.writeHead(res.status, headers);
          env.outgoing.write(body.subarray(0, Math.floor(body.length / 2)), () => env.outgoing.socket?.destroy());
          c.res = alreadySent();
          return;
        }
        case "hang": {
          if (!env) return next();
          count();
          const signal = c.req.raw.signal;
          await new Promise<void>((resolve) => {
            const free = () => {
              clearTimeout(timer);
              signal.removeEventListener("abort", free);
              this.hung.delete(free);
              resolve();
            };
            const timer = setTimeout(free, s.hangMs);
            signal.addEventListener("abort", free);
            this.hung.add(free);
          });
          env.incoming.socket.destroy();
          c.res = alreadySent();
          return;
        }
        case "upsertRace": {
          if (c.req.method !== "PUT" || !/\/reports\/by-public-id\//.test(path)) return next();
          count();
          this.deps.raceNextUpsert("flip", 1);
          return next();
        }
        case "continueWait": {
          if (c.req.method !== "POST" || !path.endsWith("/v1/load")) return next();
          count();
          // As the platform does, the request is held a while before it says so.
          await sleep(Math.round(this.random() * s.maxLatencyMs));
          return c.json({ error: "Continue wait" }, 200);
        }
        case "tokenExpiry": {
          count();
          this.deps.clock.advance((LIMITS.tokenExpiresInMax + 1) * 1000);
          return next();
        }
      }
    };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parses `--chaos-rates "latency=0.1,reset=0.02"`. */
export function parseRates(text: string): Partial<Record<FaultKind, number>> {
  const out: Partial<Record<FaultKind, number>> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(\w+)=([\d.]+)$/.exec(part);
    if (!m || !(FAULT_KINDS as readonly string[]).includes(m[1]!))
      throw new RangeError(`--chaos-rates: "${part}" is not kind=chance (kinds: ${FAULT_KINDS.join(", ")})`);
    out[m[1] as FaultKind] = Number(m[2]);
  }
  return out;
}
