// Deadlines, cancel, size caps and streams against a real local HTTP server (127.0.0.1, port 0):
// a server that never answers, one that stalls mid-body, one that streams; small injected deadlines.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createDataClient,
  createPlatformClient,
  NotFoundError,
  openStream,
  ResponseTooLargeError,
  sendRaw,
  TimeoutError,
  type OpenedStream,
} from "../../src/api";
import { anySignalFallback, BodyBytes } from "../../src/api/http";
import { startServer, warmUpFetch, type TestServer } from "./server";

let server: TestServer | null = null;
beforeAll(warmUpFetch);
afterEach(async () => {
  await server?.close();
  server = null;
});

const send = (url: string, o: { deadlineMs: number; signal?: AbortSignal; maxBytes?: number }) =>
  sendRaw({ fetch: (u, i) => fetch(u, i), method: "GET", url, authorization: "t", ...o });

async function readAll(s: OpenedStream): Promise<string> {
  const reader = s.body.getReader();
  let out = "";
  for (;;) {
    const r = await reader.read();
    if (r.done) return out;
    out += new TextDecoder().decode(r.value);
  }
}

describe("sendRaw deadlines", () => {
  it("a server that never answers ends in a TimeoutError naming the request, within the deadline", async () => {
    server = await startServer(() => {}); // never answers
    const started = Date.now();
    const e = await send(`${server.url}/v1/meta`, { deadlineMs: 150 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as TimeoutError).kind).toBe("timeout");
    expect((e as TimeoutError).transient).toBe(true);
    expect((e as Error).message).toBe("GET /v1/meta: no answer within 150 ms");
    expect(Date.now() - started).toBeLessThan(1000);
    await server.closedEarly(0); // the request in flight was aborted, not left open
  });
  it("the deadline covers the body: a server that stalls mid-body times out", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write('{"data":[1,2,'); // … and nothing more
    });
    const e = await send(`${server.url}/v1/load`, { deadlineMs: 200 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    await server.closedEarly(0);
  });
  it("the caller's abort mid-body re-throws the caller's reason unchanged and closes the connection", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write("partial");
    });
    const ctl = new AbortController();
    const reason = new DOMException("user pressed Stop", "AbortError");
    setTimeout(() => ctl.abort(reason), 80);
    const e = await send(`${server.url}/x`, { deadlineMs: 5_000, signal: ctl.signal }).catch((x: unknown) => x);
    expect(e).toBe(reason);
    await server.closedEarly(0);
  });
  it("an answer in time is returned whole with its status and headers", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(404, { "Content-Type": "text/html" });
      res.end("<html><title>Not Found</title></html>");
    });
    const r = await send(`${server.url}/x`, { deadlineMs: 1_000 });
    expect(r.status).toBe(404);
    expect(r.headers.get("content-type")).toBe("text/html");
    expect(new TextDecoder().decode(r.bytes)).toContain("Not Found");
  });
});

