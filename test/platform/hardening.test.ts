// The stand-in keeps identities and tenants apart, refuses broken bytes and outlives rude clients
// (issue 24, the findings of a black-box fault run): one test (or more) per finding.
//   1. an externalId (or a customer-signed sub) never acts as an internal user;
//   2. control characters in identifiers are refused, tenants are keyed by the exact string;
//   3. invalid UTF-8 in a body is a 400 naming the field, and nothing is stored;
//   4. a client that goes away mid-body is one quiet log line, never a 500 with a stack;
//   5. after a 400 for an over-limit body the connection says `Connection: close` (or stays usable);
//   6. an ephemeral chat user past its lifetime is gone before a request could renew it.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { signJwt } from "../../dev/platform/auth";
import { decodeChunks } from "../../src/api/chat/ndjson";
import { ChatFrame } from "../../src/api/chat/schemas";

let p: RunningPlatform;
const logs: string[] = [];
beforeAll(async () => {
  p = await startPlatform({ log: (l) => logs.push(l), devHooks: true, chatDeltaMs: 0 });
});
afterAll(async () => {
  await p?.close();
});

const ANA = "ana.analyst@cellbound.test";
const ai = () => `${p.info.aiUrl}/api/v1/public/${p.info.accountName}`;
const agentPath = () => `${ai()}/agents/${p.info.chat.agentId}/chat/stream-chat-state`;
const deploymentPath = () => `${ai()}/deployments/1/chat/stream-chat-state`;
const secret = () => p.info.deployments.find((d) => d.id === 1)!.apiSecret;
const craft = (claims: Record<string, unknown>) => signJwt({ iat: p.clock.nowSec(), exp: p.clock.nowSec() + 600, ...claims }, secret());
let seq = 0;
const newMessageId = () => `${Date.now() + seq++}-message`;

type Auth = { bearer?: string; apiKey?: string; token?: string; embed?: string };
async function send(method: string, url: string, body: unknown, auth: Auth = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.apiKey) headers.authorization = `Api-Key ${auth.apiKey}`;
  if (auth.embed) headers.authorization = `Embed-Token ${auth.embed}`;
  if (auth.token) headers["x-svc-auth-token"] = auth.token;
  const payload = body instanceof Uint8Array ? Uint8Array.from(body) : JSON.stringify(body);
  return fetch(url.startsWith("http") ? url : p.info.baseUrl + url, { method, headers, body: payload });
}

async function frames(res: Response): Promise<ChatFrame[]> {
  expect(res.status).toBe(200);
  return decodeChunks([new Uint8Array(await res.arrayBuffer())]).map((i) => {
    if (!i.ok) throw i.error;
    return ChatFrame.parse(i.value);
  });
}
const chatIdOf = (fs: ChatFrame[]) => fs.find((f) => f.id === "__cutoff__")!.state!.chatId as string;

async function embedToken(externalId: string, tenant?: string): Promise<string> {
  const g = await send(
    "POST",
    "/api/v1/embed/generate-session",
    { externalId, ...(tenant !== undefined ? { embedTenantName: tenant } : {}) },
    { bearer: p.info.apiKeys.admin },
  );
  expect(g.status).toBe(200);
  const x = await send("POST", "/api/v1/embed/session/token", await g.json());
  return ((await x.json()) as { token: string }).token;
}

