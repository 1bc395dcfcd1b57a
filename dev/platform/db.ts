// The stand-in's embedded database: DuckDB, platform.duckdb in the data dir for the
// management state (survives restarts) with the sample dataset file attached read-only. Statements on one
// connection run one at a time (a promise queue); the data API gets its own connection.
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from "@duckdb/node-api";
import path from "node:path";

export type Row = Record<string, unknown>;

export class Db {
  private queue: Promise<unknown> = Promise.resolve();
  private constructor(readonly instance: DuckDBInstance, private readonly conn: DuckDBConnection) {}

  /** Opens `<dataDir>/platform.duckdb` (state) and attaches the dataset file read-only as `sample`. */
  static async open(dataDir: string, datasetFile: string, threads = 1): Promise<Db> {
    const instance = await DuckDBInstance.create(path.join(dataDir, "platform.duckdb"), { threads: String(threads) });
    const conn = await instance.connect();
    await conn.run(`ATTACH '${datasetFile.replace(/'/g, "''")}' AS sample (READ_ONLY)`);
    return new Db(instance, conn);
  }

  /** A second connection for read-only queries that may run beside state writes. */
  async reader(): Promise<DuckDBConnection> {
    return this.instance.connect();
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