describe("a body's bytes (issue 35 §3: held once)", () => {
  const of = (declared: number, ...chunks: number[][]) => {
    const b = new BodyBytes(declared);
    for (const c of chunks) b.add(Uint8Array.from(c));
    return b.bytes();
  };
  it("with its declared length, the chunks land in one buffer of that size; shorter, longer or undeclared, every byte is kept in order", () => {
    const b = new BodyBytes(6);
    b.add(Uint8Array.from([1, 2]));
    b.add(Uint8Array.from([3, 4, 5, 6]));
    const out = b.bytes();
    expect([...out]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(out.buffer.byteLength).toBe(6); // no copy beside it
    expect([...of(10, [1, 2, 3])]).toEqual([1, 2, 3]);
    expect([...of(3, [1, 2], [3, 4], [5])]).toEqual([1, 2, 3, 4, 5]);
    expect([...of(0, [1], [2, 3])]).toEqual([1, 2, 3]);
    expect([...of(0)]).toEqual([]);
  });
});

describe("response size cap", () => {
  it("fails by Content-Length before reading", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Length": String(10_000) });
      res.write("x".repeat(100)); // the rest never needs to come
    });
    const e = await send(`${server.url}/v1/load`, { deadlineMs: 2_000, maxBytes: 1_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ResponseTooLargeError);
    expect((e as ResponseTooLargeError).limitBytes).toBe(1_000);
    expect((e as Error).message).toMatch(/^GET \/v1\/load: the answer is 10 KB, over the limit of 1000 bytes$/);
  });
  it("fails by counting while reading (no Content-Length) and stops the download", async () => {
    let written = 0;
    server = await startServer((_req, res) => {
      res.writeHead(200, { "Transfer-Encoding": "chunked" });
      const pump = () => {
        while (written < 5_000_000 && res.write("y".repeat(16_384))) written += 16_384;
        if (written < 5_000_000 && !res.destroyed) res.once("drain", pump);
      };
      pump();
    });
    const e = await send(`${server.url}/v1/svcsql`, { deadlineMs: 5_000, maxBytes: 100_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ResponseTooLargeError);
    await server.closedEarly(0);
    expect(written).toBeLessThan(5_000_000);
  });
  it("the data client applies the configured cap", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ data: "z".repeat(5_000) }));
    });
    const c = createDataClient({ dataUrl: server.url, token: "t", deadlines: { maxResponseBytes: 2_000 } });
    await expect(c.meta()).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(server.requests).toHaveLength(1); // a permanent failure: not retried
  });
});

