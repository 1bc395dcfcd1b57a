// The rows of a SQL answer a slice at a time (issue 20 §2: a large placement writes its first rows
// while the rest are still being decoded). An answer is one JSON body, `{"schema":[…],"data":[[…],…]}`;
// parsing 100,000 × 20 values whole takes longer than the answer took to arrive.
//
// The scanner below only finds where JSON values begin and end (strings with their escapes, nesting);
// every piece it finds is parsed by JSON.parse, so the values are exactly what JSON.parse of the whole
// body holds (a property test compares them). Anything it does not expect — not an object, "data"
// before "schema", a syntax error — makes `splitSqlBody` answer null or a slice throw, and the caller
// parses the body whole as before.

/** The members of a SQL answer before its rows, and its rows in slices. */
export interface SqlBodySlices {
  /** The body's members other than "data" (parsed), as JSON.parse gives them. */
  head: Record<string, unknown>;
  /** The rows of "data", `rows` at a time (fewer in the last slice); throws SyntaxError on malformed JSON. */
  slices(rows: number): Generator<unknown[][]>;
}

/**
 * Split a SQL answer's text: its members up to "data" are parsed now, the rows on demand. null when the
 * body is not an object whose "schema" member comes before its "data" array.
 */
export function splitSqlBody(text: string): SqlBodySlices | null {
  const s = new Scanner(text);
  s.ws();
  if (!s.eat("{")) return null;
  const head: Record<string, unknown> = {};
  for (;;) {
    s.ws();
    if (s.peek() !== '"') return null;
    const keyStart = s.i;
    s.string();
    const key = JSON.parse(text.slice(keyStart, s.i)) as string;
    s.ws();
    if (!s.eat(":")) return null;
    s.ws();
    if (key === "data") {
      if (!("schema" in head) || s.peek() !== "[") return null;
      return { head, slices: (rows) => rowSlices(s, rows) };
    }
    const start = s.i;
    s.value();
    // An own property, as JSON.parse makes it (also for "__proto__").
    Object.defineProperty(head, key, { value: JSON.parse(text.slice(start, s.i)), enumerable: true, writable: true, configurable: true });
    s.ws();
    if (!s.eat(",")) return null; // the object ended (or broke) before "data"
  }
}

function* rowSlices(s: Scanner, rows: number): Generator<unknown[][]> {
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`rows per slice must be a whole number ≥ 1, got ${rows}`);
  s.eat("[");
  s.ws();
  if (s.eat("]")) return void s.end();
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
      if (s.eat("]")) {
        closed = true;
        break;
      }
      if (!s.eat(",")) throw s.fail("expected , or ] after a row");
      s.ws();
      if (n === rows) break;
    }
    // The rows found, with the commas between them: JSON.parse checks every value.
    const parsed = JSON.parse(`[${s.text.slice(from, to)}]`) as unknown[];
    if (!parsed.every(Array.isArray)) throw new SyntaxError("a row of data is not an array");
    yield parsed as unknown[][];
    if (closed) return void s.end();
  }
}

/** Where JSON values start and end; it does not build them. */
class Scanner {
  i = 0;
  constructor(readonly text: string) {}
  peek(): string {
    return this.text[this.i] ?? "";
  }
  eat(c: string): boolean {
    if (this.text[this.i] !== c) return false;
    this.i++;
    return true;
  }
  ws(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++;
      else return;
    }
  }
  fail(what: string): SyntaxError {
    return new SyntaxError(`${what} at character ${this.i}`);
  }
  /** Past a string starting here (its escapes included); JSON.parse checks the escapes themselves. */
  string(): void {
    if (!this.eat('"')) throw this.fail("expected a string");
    const t = this.text;
    for (;;) {
      const q = t.indexOf('"', this.i);
      if (q < 0) throw this.fail("unterminated string");
      let backslashes = 0;
      for (let k = q - 1; k >= this.i && t.charCodeAt(k) === 0x5c; k--) backslashes++;
      this.i = q + 1;
      if (backslashes % 2 === 0) return;
    }
  }
  /** Past one value starting here: a string, an array or object (nested), or a literal/number. */
  value(): void {
    const c = this.peek();
    if (c === '"') return this.string();
    if (c === "[" || c === "{") {
      let depth = 0;
      const t = this.text;
      for (;;) {
        const ch = t[this.i];
        if (ch === undefined) throw this.fail("unterminated array or object");
        if (ch === '"') {
          this.string();
          continue;
        }
        if (ch === "[" || ch === "{") depth++;
        else if (ch === "]" || ch === "}") depth--;
        this.i++;
        if (depth === 0) return;
      }
    }
    const start = this.i;
    while (this.i < this.text.length && !",]} \n\r\t".includes(this.text[this.i]!)) this.i++;
    if (this.i === start) throw this.fail("expected a value");
  }
  /** After the data array: the rest of the object must be well formed (members after "data" are ignored). */
  end(): void {
    for (;;) {
      this.ws();
      if (this.eat("}")) break;
      if (!this.eat(",")) throw this.fail("expected , or } after data");
      this.ws();
      const keyStart = this.i;
      this.string();
      const key = JSON.parse(this.text.slice(keyStart, this.i)) as string;
      // JSON.parse keeps the last of two equal keys: a second schema or data would change what was decoded.
      if (key === "schema" || key === "data") throw this.fail(`a second "${key}" after data`);
      this.ws();
      if (!this.eat(":")) throw this.fail("expected :");
      this.ws();
      const start = this.i;
      this.value();
      JSON.parse(this.text.slice(start, this.i));
    }
    this.ws();
    if (this.i !== this.text.length) throw this.fail("unexpected text after the body");
  }
}
