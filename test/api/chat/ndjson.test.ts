// The NDJSON parser: lines split across chunks, multi-byte UTF-8 split across chunks, CRLF, blank
// lines, a last line without newline, a line that is not JSON (typed error, the rest kept) — and a
// property: any random chunking of a recorded stream yields the same frames.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeChunks, MalformedLineError, readNdjson, type NdjsonItem } from "../../../src/api/chat/ndjson";
import { InvalidResponseError } from "../../../src/api/errors";

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);
const values = (items: NdjsonItem[]) => items.map((i) => (i.ok ? i.value : `ERR@${i.error.line}`));
const RECORDED = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "recorded-stream.ndjson"));

/** Splits `b` at the given cut points. */
function split(b: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (b.length + 1)))].sort((x, y) => x - y);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of points) {
    out.push(b.subarray(at, c));
    at = c;
  }
  out.push(b.subarray(at));
  return out;
}

describe("NdjsonDecoder", () => {
  it("joins a line split across chunks", () => {
    expect(values(decodeChunks([bytes('{"a":'), bytes("1}\n{"), bytes('"b":2}\n')]))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("keeps a multi-byte character split across chunks (every byte boundary)", () => {
    const line = bytes('{"t":"naïve — 📈 s’il"}\n');
    for (let i = 1; i < line.length; i++) {
      expect(values(decodeChunks([line.subarray(0, i), line.subarray(i)]))).toEqual([{ t: "naïve — 📈 s’il" }]);
    }
    // One byte at a time.
    expect(values(decodeChunks([...line].map((b) => Uint8Array.of(b))))).toEqual([{ t: "naïve — 📈 s’il" }]);
  });

  it("accepts CRLF, blank lines, whitespace-only lines and a last line without newline", () => {
    expect(values(decodeChunks([bytes('{"a":1}\r\n\r\n\n  \n{"b":2}\r'), bytes('\n{"c":3}')]))).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it("a CR at the end of one chunk and LF at the start of the next is one line end", () => {
    expect(values(decodeChunks([bytes('{"a":1}\r'), bytes('\n{"b":2}\n')]))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("a line that is not JSON is a typed error with its line number; the lines after it are kept", () => {
    const items = decodeChunks([bytes('{"a":1}\n<html>oops</html>\n{"b":2}\n{"c":')]);
    expect(values(items)).toEqual([{ a: 1 }, "ERR@2", { b: 2 }, "ERR@4"]);
    const bad = items[1]!;
    if (bad.ok) throw new Error("expected an error");
    expect(bad.error).toBeInstanceOf(MalformedLineError);
    expect(bad.error).toBeInstanceOf(InvalidResponseError);
    expect(bad.error.kind).toBe("invalid-response");
    expect(bad.error.text).toBe("<html>oops</html>");
  });

  it("empty input and a lone newline yield nothing", () => {
    expect(decodeChunks([])).toEqual([]);
    expect(decodeChunks([bytes("\n")])).toEqual([]);
  });
});

describe("readNdjson over a ReadableStream", () => {
  const streamOf = (chunks: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const x of chunks) c.enqueue(x);
        c.close();
      },
    });

  it("yields the items as they arrive and calls onChunk per chunk", async () => {
    let chunks = 0;
    const out: unknown[] = [];
    for await (const i of readNdjson(streamOf([bytes('{"a":1}\n{"b"'), bytes(":2}")]), () => chunks++)) out.push(i.ok ? i.value : "ERR");
    expect(out).toEqual([{ a: 1 }, { b: 2 }]);
    expect(chunks).toBe(2);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(bytes('{"x":1}\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of readNdjson(body)) break;
    expect(cancelled).toBe(true);
  });
});

describe("property: any chunking of a recorded stream yields the same frames", () => {
  const whole = values(decodeChunks([RECORDED]));

  it("the recording holds non-ASCII text and many frames", () => {
    expect(whole.length).toBeGreaterThan(20);
    expect(RECORDED.toString("utf8")).toMatch(/📈/);
  });

  it("random cut points (LF and CRLF line ends)", () => {
    const crlf = bytes(RECORDED.toString("utf8").replace(/\n/g, "\r\n"));
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 60 }), fc.boolean(), (cuts, useCrlf) => {
        const src = useCrlf ? crlf : new Uint8Array(RECORDED);
        expect(values(decodeChunks(split(src, cuts)))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});
