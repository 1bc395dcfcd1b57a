// Management client behaviour that needs no server: error mapping, retries with jittered
// backoff (bounded in attempts and time), response validation, AbortSignal, the token
// manager's renewal, and the generated OpenAPI document.
import { describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import {
  backoffDelay,
  buildOpenApiDocument,
  createDeploymentTokenManager,
  createPlatformClient,
  withRetry,
  AmbiguousLegacyIdError,
  InvalidResponseError,
  NetworkError,
  PublicIdInOtherDeploymentError,
  PublicIdTakenError,
  RetryExhaustedError,
  ServerError,
  TimeoutError,
  UpsertBranchChangedError,
  DEFAULT_RETRY,
  type FetchLike,
} from "../../src/api";

function scripted(...answers: Array<{ status: number; body?: unknown } | Error>): { fetch: FetchLike; calls: string[] } {
  const calls: string[] = [];
  let i = 0;
  return {
    calls,
    fetch: async (url, init) => {
      calls.push(`${init.method} ${url} ${(init.headers as Record<string, string>).Authorization}`);
      const a = answers[Math.min(i++, answers.length - 1)]!;
      if (a instanceof Error) throw a;
      return new Response(a.body === undefined ? "" : JSON.stringify(a.body), { status: a.status });
    },
  };
}
const fast = { baseDelayMs: 1, maxDelayMs: 2 };
const report = {
  id: 7,
  publicId: "abcdefghijkl",
  deploymentId: 1,
  name: "n",
  title: "t",
  type: "REPORT",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  userId: 1,
  user: { email: "e", id: 1, firstName: "f", picture: "" },
  refreshedByUser: { email: "e", id: 1, firstName: "f", picture: "" },
  source: "SHEETS_DESKTOP",
};

describe("management client", () => {
  it("sends Bearer auth to an encoded path and validates the Report", async () => {
    const s = scripted({ status: 200, body: report });
    const c = createPlatformClient({ baseUrl: "https://tenant.test/", credential: "key1", fetch: s.fetch });
    expect((await c.upsertReport(1, "abcdefghijkl", { name: "n" })).id).toBe(7);
    expect(s.calls).toEqual(["PUT https://tenant.test/api/v1/deployments/1/reports/by-public-id/abcdefghijkl Bearer key1"]);
  });
  it("retries network errors and 5xx, then succeeds", async () => {
    const s = scripted(new TypeError("fetch failed"), { status: 503, body: { error: "busy" } }, { status: 200, body: report });
    const c = createPlatformClient({ baseUrl: "https://t.test", credential: "k", fetch: s.fetch, retry: fast });
    expect((await c.updateReport(1, 7, { name: "n" })).id).toBe(7);
    expect(s.calls).toHaveLength(3);
  });
  it("does not retry permanent causes", async () => {
    const s = scripted({ status: 409, body: { error: "x", code: "ambiguous_legacy_id" } });
    const c = createPlatformClient({ baseUrl: "https://t.test", credential: "k", fetch: s.fetch, retry: fast });
    await expect(c.upsertReport(1, "abcdefghijkl", {})).rejects.toBeInstanceOf(AmbiguousLegacyIdError);
    expect(s.calls).toHaveLength(1);
  });
  it("tells the 409 causes apart by body and endpoint", async () => {
    const c = (body: unknown) =>
      createPlatformClient({
        baseUrl: "https://t.test",
        credential: "k",
        fetch: scripted({ status: 409, body }).fetch,
        retry: { maxAttempts: 1 },
      });
    await expect(c({ error: "x" }).upsertReport(1, "abcdefghijkl", {})).rejects.toBeInstanceOf(PublicIdInOtherDeploymentError);
    await expect(c({ error: "x" }).createReport(1, {})).rejects.toBeInstanceOf(PublicIdTakenError);
    await expect(c({ error: "x", code: "upsert_branch_changed" }).upsertReport(1, "abcdefghijkl", {})).rejects.toBeInstanceOf(
      UpsertBranchChangedError,
    );
  });
  it("gives up after maxAttempts with the last cause", async () => {
    const s = scripted({ status: 502, body: { error: "bad gateway" } });
    const c = createPlatformClient({ baseUrl: "https://t.test", credential: "k", fetch: s.fetch, retry: { ...fast, maxAttempts: 3 } });
    const e = await c.getMe().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RetryExhaustedError);
    expect((e as RetryExhaustedError).cause).toBeInstanceOf(ServerError);
    expect(s.calls).toHaveLength(3);
  });
  it("does not retry create on a network error (not idempotent)", async () => {
    const s = scripted(new TypeError("reset"), { status: 200, body: report });
    const c = createPlatformClient({ baseUrl: "https://t.test", credential: "k", fetch: s.fetch, retry: fast });
    await expect(c.createReport(1, {})).rejects.toBeInstanceOf(NetworkError);
    expect(s.calls).toHaveLength(1);
  });
  it("turns a malformed response into InvalidResponseError", async () => {
    const c = (body: unknown, status = 200) =>
      createPlatformClient({ baseUrl: "https://t.test", credential: "k", fetch: scripted({ status, body }).fetch });
    await expect(c({ ...report, publicId: "short" }).updateReport(1, 7, {})).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(c({ items: [{ nope: 1 }], pageInfo: { hasNextPage: false, endCursor: null } }).listReports(1)).rejects.toBeInstanceOf(
      InvalidResponseError,
    );
    const notJson = createPlatformClient({
      baseUrl: "https://t.test",
      credential: "k",
      fetch: async () => new Response("<html>", { status: 200 }),
    });
    await expect(notJson.getMe()).rejects.toBeInstanceOf(InvalidResponseError);
  });
  it("an aborted signal stops the request and any backoff", async () => {
    const ctrl = new AbortController();
    const s = scripted({ status: 503, body: { error: "busy" } });
    const c = createPlatformClient({
      baseUrl: "https://t.test",
      credential: "k",
      fetch: s.fetch,
      retry: { baseDelayMs: 10_000, maxDelayMs: 10_000, maxAttempts: 5 },
    });
    const p = c.getMe(ctrl.signal);
    setTimeout(() => ctrl.abort(new DOMException("stop", "AbortError")), 20);
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    expect(s.calls.length).toBeLessThanOrEqual(2);
  });
});

