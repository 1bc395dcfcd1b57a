// Issue 17's client-side findings (retry budget, booleans, token vs permission, non-JSON error
// bodies, order forms, no SQL endpoint) and issue 12's 429 / token-manager items, each against
// scripted answers shaped like the real semantic layer's (recorded fixtures where they fit).
import { describe, expect, it } from "vitest";
import {
  createDataClient,
  createDeploymentTokenManager,
  excerptOf,
  createPlatformClient,
  decodeBoolean,
  ForbiddenError,
  LoadQuery,
  NotFoundError,
  RateLimitedError,
  RetryExhaustedError,
  retryAfterMs,
  ServerError,
  SqlNotSupportedError,
  TimeoutError,
  TokenRefusedError,
  type DeploymentToken,
  type FetchLike,
} from "../../src/api";
import { describeError } from "../../src/taskpane/errors";
import { fixture, replay } from "./fixtures";

type Answer = { status: number; body?: unknown; text?: string; headers?: Record<string, string> };
function scripted(...answers: Answer[]): { fetch: FetchLike; seen: Array<{ url: string; auth: string; body: unknown; at: number }> } {
  const seen: Array<{ url: string; auth: string; body: unknown; at: number }> = [];
  let i = 0;
  return {
    seen,
    fetch: async (url, init) => {
      seen.push({
        url,
        auth: (init.headers as Record<string, string>).Authorization!,
        body: init.body ? JSON.parse(String(init.body)) : undefined,
        at: Date.now(),
      });
      const a = answers[Math.min(i++, answers.length - 1)]!;
      return new Response(a.text ?? (a.body === undefined ? "" : JSON.stringify(a.body)), { status: a.status, headers: a.headers });
    },
  };
}
const fast = { baseDelayMs: 1, maxDelayMs: 2 };
const data = (f: FetchLike) => createDataClient({ dataUrl: "http://data.test/cubejs-api", token: "jwt", fetch: f, retry: fast });

describe("finding 1: Continue wait and error statuses have separate bounds", () => {
  it("a deterministic 500 is tried at most 5 times, then reported with the server's own message", async () => {
    const s = scripted({ status: 500, body: { error: "Error: Unsupported granularity: quarter" } });
    const e = await data(s.fetch)
      .load({ measures: ["orders.count"] })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RetryExhaustedError);
    expect((e as RetryExhaustedError).cause).toBeInstanceOf(ServerError);
    expect(s.seen).toHaveLength(5); // was 110 over two minutes
    expect((e as Error).message).toContain("Unsupported granularity: quarter");
    const h = describeError(e);
    expect(h.title).toBe("The platform had a problem");
    expect(h.detail).toContain("Unsupported granularity: quarter");
  });
  it("Continue wait polls do not count against the error retries", async () => {
    const wait = fixture("load-continue-wait.json");
    const answers = [
      ...Array.from({ length: 8 }, () => wait),
      { ...wait, status: 503, body: { error: "busy" } },
      fixture("load-after-continue-wait.json"),
    ];
    const f = replay(...answers);
    const r = await data(f.fetch).load((wait.request.body as { query: LoadQuery }).query);
    expect(f.seen).toHaveLength(10);
    expect(r.rows).toEqual([[15000000]]);
  });
});

describe("finding 3: booleans in every form drivers send", () => {
  it('true/false, "true"/"false", 1/0, "1"/"0" are TRUE/FALSE; anything else is an error', () => {
    for (const v of [true, "true", 1, "1"]) expect(decodeBoolean(v)).toBe(true);
    for (const v of [false, "false", 0, "0"]) expect(decodeBoolean(v)).toBe(false);
    expect(decodeBoolean(null)).toBeNull();
    for (const v of [2, "yes", "", -1]) expect(() => decodeBoolean(v)).toThrow();
  });
  it("a SQLite load with 0/1 booleans places every row", async () => {
    const body = {
      query: { measures: ["orders.count"], dimensions: ["orders.is_returned"], timezone: "UTC" },
      data: [
        { "orders.is_returned": 0, "orders.count": 90 },
        { "orders.is_returned": 1, "orders.count": 10 },
        { "orders.is_returned": "1", "orders.count": 1 },
      ],
      annotation: {
        measures: { "orders.count": { title: "Orders Count", shortTitle: "Count", type: "number" } },
        dimensions: { "orders.is_returned": { title: "Orders Is Returned", shortTitle: "Is Returned", type: "boolean" } },
        timeDimensions: {},
      },
    };
    const r = await data(scripted({ status: 200, body }).fetch).load({ measures: ["orders.count"], dimensions: ["orders.is_returned"] });
    expect(r.rows).toEqual([
      [false, 90],
      [true, 10],
      [true, 1],
    ]);
  });
});