describe("1. an external identity never becomes an internal user", () => {
  it("a token whose externalId is an internal user's email (any case) is an external user with its own threads", async () => {
    // Ana's own thread, through the Api-Key form with internalId.
    const mine = chatIdOf(
      await frames(
        await send(
          "POST",
          agentPath(),
          { input: "revenue", messageId: newMessageId(), sessionSettings: { internalId: ANA } },
          { apiKey: p.info.apiKeys.analyst },
        ),
      ),
    );
    for (const externalId of [ANA, ANA.toUpperCase(), "Ana.Analyst@Cellbound.Test"]) {
      const token = craft({ externalId, scope: ["chat"] });
      const read = await send("POST", deploymentPath(), { chatId: mine }, { token });
      expect(read.status, externalId).toBe(404);
      // It is served, as an external user of its own.
      const own = chatIdOf(await frames(await send("POST", deploymentPath(), { input: "revenue", messageId: newMessageId() }, { token })));
      expect(own).not.toBe(mine);
    }
    // The external user "ana.analyst@cellbound.test" is not Ana either: her thread stays hers alone.
    const ext = chatIdOf(
      await frames(
        await send(
          "POST",
          deploymentPath(),
          { input: "orders", messageId: newMessageId() },
          { token: craft({ externalId: ANA, scope: ["chat"] }) },
        ),
      ),
    );
    expect(
      (await send("POST", agentPath(), { chatId: ext, sessionSettings: { internalId: ANA } }, { apiKey: p.info.apiKeys.analyst })).status,
    ).toBe(404);
  });

  it("a customer-signed token whose sub is an internal user's email is an external user too; only a minted token is that user", async () => {
    const mine = chatIdOf(
      await frames(
        await send(
          "POST",
          agentPath(),
          { input: "revenue", messageId: newMessageId(), sessionSettings: { internalId: ANA } },
          { apiKey: p.info.apiKeys.analyst },
        ),
      ),
    );
    const forged = craft({ sub: ANA, deploymentId: 1, scope: ["data", "meta", "chat"] });
    expect((await send("POST", deploymentPath(), { chatId: mine }, { token: forged })).status).toBe(404);
    const minted = await send("POST", "/api/v1/deployments/1/token", {}, { bearer: p.info.apiKeys.analyst });
    const { token } = (await minted.json()) as { token: string };
    expect((await send("POST", deploymentPath(), { chatId: mine }, { token })).status).toBe(200);
    // The minted token still works on the data API.
    const meta = await fetch(`${p.info.dataUrl}/v1/meta`, { headers: { authorization: token } });
    expect(meta.status).toBe(200);
  });

  it("an Api-Key externalId equal to an internal email is an external user (not the internal one)", async () => {
    const mine = chatIdOf(
      await frames(
        await send(
          "POST",
          agentPath(),
          { input: "revenue", messageId: newMessageId(), sessionSettings: { internalId: ANA } },
          { apiKey: p.info.apiKeys.analyst },
        ),
      ),
    );
    const asExternal = { chatId: mine, sessionSettings: { externalId: ANA.toUpperCase() } };
    expect((await send("POST", agentPath(), asExternal, { apiKey: p.info.apiKeys.admin })).status).toBe(404);
  });
});