describe("backoff", () => {
  it("is jittered in [0, min(max, base·2^n)]", () => {
    for (let n = 0; n < 10; n++) {
      const cap = Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** n);
      expect(backoffDelay(DEFAULT_RETRY, n, () => 0)).toBe(0);
      expect(backoffDelay(DEFAULT_RETRY, n, () => 0.999999)).toBe(cap - 1);
    }
  });
  it("is bounded in time", async () => {
    let attempts = 0;
    const started = Date.now();
    const e = await withRetry({ maxAttempts: 1000, maxElapsedMs: 150, baseDelayMs: 20, maxDelayMs: 40 }, async () => {
      attempts++;
      throw new ServerError("x", 500);
    }).catch((x: unknown) => x);
    // The budget ran out before the attempts did: a TimeoutError naming the request, the last cause kept.
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as TimeoutError).cause).toBeInstanceOf(ServerError);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(attempts).toBeLessThan(1000);
  });
});

describe("deployment token manager", () => {
  it("mints once, reuses, renews before expiry, and shares one mint between concurrent callers", async () => {
    let now = 1_000_000;
    let minted = 0;
    const client = {
      createDeploymentToken: async (_d: number, input?: { expiresIn?: number }) => {
        minted++;
        const expiresIn = input?.expiresIn ?? 86_400;
        return { token: `t${minted}`, expiresIn, expiresAt: new Date(now + expiresIn * 1000).toISOString() };
      },
    };
    const m = createDeploymentTokenManager({ client, deploymentId: 1, expiresIn: 600, now: () => now });
    expect(await Promise.all([m.getToken(), m.getToken()])).toEqual(["t1", "t1"]);
    now += 400_000;
    expect(await m.getToken()).toBe("t1");
    now += 90_000; // 490 s of 600: past the renewal point (480 s)
    expect(await m.getToken()).toBe("t2");
    m.invalidate!();
    expect(await m.getToken()).toBe("t3");
    expect(minted).toBe(3);
  });
});

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document generated from the schemas", async () => {
    const doc = buildOpenApiDocument();
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    const schemas = (
      doc.components as {
        schemas: Record<string, { properties?: Record<string, { maxLength?: number; pattern?: string; minLength?: number }> }>;
      }
    ).schemas;
    expect(schemas.Report!.properties!.publicId).toMatchObject({ minLength: 12, maxLength: 12, pattern: "^[0-9A-Za-z]+$" });
    expect(schemas.ReportInput!.properties!.name!.maxLength).toBe(255);
  });
});