describe("finding 4: a refused token is a sign-in problem, not a permission problem", () => {
  it("re-mints once, then TokenRefusedError; the pane says sign in again, not ask the owner", async () => {
    const s = scripted(fixture("load-bad-token.json"));
    let minted = 0;
    let invalidated = 0;
    const c = createDataClient({
      dataUrl: "http://data.test",
      fetch: s.fetch,
      retry: fast,
      token: { getToken: async () => `jwt-${++minted}`, invalidate: () => void invalidated++ },
    });
    const e = await c.load({ measures: ["orders.count"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TokenRefusedError);
    expect((e as TokenRefusedError).status).toBe(403);
    expect(s.seen.map((x) => x.auth)).toEqual(["jwt-1", "jwt-2"]);
    expect(invalidated).toBe(1);
    const h = describeError(e);
    expect(h.title).toBe("Your sign-in has expired");
    expect(h.next).toMatch(/sign in again/);
    expect(`${h.detail} ${h.next}`).not.toMatch(/owner/);
  });
  it("401 is a token problem too (an HTML page from a proxy keeps its status)", async () => {
    const e = await data(scripted({ status: 401, text: "<html><title>401 Authorization Required</title></html>" }).fetch)
      .meta()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TokenRefusedError);
    expect((e as TokenRefusedError).status).toBe(401);
  });
  it("a 403 about access (not the token) stays a ForbiddenError", async () => {
    const e = await data(scripted({ status: 403, body: { error: "You have no access to cube orders" } }).fetch)
      .meta()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ForbiddenError);
    expect(describeError(e).title).toBe("You do not have access");
  });
});

describe("finding 5: the status is mapped before the body is parsed", () => {
  const page = (title: string) =>
    `<!DOCTYPE html><html><head><title>${title}</title><style>p{}</style></head><body><p>${title}</p></body></html>`;
  it("a 404 HTML page from a wrong data URL is a NotFoundError with an excerpt, not 'invalid response'", async () => {
    const e = await data(scripted({ status: 404, text: page("404 Not Found") }).fetch)
      .load({ measures: ["orders.count"] })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotFoundError);
    expect((e as Error).message).toBe("POST /v1/load: 404 404 Not Found");
  });
  it("an excerpt is the page's visible text (Express's 404), or its title when the body is empty", () => {
    expect(
      excerptOf(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><pre>Cannot POST /cubejs-api/v1/svcsql</pre></body></html>',
      ),
    ).toBe("Cannot POST /cubejs-api/v1/svcsql");
    expect(excerptOf("<html><head><title>502 Bad Gateway</title></head><body></body></html>")).toBe("502 Bad Gateway");
    expect(excerptOf("plain words\n\n here")).toBe("plain words here");
    expect(excerptOf("x".repeat(500))).toHaveLength(158);
  });
  it("an HTML 403 from a proxy keeps status and type", async () => {
    const e = await data(scripted({ status: 403, text: page("Forbidden by proxy") }).fetch)
      .meta()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ForbiddenError);
    expect((e as ForbiddenError).status).toBe(403);
    expect((e as Error).message).toContain("Forbidden by proxy");
  });
  it("an HTML 502 is a ServerError (retried, then reported with the page's words)", async () => {
    const s = scripted({ status: 502, text: page("502 Bad Gateway") });
    const e = await data(s.fetch)
      .meta()
      .catch((x: unknown) => x);
    expect((e as RetryExhaustedError).cause).toBeInstanceOf(ServerError);
    expect((e as Error).message).toContain("502 Bad Gateway");
  });
  it("the management client too: an HTML 404 keeps its status", async () => {
    const c = createPlatformClient({
      baseUrl: "https://host.test/app",
      credential: "k",
      fetch: scripted({ status: 404, text: page("Page not found") }).fetch,
    });
    const e = await c.getMe().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotFoundError);
    expect((e as Error).message).toBe("GET /api/v1/users/me: 404 Page not found");
  });
});