describe("2. identifiers: no control characters; tenants keyed by the exact string", () => {
  it("generate-session refuses a control character in embedTenantName, externalId or branchName (400 naming the field)", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ externalId: "mallory", embedTenantName: "acme-retail\u0000evil" }, "embedTenantName"],
      [{ externalId: "mallory", embedTenantName: "acme-retail\n" }, "embedTenantName"],
      [{ externalId: "x\u0000y", embedTenantName: "acme-retail" }, "externalId"],
      [{ externalId: "tab\there" }, "externalId"],
      [{ externalId: "del\u007f" }, "externalId"],
      [{ externalId: "c1\u0085" }, "externalId"],
      [{ externalId: "ok", branchName: "main\u0000" }, "branchName"],
    ];
    for (const [body, field] of cases) {
      const r = await send("POST", "/api/v1/embed/generate-session", body, { bearer: p.info.apiKeys.admin });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(await r.json()).toMatchObject({ code: "invalid", field });
    }
  });

  it("a session for a NUL-extended tenant name never acts in the tenant it starts with", async () => {
    const viewer = await embedToken("viewer-acme", "acme-retail");
    // The collision the fault run found: ("acme-retail", "x\0y") and ("acme-retail\0x", "y") were one user.
    const first = await send(
      "POST",
      "/api/v1/embed/generate-session",
      { externalId: "x\u0000y", embedTenantName: "acme-retail" },
      { bearer: p.info.apiKeys.admin },
    );
    const second = await send(
      "POST",
      "/api/v1/embed/generate-session",
      { externalId: "y", embedTenantName: "acme-retail\u0000x" },
      { bearer: p.info.apiKeys.admin },
    );
    expect([first.status, second.status]).toEqual([400, 400]);
    const mention = await send("GET", "/api/v1/embed/dashboard/SalesDash001/comments/mentionable-users", undefined, { embed: viewer });
    const names = ((await mention.json()) as { items: Array<{ username: string }> }).items.map((u) => u.username);
    expect(names.some((n) => /\p{Cc}/u.test(n))).toBe(false);
  });

  it("tenant names are exact: case and spacing make different tenants (no normalisation merges two)", async () => {
    const a = await embedToken("same-user", "exact-tenant");
    const b = await embedToken("same-user", "Exact-Tenant");
    const c = await embedToken("same-user", "exact-tenant ");
    const posted = await send("POST", "/api/v1/embed/dashboard/SalesDash001/comments", { body: "only in exact-tenant" }, { embed: a });
    expect(posted.status).toBe(201);
    for (const other of [b, c]) {
      const list = await send("GET", "/api/v1/embed/dashboard/SalesDash001/comments", undefined, { embed: other });
      expect(((await list.json()) as { items: unknown[] }).items).toEqual([]);
    }
  });

  it("chat: a control character in sessionSettings.externalId / internalId is a 400; in a token's externalId a JSON-RPC identity error", async () => {
    for (const [s, field] of [
      [{ externalId: "a\u0000b" }, "sessionSettings.externalId"],
      [{ internalId: `${ANA}\u0000` }, "sessionSettings.internalId"],
    ] as const) {
      const r = await send("POST", agentPath(), { input: "revenue", sessionSettings: s }, { apiKey: p.info.apiKeys.admin });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: "invalid", field });
    }
    const r = await send("POST", deploymentPath(), { input: "revenue" }, { token: craft({ externalId: "a\u0000b", scope: ["chat"] }) });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32003 }, id: null });
  });
});

