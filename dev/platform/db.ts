// The stand-in's management state: DuckDB, platform.duckdb in the data dir (survives restarts).
// Statements on its one connection run one at a time (a promise queue). The data API never sees
// this instance: it has a sandbox of its own (data-db.ts) holding only the sample dataset.
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from "@duckdb/node-api";
import path from "node:path";

export type Row = Record<string, unknown>;

export class Db {
  private queue: Promise<unknown> = Promise.resolve();
  private constructor(
    readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
  ) {}

  /** Opens `<dataDir>/platform.duckdb` (state only). */
  static async open(dataDir: string, threads = 1): Promise<Db> {
    const instance = await DuckDBInstance.create(path.join(dataDir, "platform.duckdb"), { threads: String(threads) });
    return new Db(instance, await instance.connect());
  }

  /** Runs fn alone on the state connection (callers never interleave). */
  exclusive<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => fn(this.conn));
    this.queue = next.catch(() => undefined);
    return next;
  }

  all(sql: string, params: DuckDBValue[] = []): Promise<Row[]> {
    return this.exclusive(async (c) => (await c.runAndReadAll(sql, params)).getRowObjectsJson() as Row[]);
  }

  run(sql: string, params: DuckDBValue[] = []): Promise<void> {
    return this.exclusive(async (c) => void (await c.run(sql, params)));
  }

  /** Runs fn inside BEGIN/COMMIT; any throw rolls back, so nothing is half-written. */
  transaction<T>(fn: (exec: (sql: string, params?: DuckDBValue[]) => Promise<void>) => Promise<T>): Promise<T> {
    return this.exclusive(async (c) => {
      await c.run("BEGIN TRANSACTION");
      try {
        const out = await fn(async (sql, params = []) => void (await c.run(sql, params)));
        await c.run("COMMIT");
        return out;
      } catch (e) {
        await c.run("ROLLBACK");
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    await this.exclusive(async (c) => {
      await c.run("CHECKPOINT");
      c.closeSync();
    });
    this.instance.closeSync();
  }
}
