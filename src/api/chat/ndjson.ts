// Bytes → lines → JSON values, for the agent chat's NDJSON stream (seed 03 §4.1). Robust to any
// chunking: a line split across chunks, a multi-byte UTF-8 character split across chunks (the
// streaming TextDecoder keeps the partial bytes), CRLF, blank lines, a last line without a newline.
// A line that is not JSON becomes a typed MalformedLineError item and parsing goes on with the
// next line: one bad line never loses the rest of the answer. No DOM, no zod here (the client
// validates each value; keeping this loop bare is what makes it fast, bench/chat-ndjson.bench.ts).
import { InvalidResponseError } from "../errors";

/** A line of the stream that is not JSON. `line` is 1-based; `text` is its first 200 characters. */
export class MalformedLineError extends InvalidResponseError {
  constructor(
    readonly line: number,
    readonly text: string,
    options?: { cause?: unknown },
  ) {
    super(`chat stream: line ${line} is not JSON (${JSON.stringify(text.slice(0, 80))})`, 200, text, options);
  }
}

export type NdjsonItem = { ok: true; value: unknown; line: number } | { ok: false; error: MalformedLineError };

/** The synchronous core: push chunks, collect items; `end()` flushes a last line without "\n". */
export class NdjsonDecoder {
  private readonly decoder = new TextDecoder("utf-8");
  private rest = "";
  private lineNo = 0;

  push(chunk: Uint8Array, out: NdjsonItem[]): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (text.length === 0) return;
    let buf = this.rest.length ? this.rest + text : text;
    let start = 0;
    for (let nl = buf.indexOf("\n", start); nl >= 0; nl = buf.indexOf("\n", start)) {
      this.line(buf, start, nl, out);
      start = nl + 1;
    }
    buf = start === 0 ? buf : buf.slice(start);
    this.rest = buf;
  }

  end(out: NdjsonItem[]): void {
    const tail = this.decoder.decode();
    const buf = this.rest + tail;
    this.rest = "";
    if (buf.length) this.line(buf, 0, buf.length, out);
  }

  private line(buf: string, from: number, to: number, out: NdjsonItem[]): void {
    this.lineNo++;
    let end = to;
    if (end > from && buf.charCodeAt(end - 1) === 13 /* \r */) end--;
    if (end === from) return;
    const s = buf.slice(from, end);
    try {
      out.push({ ok: true, value: JSON.parse(s), line: this.lineNo });
    } catch (e) {
      if (s.trim() === "") return; // a line of spaces is a blank line
      out.push({ ok: false, error: new MalformedLineError(this.lineNo, s.slice(0, 200), { cause: e }) });
    }
  }
}

/** All items of a whole byte sequence split as given (tests and benchmarks). */
export function decodeChunks(chunks: Iterable<Uint8Array>): NdjsonItem[] {
  const d = new NdjsonDecoder();
  const out: NdjsonItem[] = [];
  for (const c of chunks) d.push(c, out);
  d.end(out);
  return out;
}

/**
 * The items of a fetch body as they arrive. `onChunk` is called for every chunk read (the client
 * resets its idle deadline there). Cancelling the iteration, or `signal`, cancels the reader.
 */
export async function* readNdjson(
  body: ReadableStream<Uint8Array>,
  onChunk?: () => void,
  signal?: AbortSignal,
): AsyncGenerator<NdjsonItem> {
  const reader = body.getReader();
  // A body not tied to the signal (any ReadableStream) still stops: cancelling ends the pending read.
  const onAbort = () => void reader.cancel(signal!.reason).catch(() => undefined);
  signal?.addEventListener("abort", onAbort, { once: true });
  const d = new NdjsonDecoder();
  const out: NdjsonItem[] = [];
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk?.();
      d.push(value, out);
      for (const item of out) yield item;
      out.length = 0;
    }
    finished = true;
    d.end(out);
    for (const item of out) yield item;
  } finally {
    // Stopped early (the consumer broke out, or threw): cancel the body so the connection closes.
    signal?.removeEventListener("abort", onAbort);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