describe("clients against a hung server", () => {
  it("the management client gives up within its budget (attempts included) with a TimeoutError", async () => {
    server = await startServer(() => {});
    const c = createPlatformClient({
      baseUrl: server.url,
      credential: "k",
      retry: { maxElapsedMs: 400, baseDelayMs: 1, maxDelayMs: 2 },
      deadlines: { managementAttemptMs: 150 },
    });
    const started = Date.now();
    const e = await c.getMe().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toMatch(/^GET \/api\/v1\/users\/me: /);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(server.requests.length).toBeGreaterThanOrEqual(2); // a timed-out attempt is retried within the budget
  });
  it("the data client: per-attempt deadline, and the whole call bounded", async () => {
    server = await startServer(() => {});
    const c = createDataClient({
      dataUrl: server.url,
      token: "t",
      retry: { maxElapsedMs: 300, baseDelayMs: 1, maxDelayMs: 2 },
      deadlines: { dataAttemptMs: 100 },
    });
    const started = Date.now();
    const e = await c.load({ measures: ["orders.count"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toMatch(/^POST \/v1\/load: /);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
  it("the caller's abort while a request hangs stops it at once with the caller's reason", async () => {
    server = await startServer(() => {});
    const c = createDataClient({ dataUrl: server.url, token: "t" }); // default deadlines: 60 s
    const ctl = new AbortController();
    const p = c.load({ measures: ["orders.count"] }, ctl.signal).catch((x: unknown) => x);
    await new Promise((r) => setTimeout(r, 50));
    ctl.abort(new DOMException("Stop", "AbortError"));
    expect(await p).toMatchObject({ name: "AbortError", message: "Stop" });
    await server.closedEarly(0);
  });
});

describe("openStream", () => {
  const open = (url: string, o: Partial<Parameters<typeof openStream>[0]> = {}) =>
    openStream({
      fetch: (u, i) => fetch(u, i),
      method: "POST",
      url,
      authorization: "t",
      body: { q: 1 },
      accept: "text/event-stream",
      ...o,
    });

  it("hands over the body chunk by chunk, with status and headers, sharing auth", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write("data: a\n\n");
      setTimeout(() => res.write("data: b\n\n"), 30);
      setTimeout(() => res.end("data: [DONE]\n\n"), 60);
    });
    const s = await open(`${server.url}/chat`, { idleMs: 1_000 });
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toBe("text/event-stream");
    expect(await readAll(s)).toBe("data: a\n\ndata: b\n\ndata: [DONE]\n\n");
    expect(server.requests[0]!.headers.authorization).toBe("t");
    expect(server.requests[0]!.headers.accept).toBe("text/event-stream");
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ q: 1 });
  });
  it("the idle deadline is reset by every chunk: a slow but steady stream is not cut", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      let i = 0;
      const t = setInterval(() => {
        res.write(`${i}`);
        if (++i === 6) {
          clearInterval(t);
          res.end();
        }
      }, 60); // 360 ms in all, never 150 ms silent
    });
    const s = await open(`${server.url}/s`, { idleMs: 150 });
    expect(await readAll(s)).toBe("012345");
  });
  it("a stream that goes silent past the idle deadline ends with a TimeoutError naming it", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write("first");
    });
    const s = await open(`${server.url}/chat/stream`, { idleMs: 150 });
    const reader = s.body.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first");
    const started = Date.now();
    const e = await reader.read().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toBe("POST /chat/stream: the stream sent nothing for 150 ms");
    expect(Date.now() - started).toBeLessThan(1_000);
    await server.closedEarly(0);
  });
  it("the caller's signal mid-stream aborts the request in flight with the caller's reason", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write("one");
    });
    const ctl = new AbortController();
    const s = await open(`${server.url}/s`, { signal: ctl.signal, idleMs: 5_000 });
    const reader = s.body.getReader();
    await reader.read();
    const reason = new DOMException("Stop generating", "AbortError");
    setTimeout(() => ctl.abort(reason), 30);
    expect(await reader.read().catch((x: unknown) => x)).toBe(reason);
    await server.closedEarly(0);
  });
  it("cancel() or cancelling the body closes the connection", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write("one");
    });
    const a = await open(`${server.url}/s`, { idleMs: 5_000 });
    await a.body.cancel();
    await server.closedEarly(0);
    const b = await open(`${server.url}/s`, { idleMs: 5_000 });
    const reader = b.body.getReader();
    await reader.read();
    b.cancel();
    expect(await reader.read().catch((x: unknown) => x)).toMatchObject({ name: "AbortError" });
    await server.closedEarly(1);
  });
  it("maps the status before the body is used: a 404 HTML page is a NotFoundError with an excerpt", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(404, { "Content-Type": "text/html" });
      res.end("<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Nope</h1></body></html>");
    });
    const e = await open(`${server.url}/ai/chat`).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotFoundError);
    expect((e as Error).message).toBe("POST /ai/chat: 404 Nope");
  });
  it("headers that never come end with a TimeoutError within connectMs", async () => {
    server = await startServer(() => {});
    const e = await open(`${server.url}/s`, { connectMs: 120 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    await server.closedEarly(0);
  });
});

describe("anySignal fallback (for hosts without AbortSignal.any)", () => {
  it("aborts with the first signal's reason and lets go of its listeners", () => {
    const a = new AbortController();
    const b = new AbortController();
    const both = anySignalFallback([a.signal, b.signal]);
    expect(both.signal.aborted).toBe(false);
    b.abort("b's reason");
    expect(both.signal.aborted).toBe(true);
    expect(both.signal.reason).toBe("b's reason");
    a.abort("later");
    expect(both.signal.reason).toBe("b's reason");
    const pre = anySignalFallback([AbortSignal.abort("already")]);
    expect(pre.signal.reason).toBe("already");
  });
  it("sendRaw keeps its deadline and the caller's abort where AbortSignal.any is missing", async () => {
    const native = (AbortSignal as { any?: unknown }).any;
    delete (AbortSignal as { any?: unknown }).any;
    try {
      server = await startServer(() => {});
      await expect(send(`${server.url}/a`, { deadlineMs: 100 })).rejects.toBeInstanceOf(TimeoutError);
      const ctl = new AbortController();
      setTimeout(() => ctl.abort("caller's reason"), 50);
      await expect(send(`${server.url}/b`, { deadlineMs: 5_000, signal: ctl.signal })).rejects.toBe("caller's reason");
      await server.closedEarly(1);
    } finally {
      (AbortSignal as { any?: unknown }).any = native;
    }
  });
});
