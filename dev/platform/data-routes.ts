// Hono routes of the data API ({data_url} = <baseUrl>/cubejs-api): POST /v1/load (JSON
// query compiled to SQL), POST /v1/svcsql (SQL over the views), GET /v1/meta. Auth is the
// deployment JWT in Authorization with no prefix. Numbers go out as strings, as a
// Postgres-backed platform sends them. With the slow-query knob a query that is not done
// within `continueWaitMs` answers 200 {"error":"Continue wait"}; asking again picks it up.
// Everything runs in the data sandbox (data-db.ts), never on the management state's database.
// svcsql runs on a connection of its own with a row cap, a byte cap and a statement timeout, and
// is interrupted when its client goes away (docs/API.md "The data sandbox").
import { Hono } from "hono";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { DataDb } from "./data-db";
import { LoadRequest, SqlRequest, type LoadQuery } from "../../src/api/schemas/data";
import type { Credentials } from "./auth";
import { compileLoad, metaBody, QueryError, SQL_VIEW_NAMES } from "./semantic";

export interface DataApiOptions {
  /** Artificial extra time every /v1/load takes (test knob); 0 = none. */
  slowQueryMs: () => number;
  /** How long a request waits for a running query before "Continue wait". */
  continueWaitMs: number;
  /** svcsql limits (defaults: SVCSQL_LIMITS). */
  svcsql?: Partial<SvcsqlLimits>;
  /** Counts svcsql statements running now (read by tests through platform.state). */
  running?: { svcsql: number };
}

export interface SvcsqlLimits {
  /** Rows one answer may hold; a result with more is refused with 400 (never truncated). */
  maxRows: number;
  /** JSON bytes of the rows one answer may hold; over it: 400. */
  maxBytes: number;
  /** A statement running longer is interrupted: 400. */
  timeoutMs: number;
}

/**
 * Defaults: a sheet holds 1,048,576 rows, one of them the header; 64 MiB is the client's own
 * response cap; 30 s is the management deadline. A refusal beats a truncated answer: the client
 * writes what it gets into cells, and half a result must never look like a whole one.
 */
export const SVCSQL_LIMITS: SvcsqlLimits = { maxRows: 1_048_575, maxBytes: 64 * 1024 * 1024, timeoutMs: 30_000 };

class UserError extends Error {}

type Json = Record<string, unknown>;