describe("finding 6: every accepted order form is sent in a form the data API takes", () => {
  it("[{id, desc}] goes as [member, direction] pairs; a map and pairs go as they are", async () => {
    const rec = fixture("postgres/load-flat.json");
    const base = (rec.request.body as { query: LoadQuery }).query;
    const sent = async (order: LoadQuery["order"]) => {
      const f = replay(rec);
      const q = LoadQuery.parse({ ...base, order });
      await data(f.fetch).load(q);
      return (f.seen[0]!.body as { query: LoadQuery }).query.order;
    };
    expect(
      await sent([
        { id: "orders.count", desc: true },
        { id: "orders.status", desc: false },
      ]),
    ).toEqual([
      ["orders.count", "desc"],
      ["orders.status", "asc"],
    ]);
    expect(await sent({ "orders.count": "desc" })).toEqual({ "orders.count": "desc" });
    expect(await sent([["orders.status", "asc"]])).toEqual([["orders.status", "asc"]]);
  });
});

describe("finding 7: a data API without /v1/svcsql", () => {
  it("fails SQL reports with SqlNotSupportedError at once, and says so plainly", async () => {
    const s = scripted({ status: 404, text: "Cannot POST /cubejs-api/v1/svcsql" });
    const e = await data(s.fetch)
      .svcsql("SELECT 1")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SqlNotSupportedError);
    expect((e as Error).message).toBe("POST /v1/svcsql: 404: this data API does not run SQL reports");
    expect(s.seen).toHaveLength(1);
    expect(describeError(e).title).toBe("This data API does not run SQL reports");
  });
});

describe("429 Too Many Requests", () => {
  it("waits as long as Retry-After says, then tries again", async () => {
    const meta = fixture("meta.json");
    const s = scripted({ status: 429, body: { error: "slow down" }, headers: { "Retry-After": "1" } }, { status: 200, body: meta.body });
    const m = await data(s.fetch).meta();
    expect(m.cubes.length).toBeGreaterThan(0);
    expect(s.seen).toHaveLength(2);
    expect(s.seen[1]!.at - s.seen[0]!.at).toBeGreaterThanOrEqual(950);
  });
  it("a Retry-After past the bound (or the request's budget) is reported at once as RateLimitedError", async () => {
    const s = scripted({ status: 429, body: { error: "slow down" }, headers: { "Retry-After": "3600" } });
    const started = Date.now();
    const e = await data(s.fetch)
      .meta()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(Date.now() - started).toBeLessThan(500);
    expect(s.seen).toHaveLength(1);
    const within = scripted({ status: 429, headers: { "Retry-After": "2" } });
    const c = createDataClient({ dataUrl: "http://d.test", token: "t", fetch: within.fetch, retry: { ...fast, maxElapsedMs: 500 } });
    await expect(c.meta()).rejects.toBeInstanceOf(RateLimitedError);
    expect(describeError(e).title).toBe("The platform asked Cellbound to slow down");
  });
  it("Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-23T14:00:00Z");
    expect(retryAfterMs(new Headers({ "Retry-After": "7" }), now)).toBe(7_000);
    expect(retryAfterMs(new Headers({ "Retry-After": "Mon, 23 Nov 2026 14:00:12 GMT" }), now)).toBe(12_000);
    expect(retryAfterMs(new Headers({ "Retry-After": "Mon, 23 Nov 2026 13:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ "Retry-After": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe("token manager: the shared mint is nobody's signal", () => {
  const token = (t: string): DeploymentToken => ({ token: t, expiresIn: 3600, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  it("one caller's cancel ends only its own wait; the other gets the token, the mint is not aborted", async () => {
    let mintSignal: AbortSignal | undefined;
    let release!: (t: DeploymentToken) => void;
    let mints = 0;
    const m = createDeploymentTokenManager({
      deploymentId: 1,
      client: {
        createDeploymentToken: (_id, _input, signal) => {
          mints++;
          mintSignal = signal;
          return new Promise((resolve) => (release = resolve));
        },
      },
    });
    const a = new AbortController();
    const pa = m.getToken(a.signal).catch((x: unknown) => x);
    const pb = m.getToken(new AbortController().signal);
    const reason = new DOMException("A left", "AbortError");
    a.abort(reason);
    expect(await pa).toBe(reason);
    expect(mintSignal?.aborted).toBe(false);
    release(token("tok-1"));
    expect(await pb).toBe("tok-1");
    expect(mints).toBe(1);
    expect(await m.getToken()).toBe("tok-1");
  });
  it("a mint that hangs ends with a TimeoutError at its own deadline, and aborts its request", async () => {
    let mintSignal: AbortSignal | undefined;
    const m = createDeploymentTokenManager({
      deploymentId: 4,
      mintDeadlineMs: 100,
      client: { createDeploymentToken: (_id, _input, signal) => ((mintSignal = signal), new Promise(() => {})) },
    });
    const e = await m.getToken().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toContain("/api/v1/deployments/4/token");
    expect(mintSignal?.aborted).toBe(true);
  });
});
