// Sign-in finds a wrong URL at sign-in and blames the right field: the live Backend against a
// small platform on a real local server (127.0.0.1, port 0) and data APIs that are right or wrong.
import { afterEach, describe, expect, it } from "vitest";
import { DataUrlError, PlatformUrlError } from "../../src/api";
import { createLiveBackend } from "../../src/taskpane/app/backend";
import { describeError } from "../../src/taskpane/errors";
import { fixture } from "../api/fixtures";
import { startServer, type TestServer } from "../api/server";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const me = { id: 1, email: "ana@example.com", firstName: "Ana", lastName: "Analyst", picture: "", isAdmin: false, userPolicies: [] };
const page = (items: unknown[]) => ({ items, pageInfo: { hasNextPage: false, endCursor: null } });

/** A platform at `/` (management API) that also serves a data API at /cubejs-api when `withData`. */
async function platform(withData: boolean): Promise<TestServer> {
  const s = await startServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const p = req.url ?? "";
    if (p === "/api/v1/users/me") return json(200, me);
    if (p.startsWith("/api/v1/deployments?") || p === "/api/v1/deployments")
      return json(200, page([{ id: 3, name: "Production", role: "editor" }]));
    if (p === "/api/v1/deployments/3/token")
      return json(200, { token: "minted-jwt", expiresIn: 60, expiresAt: new Date(Date.now() + 60_000).toISOString() });
    if (withData && p === "/cubejs-api/v1/meta") {
      if (req.headers.authorization !== "minted-jwt") return json(403, { error: "Invalid token" });
      return json(200, fixture("meta.json").body);
    }
    res.writeHead(404, { "Content-Type": "text/html" });
    res.end("<!doctype html><html><head><title>404 Not Found</title></head><body>nothing here</body></html>");
  });
  servers.push(s);
  return s;
}

const backend = createLiveBackend((u, i) => fetch(u, i));

describe("sign-in checks the data API URL", () => {
  it("a working data API: sign-in succeeds, probed with a minted token", async () => {
    const p = await platform(true);
    const r = await backend.signIn({ baseUrl: p.url, dataUrl: null, credential: "k" });
    expect(r.deployments).toEqual([{ id: 3, name: "Production", role: "editor" }]);
    const probe = p.requests.find((x) => x.path === "/cubejs-api/v1/meta");
    expect(probe?.headers.authorization).toBe("minted-jwt");
    expect(JSON.parse(p.requests.find((x) => x.path === "/api/v1/deployments/3/token")!.body)).toEqual({ expiresIn: 60 });
  });
  it("a wrong data URL entered at sign-in is found then, and blamed on that field", async () => {
    const p = await platform(true);
    const dataUrl = `${p.url}/wrong-path`;
    const e = await backend.signIn({ baseUrl: p.url, dataUrl, credential: "k" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DataUrlError);
    expect((e as DataUrlError).field).toBe("dataUrl");
    expect((e as Error).message).toContain(`The data API URL ${dataUrl} has no /v1/meta (404)`);
    const h = describeError(e);
    expect(h.title).toBe("Check the Data API URL");
    expect(h.detail).toContain(dataUrl);
    expect(h.next).toMatch(/Data API URL/);
  });
  it("a data URL where nothing listens is blamed on the field too", async () => {
    const p = await platform(true);
    const gone = await startServer(() => {});
    const dataUrl = gone.url;
    await gone.close();
    const e = await backend.signIn({ baseUrl: p.url, dataUrl, credential: "k" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DataUrlError);
    expect((e as Error).message).toContain("could not be reached");
  });
  it("when the default data URL fails, the message says it was the default and where to enter one", async () => {
    const p = await platform(false);
    const e = await backend.signIn({ baseUrl: p.url, dataUrl: null, credential: "k" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DataUrlError);
    expect((e as Error).message).toContain(`${p.url}/cubejs-api`);
    expect((e as Error).message).toContain("under Advanced");
  });
});

describe("sign-in with a platform URL that carries a path", () => {
  it("gets a clear message naming the address to use, not 'report no longer exists'", async () => {
    const p = await platform(true);
    const e = await backend.signIn({ baseUrl: `${p.url}/app`, dataUrl: null, credential: "k" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PlatformUrlError);
    expect((e as Error).message).toContain(`try ${p.url}.`);
    const h = describeError(e);
    expect(h.title).toBe("Check the platform URL");
    expect(`${h.title} ${h.detail} ${h.next}`).not.toMatch(/no longer exists/);
  });
});