describe("3. invalid UTF-8 in a body is a 400 naming the field; nothing is stored", () => {
  /** The JSON text with `bad` bytes spliced in where `@@` stands. */
  const bytes = (json: string, bad: number[] = [0xff]) => {
    const [a, b] = json.split("@@") as [string, string];
    return Uint8Array.from(Buffer.concat([Buffer.from(a), Buffer.from(bad), Buffer.from(b)]));
  };

  it("management: report name, SQL and settings", async () => {
    const before = p.state.reports().length;
    const analyst = { bearer: p.info.apiKeys.analyst };
    for (const [bad, label] of [
      [[0xff], "0xFF"],
      [[0xc0, 0xaf], "overlong"],
      [[0xed, 0xa0, 0x80], "a surrogate"],
      [[0xe2, 0x82], "a cut sequence"],
      [[0xf4, 0x90, 0x80, 0x80], "above U+10FFFF"],
    ] as const) {
      const r = await send("POST", "/api/v1/deployments/1/reports", bytes('{"name":"Rev@@enue"}', [...bad]), analyst);
      expect(r.status, label).toBe(400);
      const e = (await r.json()) as { error: string; code: string; field: string };
      expect(e, label).toMatchObject({ code: "invalid", field: "name" });
      expect(e.error).toMatch(/UTF-8/);
    }
    const sql = await send("POST", "/api/v1/deployments/1/reports", bytes('{"name":"ok","sqlQuery":"SELECT \'@@\'"}'), analyst);
    expect(await sql.json()).toMatchObject({ field: "sqlQuery" });
    const escapes = await send("POST", "/api/v1/deployments/1/reports", bytes('{"title":"say \\"hi\\", {[:,]}","name":"x@@"}'), analyst);
    expect(await escapes.json()).toMatchObject({ field: "name" });
    const topKey = await send("POST", "/api/v1/deployments/1/reports", bytes('{"na@@me":"x"}'), analyst);
    expect(await topKey.json()).toMatchObject({ code: "invalid", field: "(body)" });
    expect(p.state.reports().length).toBe(before);

    const settings = await send("PATCH", "/api/v1/users/me/settings", bytes('{"sheetsSettings":{"chatAgentId":"ag@@ent"}}'), analyst);
    expect(settings.status).toBe(400);
    expect(await settings.json()).toMatchObject({ field: "sheetsSettings.chatAgentId" });
    const me = (await (await send("GET", "/api/v1/users/me", undefined, analyst)).json()) as { settings: { sheetsSettings: object } };
    expect(JSON.stringify(me.settings.sheetsSettings)).not.toContain("\ufffd");
  });

  it("embed, comments and chat: session fields, comment bodies, chat input (arrays and nesting named by path)", async () => {
    const admin = { bearer: p.info.apiKeys.admin };
    const g = await send("POST", "/api/v1/embed/generate-session", bytes('{"externalId":"u1","firstName":"Jo@@"}'), admin);
    expect(g.status).toBe(400);
    expect(await g.json()).toMatchObject({ field: "firstName" });

    const token = await embedToken("utf8-commenter", "utf8-tenant");
    const c = await send("POST", "/api/v1/embed/dashboard/SalesDash001/comments", bytes('{"body":"caf\\u00e9 @@ ok"}'), { embed: token });
    expect(c.status).toBe(400);
    expect(await c.json()).toMatchObject({ field: "body" });
    const list = await send("GET", "/api/v1/embed/dashboard/SalesDash001/comments", undefined, { embed: token });
    expect(((await list.json()) as { items: unknown[] }).items).toEqual([]);

    const chat = await send("POST", agentPath(), bytes(`{"input":"reve@@nue","sessionSettings":{"internalId":"${ANA}"}}`), {
      apiKey: p.info.apiKeys.analyst,
    });
    expect(chat.status).toBe(400);
    expect(await chat.json()).toMatchObject({ field: "input" });
    const nested = await send("POST", agentPath(), bytes('{"input":"x","sessionSettings":{"externalId":"e","groups":["ok","b@@"]}}'), {
      apiKey: p.info.apiKeys.admin,
    });
    expect(await nested.json()).toMatchObject({ field: "sessionSettings.groups.1" });
    const inKey = await send("POST", agentPath(), bytes('{"input":"x","sessionSettings":{"ext@@":"e"}}'), { apiKey: p.info.apiKeys.admin });
    expect(inKey.status).toBe(400);
    expect(await inKey.json()).toMatchObject({ field: "sessionSettings" });
  });

  it("a real U+FFFD (sent as UTF-8 or as \\ufffd) is text like any other", async () => {
    const analyst = { bearer: p.info.apiKeys.analyst };
    const a = await send("POST", "/api/v1/deployments/1/reports", bytes('{"name":"a@@b"}', [0xef, 0xbf, 0xbd]), analyst);
    expect(a.status).toBe(200);
    expect(((await a.json()) as { name: string }).name).toBe("a\ufffdb");
    const b = await send("POST", "/api/v1/deployments/1/reports", bytes('{"name":"a\\ufffdb@@"}', []), analyst);
    expect(((await b.json()) as { name: string }).name).toBe("a\ufffdb");
  });
});

/** Opens a raw connection to the stand-in. */
function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(new URL(p.info.baseUrl).port), "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("4. a client that goes away mid-body", () => {
  it("is one quiet log line (no 500, no stack), on every kind of route", async () => {
    const paths = [
      "/api/v1/embed/session/token",
      "/api/v1/deployments/1/reports",
      `/ai/api/v1/public/${p.info.accountName}/agents/${p.info.chat.agentId}/chat/stream-chat-state`,
    ];
    const framings = ["Content-Length: 1000\r\n\r\n", "Transfer-Encoding: chunked\r\n\r\n10\r\n"];
    for (const [path, framing] of paths.flatMap((x) => framings.map((f) => [x, f] as const))) {
      const from = logs.length;
      const s = await connect();
      s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}{"sessionId":"ab`);
      await sleep(50);
      s.destroy();
      const deadline = Date.now() + 5_000;
      while (!logs.slice(from).some((l) => l.includes(path)) && Date.now() < deadline) await sleep(20);
      const lines = logs.slice(from);
      expect(lines, path).toHaveLength(1);
      expect(lines[0]).toContain(path);
      expect(lines[0]).not.toMatch(/internal error|\n\s+at /i);
      expect(lines[0]!.split("\n")).toHaveLength(1);
    }
    // The server is fine afterwards.
    expect(
      (await fetch(`${p.info.baseUrl}/api/v1/app-config`, { headers: { authorization: `Bearer ${p.info.apiKeys.analyst}` } })).status,
    ).toBe(200);
  });
});