export function dataRoutes(db: DataDb, creds: Credentials, o: DataApiOptions): Hono {
  const app = new Hono();
  const conn = db.loadConn;
  const limits: SvcsqlLimits = { ...SVCSQL_LIMITS, ...o.svcsql };
  const running = new Map<string, { done: boolean; result: Promise<{ status: number; text: string }> }>();

  app.use("*", async (c, next) => {
    const header = c.req.header("Authorization");
    if (!header) return c.json({ error: "Authorization header isn't set" }, 403);
    const token = header.replace(/^Bearer /, "");
    if (!creds.verify(token)) return c.json({ error: "Invalid token" }, 403);
    await next();
  });

  async function body(c: { req: { text(): Promise<string> } }): Promise<unknown> {
    const text = await c.req.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new UserError("The body is not valid JSON");
    }
  }
  function check<T>(
    r: { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } },
  ): T {
    if (r.success) return r.data;
    const i = r.error.issues[0]!;
    throw new UserError(`${i.path.join(".") || "(body)"}: ${i.message}`);
  }

  /** A finished answer: its status and its JSON text. */
  type Answer = { status: number; text: string };
  const answer = (status: number, body: unknown): Answer => ({ status, text: JSON.stringify(body) });

  async function runLoad(query: LoadQuery): Promise<Answer> {
    const compiled = compileLoad(query);
    const extra = o.slowQueryMs();
    if (extra > 0) await new Promise((r) => setTimeout(r, extra));
    // DuckDB renders the rows' JSON text (compiled.jsonSql): one value crosses into JS.
    const reader = await conn.runAndReadAll(compiled.jsonSql, compiled.params);
    const rows = String(reader.getColumns()[0]?.[0] ?? "");
    let total: number | null = null;
    if (compiled.countSql) {
      const t = await conn.runAndReadAll(compiled.countSql, compiled.params);
      total = Number((t.getRowObjectsJson()[0] as Json).n);
    }
    const json = JSON.stringify;
    const text =
      `{"query":${json(compiled.normalized)},"data":[${rows}],"lastRefreshTime":${json(new Date().toISOString())},"annotation":${json(compiled.annotation)},` +
      `"dataSource":"default","dbType":"duckdb","external":false,"slowQuery":${extra > 0},"total":${json(total)}}`;
    return { status: 200, text };
  }
  const send = (c: { body(text: string, status: 200, headers: Record<string, string>): Response }, r: Answer) =>
    c.body(r.text, r.status as 200, { "Content-Type": "application/json; charset=UTF-8" });

  app.post("/v1/load", async (c) => {
    const req = check(LoadRequest.safeParse(await body(c)));
    const exec = () =>
      runLoad(req.query).catch((e: unknown) => {
        if (e instanceof QueryError) return answer(400, { type: "UserError", error: e.message });
        throw e;
      });
    if (o.slowQueryMs() <= 0) return send(c, await exec());
    const key = `${c.req.header("Authorization")}|${JSON.stringify(req.query)}`;
    let entry = running.get(key);
    if (!entry) {
      const e: { done: boolean; result: Promise<Answer> } = { done: false, result: exec() };
      e.result
        .finally(() => {
          e.done = true;
        })
        .catch(() => undefined);
      running.set(key, e);
      entry = e;
    }
    const winner = await Promise.race([
      entry.result.then(
        () => true,
        () => true,
      ),
      new Promise<false>((r) => setTimeout(() => r(false), o.continueWaitMs)),
    ]);
    if (!winner) return c.json({ error: "Continue wait" }, 200);
    running.delete(key);
    return send(c, await entry.result);
  });

  app.post("/v1/svcsql", async (c) => {
    const req = check(SqlRequest.safeParse(await body(c)));
    const signal = c.req.raw.signal;
    const sql = await db.connect();
    if (o.running) o.running.svcsql++;
    let stop: "timeout" | "gone" | null = null;
    const interrupt = (why: "timeout" | "gone") => {
      stop ??= why;
      sql.interrupt();
    };
    const timer = setTimeout(() => interrupt("timeout"), limits.timeoutMs);
    const onAbort = () => interrupt("gone");
    signal.addEventListener("abort", onAbort);
    try {
      const text = await runSql(sql, req.query, limits);
      return c.body(text, 200, { "Content-Type": "application/json; charset=UTF-8" });
    } catch (e) {
      if (stop === "timeout")
        throw new UserError(
          `The query ran longer than ${limits.timeoutMs / 1000} s (the SQL API's statement timeout) and was stopped; aggregate or filter it`,
        );
      throw e;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      sql.closeSync();
      if (o.running) o.running.svcsql--;
    }
  });

  app.get("/v1/meta", (c) => c.json(metaBody()));

  app.onError((e, c) => {
    if (e instanceof UserError) return c.json({ type: "UserError", error: e.message }, 400);
    console.error("data API error:", e);
    return c.json({ error: "Internal error" }, 500);
  });
  return app;
}

/**
 * Runs one svcsql query on its own connection and renders the answer's JSON text. Only the views
 * may be named; only a SELECT runs. Rows are fetched chunk by chunk (the event loop stays free
 * between chunks) and the query stops at the first row or byte over the caps.
 */
