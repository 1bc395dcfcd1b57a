// The rows of a SQL answer a slice at a time (issue 20 §2: a large placement writes its first rows
// while the rest are still being decoded). An answer is one JSON body, `{"schema":[…],"data":[[…],…]}`;
// parsing 100,000 × 20 values whole takes longer than the answer took to arrive.
//
// The scanner below only finds where JSON values begin and end (strings with their escapes, nesting);
// every piece it finds is parsed by JSON.parse, so the values are exactly what JSON.parse of the whole
// body holds (a property test compares them). Anything it does not expect — not an object, "data"
// before "schema", a syntax error — makes `splitSqlBody` answer null or a slice throw, and the caller
// parses the body whole as before.
//
// It scans the body's UTF-8 bytes, not a decoded string (issue 35 §3: a 45 MB answer is then held once,
// as bytes; only a slice at a time is decoded). Every byte JSON gives structure to is ASCII, and no byte
// of a multi-byte UTF-8 sequence is below 0x80, so a value's bounds are found on the bytes alone, and a
// slice never starts or ends inside a character.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const utf8 = new TextDecoder();

/** The members of a SQL answer before its rows, and its rows in slices. */
export interface SqlBodySlices {
  /** The body's members other than "data" (parsed), as JSON.parse gives them. */
  head: Record<string, unknown>;
  /** The rows of "data", `rows` at a time (fewer in the last slice); throws SyntaxError on malformed JSON. */
  slices(rows: number): Generator<unknown[][]>;
  /**
   * Where each row of "data" is in the body (one scan, nothing parsed: issue 35 §3, a refresh decodes only
   * the rows whose bytes changed); throws SyntaxError on a body the scan finds malformed.
   */
  index(): SqlRowIndex;
}

/** The rows of a SQL answer by where they are in its bytes. */
export interface SqlRowIndex {
  /** How many rows "data" holds. */
  count: number;
  /** The bytes of rows [from, to) as received (the commas between them included). */
  bytes(from: number, to: number): Uint8Array;
  /** Rows [from, to), as JSON.parse of the whole body holds them; throws SyntaxError when one is malformed. */
  parse(from: number, to: number): unknown[][];
}

/**
 * Split a SQL answer (its UTF-8 bytes as received, or its text): its members up to "data" are parsed now,
 * the rows on demand. null when the body is not an object whose "schema" member comes before its "data"
 * array (a byte-order mark included: the caller's whole parse then reads it).
 */
export function splitSqlBody(body: Uint8Array | string): SqlBodySlices | null {
  const s = new Scanner(typeof body === "string" ? new TextEncoder().encode(body) : body);
  s.ws();
  if (!s.eat(OPEN_OBJECT)) return null;
  const head: Record<string, unknown> = {};
  for (;;) {
    s.ws();
    if (s.peek() !== QUOTE) return null;
    const keyStart = s.i;
    s.string();
    const key = s.parse(keyStart, s.i) as string;
    s.ws();
    if (!s.eat(COLON)) return null;
    s.ws();
    if (key === "data") {
      if (!("schema" in head) || s.peek() !== OPEN_ARRAY) return null;
      const data = s.i;
      return { head, slices: (rows) => rowSlices(s.at(data), rows), index: () => rowIndex(s.at(data)) };
    }
    const start = s.i;
    s.value();
    // An own property, as JSON.parse makes it (also for "__proto__").
    Object.defineProperty(head, key, { value: s.parse(start, s.i), enumerable: true, writable: true, configurable: true });
    s.ws();
    if (!s.eat(COMMA)) return null; // the object ended (or broke) before "data"
  }
}

function* rowSlices(s: Scanner, rows: number): Generator<unknown[][]> {
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`rows per slice must be a whole number ≥ 1, got ${rows}`);
  s.eat(OPEN_ARRAY);
  s.ws();
  if (s.eat(CLOSE_ARRAY)) return void s.end();
  for (;;) {
    const from = s.i;
    let n = 0;
    let to = from;
    let closed = false;
    for (;;) {
      s.value();
      n++;
      to = s.i;
      s.ws();
      if (s.eat(CLOSE_ARRAY)) {
        closed = true;
        break;
      }
      if (!s.eat(COMMA)) throw s.fail("expected , or ] after a row");
      s.ws();
      if (n === rows) break;
    }
    // The rows found, with the commas between them: JSON.parse checks every value.
    const parsed = JSON.parse(`[${s.text(from, to)}]`) as unknown[];
    if (!parsed.every(Array.isArray)) throw new SyntaxError("a row of data is not an array");
    yield parsed as unknown[][];
    if (closed) return void s.end();
  }
}

