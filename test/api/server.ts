// A real local HTTP server for request-layer tests: 127.0.0.1, port 0, closed by the test.
// Each test gives a handler; the server records whether each request's connection closed early.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  url: string;
  /** Requests seen, in order, with `closedEarly` set when the client went away before the answer ended. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage["headers"]; closedEarly: boolean; body: string }>;
  /** Resolves when the n-th request's (0-based) connection closes before the response finished. */
  closedEarly(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>,
): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  const waiters = new Map<number, () => void>();
  const closed = new Set<number>();
  const server = createServer((req, res) => {
    const n = requests.length;
    const rec = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, closedEarly: false, body: "" };
    requests.push(rec);
    res.on("close", () => {
      if (!res.writableFinished) {
        rec.closedEarly = true;
        closed.add(n);
        waiters.get(n)?.();
      }
    });
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      rec.body = body;
      void handler(req, res, n);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    closedEarly: (n) =>
      closed.has(n)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            const t = setTimeout(
              () => reject(new Error(`request ${n} was not closed early by the client within 5 s (seen: ${requests.length} requests)`)),
              5_000,
            );
            waiters.set(n, () => {
              clearTimeout(t);
              resolve();
            });
          }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One request through fetch to a throwaway server: the first fetch of a process loads and
 * compiles its HTTP client, which can take longer than a test's 150 ms deadline on a busy machine.
 */
export async function warmUpFetch(): Promise<void> {
  const s = await startServer((_req, res) => void res.end("ok"));
  try {
    await (await fetch(s.url)).text();
  } finally {
    await s.close();
  }
}