describe("5. keep-alive after an over-limit body", () => {
  it("the 400 says Connection: close and the server closes; or the connection still answers the next request", async () => {
    const s = await connect();
    let got = "";
    let closed = false;
    s.on("data", (d: Buffer) => (got += d.toString("latin1")));
    s.on("close", () => (closed = true));
    s.on("error", () => undefined);
    const size = 3 * 1024 * 1024;
    s.write(
      `POST /api/v1/embed/session/token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n` +
        "x".repeat(1024),
    );
    const deadline = Date.now() + 5_000;
    while (!got.includes("\r\n\r\n") && Date.now() < deadline) await sleep(10);
    const head = got.slice(0, got.indexOf("\r\n\r\n")).toLowerCase();
    expect(head).toMatch(/^http\/1\.1 400/);
    if (/\r\nconnection: close/.test(head)) {
      // Told to go: the server then ends the connection.
      const end = Date.now() + 5_000;
      while (!closed && Date.now() < end) await sleep(10);
      expect(closed).toBe(true);
    } else {
      // Kept alive: a slow client finishing its body, then asking again, must get an answer.
      await sleep(800);
      s.write("x".repeat(size - 1024));
      s.write("GET /api/v1/app-config HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + p.info.apiKeys.analyst + "\r\n\r\n");
      const end = Date.now() + 5_000;
      while ((got.match(/HTTP\/1\.1 /g) ?? []).length < 2 && !closed && Date.now() < end) await sleep(10);
      expect(got.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 400", "HTTP/1.1 200"]);
    }
    s.destroy();
  });
});

describe("6. an ephemeral chat user never outlives its lifetime", () => {
  const admin = { apiKey: () => p.info.apiKeys.admin };
  const ask = (body: Record<string, unknown>) => send("POST", agentPath(), body, { apiKey: admin.apiKey() });

  it("past its lifetime it is gone, even when the request repeats the same ephemeralTtlSeconds; a new request makes a new user", async () => {
    const s = { externalId: "ttl-repeat", ephemeralTtlSeconds: 60 };
    const old = chatIdOf(await frames(await ask({ input: "revenue", messageId: newMessageId(), sessionSettings: s })));
    p.clock.advance(61_000);
    expect((await ask({ chatId: old, sessionSettings: s })).status).toBe(404);
    const fresh = chatIdOf(await frames(await ask({ input: "orders", messageId: newMessageId(), sessionSettings: s })));
    expect(fresh).not.toBe(old);
    expect((await ask({ chatId: old, sessionSettings: s })).status).toBe(404);
    expect((await ask({ chatId: fresh, sessionSettings: s })).status).toBe(200);
  });

  it("a request before expiry does not extend the lifetime (it may only shorten it)", async () => {
    const s = { externalId: "ttl-renew", ephemeralTtlSeconds: 60 };
    const chat = chatIdOf(await frames(await ask({ input: "revenue", messageId: newMessageId(), sessionSettings: s })));
    p.clock.advance(40_000);
    expect((await ask({ chatId: chat, sessionSettings: s })).status).toBe(200);
    p.clock.advance(21_000); // 61 s after it was made
    expect((await ask({ chatId: chat, sessionSettings: s })).status).toBe(404);

    const t = { externalId: "ttl-shorten", ephemeralTtlSeconds: 600 };
    const chat2 = chatIdOf(await frames(await ask({ input: "revenue", messageId: newMessageId(), sessionSettings: t })));
    expect((await ask({ chatId: chat2, sessionSettings: { ...t, ephemeralTtlSeconds: 10 } })).status).toBe(200);
    p.clock.advance(11_000);
    expect((await ask({ chatId: chat2, sessionSettings: t })).status).toBe(404);
  });
});
