// Every request body is read once, here, before any handler sees it (Hono caches the text for them):
//   - bytes that are not well-formed UTF-8 are a 400 naming the JSON field that holds them, so the
//     user's text is never stored with U+FFFD in place of what they wrote (nothing is stored);
//   - a body nested deeper than MAX_JSON_DEPTH is a 400 (json-depth.ts);
//   - a client that goes away mid-body surfaces here as a read error, which server.ts's onError
//     recognises with clientWentAway() and logs as one quiet line (not a 500 with a stack).
// Handlers parse the text as JSON whatever the Content-Type says; only binary uploads are skipped.
// A body refused unread (over 2 MiB, server.ts) is drained after its answer before the socket closes (lingeringClose).
import { isUtf8 } from "node:buffer";
import { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { MiddlewareHandler } from "hono";
import { jsonDepth, MAX_JSON_DEPTH } from "./json-depth";

const LOSSY_UTF8 = new TextDecoder("utf-8");

/**
 * The offset of the first byte that does not begin a well-formed UTF-8 sequence (Unicode's table
 * 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no cut sequence), or -1.
 */
export function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const x = b[i]!;
    if (x < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (x >= 0xc2 && x <= 0xdf) n = 1;
    else if (x === 0xe0) [n, lo] = [2, 0xa0];
    else if (x === 0xed) [n, hi] = [2, 0x9f];
    else if (x >= 0xe1 && x <= 0xef) n = 2;
    else if (x === 0xf0) [n, lo] = [3, 0x90];
    else if (x === 0xf4) [n, hi] = [3, 0x8f];
    else if (x >= 0xf1 && x <= 0xf3) n = 3;
    else return i;
    for (let k = 1; k <= n; k++) {
      const y = b[i + k];
      if (y === undefined || y < (k === 1 ? lo : 0x80) || y > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

type Frame = { kind: "object"; key: string | null; expectKey: boolean } | { kind: "array"; index: number };

/**
 * Which part of the JSON text `b` byte `at` lies in: the path of the string value holding it
 * (`["sessionSettings", "groups", "1"]`), or, when it is inside a member name, the path of the object
 * with `inKey`. Null when it lies outside every string (then the body is not JSON either). Works on
 * bytes: JSON's structural characters are ASCII, and no byte of a multi-byte sequence (nor an
 * invalid byte, all ≥ 0x80) can be mistaken for one.
 */
export function jsonPathAt(b: Uint8Array, at: number): { path: string[]; inKey: boolean } | null {
  const stack: Frame[] = [];
  const pathOf = (frames: Frame[]) => frames.map((f) => (f.kind === "object" ? (f.key ?? "") : String(f.index)));
  for (let i = 0; i < b.length && i <= at; i++) {
    const ch = b[i]!;
    const top = stack.at(-1);
    if (ch === 0x7b /* { */) stack.push({ kind: "object", key: null, expectKey: true });
    else if (ch === 0x5b /* [ */) stack.push({ kind: "array", index: 0 });
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) stack.pop();
    else if (ch === 0x2c /* , */) {
      if (top?.kind === "object") top.expectKey = true;
      else if (top?.kind === "array") top.index++;
    } else if (ch === 0x3a /* : */) {
      if (top?.kind === "object") top.expectKey = false;
    } else if (ch === 0x22 /* " */) {
      const start = i;
      for (i++; i < b.length && b[i] !== 0x22; i++) if (b[i] === 0x5c /* \ */) i++;
      const inKey = top?.kind === "object" && top.expectKey;
      // In a member name: the object's own path (its frames below the top); in a value: the value's.
      if (at >= start && at <= i) return { path: pathOf(inKey ? stack.slice(0, -1) : stack), inKey };
      if (inKey) {
        const raw = LOSSY_UTF8.decode(b.subarray(start, i + 1));
        try {
          top.key = JSON.parse(raw) as string;
        } catch {
          top.key = raw.slice(1, -1);
        }
      }
    }
  }
  return null;
}

/** The 400 for a body that is not UTF-8: `field` names the string holding the first bad byte. */
export function utf8Problem(bytes: Uint8Array): { error: string; code: "invalid"; field: string } {
  const at = firstInvalidUtf8(bytes);
  const where = at < 0 ? null : jsonPathAt(bytes, at);
  const field = where && where.path.length ? where.path.join(".") : "(body)";
  const fix = "send the body as UTF-8 (every string in the user's own characters)";
  const error =
    where?.inKey === true
      ? `A member name in ${field} is not valid UTF-8 (byte ${at} of the body): ${fix}`
      : `${field} is not valid UTF-8${at >= 0 ? ` (byte ${at} of the body)` : ""}: ${fix}`;
  return { error, code: "invalid", field };
}

/**
 * True when `e` is the request body's stream failing because the client closed the connection
 * mid-body (Node's "aborted", code ECONNRESET): not a fault of ours. Anything else stays a 500.
 */
export function clientWentAway(e: unknown): boolean {
  return e instanceof Error && (e as { code?: unknown }).code === "ECONNRESET";
}

/** Middleware: reads the body, refuses invalid UTF-8 and deep nesting, caches the text for the handler. */
export function requestBody(): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header("Content-Type") ?? "";
    if (!c.req.raw.body || c.req.method === "GET" || c.req.method === "HEAD" || /multipart|octet-stream|image\//i.test(type)) return next();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (!isUtf8(bytes)) return c.json(utf8Problem(bytes), 400);
    const text = await c.req.text(); // decoded from the bytes Hono cached: well-formed, so nothing is replaced
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      return c.json({ error: `The body is nested deeper than ${MAX_JSON_DEPTH} levels`, code: "invalid", field: "(body)" }, 400);
    }
    await next();
  };
}

/**
 * How much of a refused body the server still reads after its answer (lingeringClose): at most
 * 32 MiB, for at most 10 s. A client still sending past either is cut off (a reset); every client
 * that stops once it has the answer, or sends less, closes cleanly.
 */
export const DRAIN_BOUND = { bytes: 32 * 1024 * 1024, ms: 10_000 } as const;

/**
 * The close after an answer to a body the server did not read (the 400 for a body over 2 MiB, sent
 * with `Connection: close` as soon as the headers say how long the body is). Closing the socket
 * while the client's bytes are still arriving makes the kernel answer them with a reset, and a client
 * that meets it while sending (EPIPE) often never reads the answer waiting for it. So, as HTTP
 * servers do (a "lingering close"): once the answer is written, this side is shut (FIN), the rest of
 * the body is read and thrown away until the client closes its side, the body ends, or DRAIN_BOUND
 * is reached, and only then is the socket closed.
 *
 * Node's server closes a `Connection: close` connection with `socket.destroySoon()` once the answer
 * is written (and @hono/node-server's own drain ends with it too); this replaces that one call for
 * this one socket. `env` is the Hono context's env: on @hono/node-server it holds the request
 * (`incoming`); anywhere else (app.request() in tests) this does nothing.
 */
export function lingeringClose(env: unknown, bound: { bytes: number; ms: number } = DRAIN_BOUND): void {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage)) return;
  const socket = incoming.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed) return;
  let lingering = false;
  socket.destroySoon = () => {
    if (lingering) return;
    lingering = true;
    let read = 0;
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, bound.ms);
    timer.unref();
    socket.end(); // the answer is written: FIN after it
    socket.once("end", close); // the client closed its side
    socket.once("close", () => clearTimeout(timer));
    incoming.once("end", close); // the whole body has arrived: nothing is left unread
    // The body's readers are gone (the answer is sent): what arrives is counted and dropped.
    incoming.removeAllListeners("data");
    incoming.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (read > bound.bytes) close();
    });
    incoming.resume();
  };
}