function rowIndex(s: Scanner): SqlRowIndex {
  let starts = new Uint32Array(1024);
  let ends = new Uint32Array(1024);
  let count = 0;
  s.eat(OPEN_ARRAY);
  s.ws();
  if (!s.eat(CLOSE_ARRAY))
    for (;;) {
      if (count === starts.length) {
        starts = grown(starts);
        ends = grown(ends);
      }
      starts[count] = s.i;
      s.value();
      ends[count++] = s.i;
      s.ws();
      if (s.eat(CLOSE_ARRAY)) break;
      if (!s.eat(COMMA)) throw s.fail("expected , or ] after a row");
      s.ws();
    }
  s.end();
  const check = (from: number, to: number) => {
    if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= count))
      throw new RangeError(`rows [${from}, ${to}) are not rows of this answer (it has ${count})`);
  };
  return {
    count,
    bytes: (from, to) => {
      check(from, to);
      return from === to ? new Uint8Array(0) : s.bytes(starts[from]!, ends[to - 1]!);
    },
    parse: (from, to) => {
      check(from, to);
      if (from === to) return [];
      const parsed = JSON.parse(`[${s.text(starts[from]!, ends[to - 1]!)}]`) as unknown[];
      if (parsed.length !== to - from || !parsed.every(Array.isArray)) throw new SyntaxError("a row of data is not an array");
      return parsed as unknown[][];
    },
  };
}

function grown(a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Where the string whose text starts at `from` ends (past its closing quote), -1 when it does not. */
function stringEnd(b: Uint8Array, from: number): number {
  for (let at = from; ;) {
    const q = b.indexOf(QUOTE, at);
    if (q < 0) return -1;
    let k = q - 1;
    while (k >= from && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    at = q + 1;
  }
}

/** Where JSON values start and end in a body's bytes; it does not build them. */
class Scanner {
  i = 0;
  constructor(private readonly b: Uint8Array) {}
  /** A scanner of the same bytes from byte `i`. */
  at(i: number): Scanner {
    const s = new Scanner(this.b);
    s.i = i;
    return s;
  }
  /** Bytes [from, to), not copied. */
  bytes(from: number, to: number): Uint8Array {
    return this.b.subarray(from, to);
  }
  /** The byte here (-1 past the end). */
  peek(): number {
    return this.i < this.b.length ? this.b[this.i]! : -1;
  }
  eat(c: number): boolean {
    if (this.b[this.i] !== c) return false;
    this.i++;
    return true;
  }
  ws(): void {
    while (this.i < this.b.length && isSpace(this.b[this.i]!)) this.i++;
  }
  fail(what: string): SyntaxError {
    return new SyntaxError(`${what} at byte ${this.i}`);
  }
  /** The text of bytes [from, to). */
  text(from: number, to: number): string {
    return utf8.decode(this.b.subarray(from, to));
  }
  /** JSON.parse of bytes [from, to). */
  parse(from: number, to: number): unknown {
    return JSON.parse(this.text(from, to));
  }
  /** Past a string starting here (its escapes included); JSON.parse checks the escapes themselves. */
  string(): void {
    if (this.peek() !== QUOTE) throw this.fail("expected a string");
    const end = stringEnd(this.b, this.i + 1);
    if (end < 0) throw this.fail("unterminated string");
    this.i = end;
  }
  /** Past one value starting here: a string, an array or object (nested), or a literal/number. */
  value(): void {
    const c = this.peek();
    if (c === QUOTE) return this.string();
    const b = this.b;
    const n = b.length;
    let i = this.i; // a local: this loop visits every byte of the rows
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      let depth = 0;
      for (;;) {
        if (i >= n) {
          this.i = i;
          throw this.fail("unterminated array or object");
        }
        const ch = b[i]!;
        if (ch === QUOTE) {
          const end = stringEnd(b, i + 1);
          if (end < 0) throw this.fail("unterminated string");
          i = end;
          continue;
        }
        i++;
        if (ch === OPEN_ARRAY || ch === OPEN_OBJECT) depth++;
        else if ((ch === CLOSE_ARRAY || ch === CLOSE_OBJECT) && --depth === 0) break;
      }
      this.i = i;
      return;
    }
    for (; i < n; i++) {
      const ch = b[i]!;
      if (ch === COMMA || ch === CLOSE_ARRAY || ch === CLOSE_OBJECT || isSpace(ch)) break;
    }
    if (i === this.i) throw this.fail("expected a value");
    this.i = i;
  }
  /** After the data array: the rest of the object must be well formed (members after "data" are ignored). */
  end(): void {
    for (;;) {
      this.ws();
      if (this.eat(CLOSE_OBJECT)) break;
      if (!this.eat(COMMA)) throw this.fail("expected , or } after data");
      this.ws();
      const keyStart = this.i;
      this.string();
      const key = this.parse(keyStart, this.i) as string;
      // JSON.parse keeps the last of two equal keys: a second schema or data would change what was decoded.
      if (key === "schema" || key === "data") throw this.fail(`a second "${key}" after data`);
      this.ws();
      if (!this.eat(COLON)) throw this.fail("expected :");
      this.ws();
      const start = this.i;
      this.value();
      this.parse(start, this.i);
    }
    this.ws();
    if (this.i !== this.b.length) throw this.fail("unexpected text after the body");
  }
}