async function runSql(conn: DuckDBConnection, query: string, limits: SvcsqlLimits): Promise<string> {
  let prepared;
  try {
    const names = conn.getTableNames(query, false);
    const bad = names.filter((n) => !SQL_VIEW_NAMES.has(n));
    if (bad.length) throw new UserError(unknownTables(bad));
    prepared = await conn.prepare(query);
  } catch (e) {
    if (e instanceof UserError) throw e;
    // A table a table function names (query_table, …) is unknown the same way as one in FROM.
    const missing = /Table with name ("?)([^\s"!]+)\1 does not exist/.exec((e as Error).message);
    throw new UserError(missing ? unknownTables([missing[2]!]) : (e as Error).message);
  }
  if (prepared.statementType !== 1 /* SELECT */) throw new UserError("Only SELECT statements are allowed");
  const names = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnName(i));
  const types = names.map((_, i) => sqlType(prepared.columnType(i).toString()));
  // DuckDB renders each row's JSON text (see wireSql); one row past the cap tells "too many".
  const result = await conn.stream(`${wireSql(query, types)}\nLIMIT ${limits.maxRows + 1}`).catch((e: Error) => {
    throw new UserError(e.message);
  });
  const rows: string[] = [];
  let bytes = 0;
  for (;;) {
    const chunk = await result.fetchChunk().catch((e: Error) => {
      throw new UserError(e.message);
    });
    if (!chunk || chunk.rowCount === 0) break;
    for (const v of chunk.getColumnValues(0)) {
      const row = String(v);
      rows.push(row);
      bytes += row.length + 1;
    }
    if (rows.length > limits.maxRows) {
      throw new UserError(
        `The result has more than ${limits.maxRows.toLocaleString("en-US")} rows (the SQL API's row cap); aggregate it or add a LIMIT`,
      );
    }
    if (bytes > limits.maxBytes) {
      throw new UserError(
        `The result is larger than ${Math.round(limits.maxBytes / 1048576)} MiB (the SQL API's answer cap); select fewer columns or rows`,
      );
    }
  }
  return `{"schema":${JSON.stringify(names.map((name, i) => ({ name, type: types[i]! })))},"data":[${rows.join(",")}]}`;
}

/** The same words for a state table, a typo and a table function's target: nothing tells them apart. */
function unknownTables(names: string[]): string {
  return `Unknown table(s): ${names.join(", ")}; the views are ${[...SQL_VIEW_NAMES].join(", ")}`;
}

type SqlType = "string" | "number" | "boolean" | "time";
function sqlType(duck: string): SqlType {
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL)/.test(duck))
    return "number";
  if (duck === "BOOLEAN") return "boolean";
  if (/^(DATE|TIMESTAMP)/.test(duck)) return "time";
  return "string";
}
/**
 * The statement without its final ";" (and any comment after it), so that it can be wrapped in a
 * subquery. Scans quotes and comments, so a ";" inside a string or a comment is left alone.
 */
export function withoutTrailingSemicolon(sql: string): string {
  let lastSemicolon = -1;
  let codeAfter = false; // non-comment, non-space text after lastSemicolon
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (ch === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl < 0 ? sql.length : nl;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 1;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1;
      i = j;
      codeAfter = true;
    } else if (ch === ";") {
      lastSemicolon = i;
      codeAfter = false;
    } else if (!/\s/.test(ch)) {
      codeAfter = true;
    }
  }
  return lastSemicolon >= 0 && !codeAfter ? sql.slice(0, lastSemicolon) : sql;
}

/**
 * The caller's SELECT wrapped so that DuckDB itself renders each row as the text of its JSON
 * array, the way the wire wants it: numbers as decimal strings (as a Postgres-backed platform
 * sends them), times as naive "YYYY-MM-DDTHH:mm:ss.sss", booleans as booleans, anything else as a
 * JSON string, NULL as null. One json_array() call per row (vectorised in DuckDB); converting 2M
 * values to JS and back took seconds, and a chain of || concatenations three times as long.
 * Columns are renamed positionally (c0, c1, …); the newline keeps a trailing "-- comment" from
 * swallowing the closing parenthesis. The projection keeps the subquery's ORDER BY.
 */
function wireSql(query: string, types: SqlType[]): string {
  const inner = withoutTrailingSemicolon(query);
  const aliases = types.map((_, i) => `c${i}`);
  const values = types.map((t, i) => {
    const col = aliases[i]!;
    return t === "time" ? `strftime(CAST(${col} AS TIMESTAMP), '%Y-%m-%dT%H:%M:%S.%g')` : t === "boolean" ? col : `CAST(${col} AS VARCHAR)`;
  });
  const row = types.length ? `json_array(${values.join(", ")})::VARCHAR` : `'[]'`;
  return `SELECT ${row} AS j FROM (\n${inner}\n) AS q(${aliases.join(", ")})`;
}
