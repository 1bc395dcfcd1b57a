// The data API's sandbox: its own DuckDB instance, in memory, that holds nothing but the sample
// dataset (its file attached read-only as `sample`) and the semantic views over it. Management
// state (API keys, the JWT secret, reports, placements) lives in another instance (db.ts) that
// this one cannot name, so no SQL a data token sends can reach it: `query_table(['state_meta'])`
// fails as any unknown table does. External access (files, URLs, ATTACH) is off, extensions are
// never loaded, and the configuration is locked so a query cannot turn any of that back on.
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { SQL_VIEWS_DDL } from "./semantic";

export interface DataDbOptions {
  /** DuckDB worker threads (see PlatformOptions.threads). */
  threads?: number;
  /** DuckDB's memory limit for the data API (default "1GB"): a runaway query fails instead of swapping. */
  memoryLimit?: string;
}

export class DataDb {
  private constructor(
    private readonly instance: DuckDBInstance,
    readonly loadConn: DuckDBConnection,
  ) {}

  static async open(datasetFile: string, o: DataDbOptions = {}): Promise<DataDb> {
    const instance = await DuckDBInstance.create(":memory:", {
      threads: String(o.threads ?? 1),
      memory_limit: o.memoryLimit ?? "1GB",
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      allow_community_extensions: "false",
    });
    const setup = await instance.connect();
    try {
      await setup.run(`ATTACH '${datasetFile.replace(/'/g, "''")}' AS sample (READ_ONLY)`);
      for (const ddl of SQL_VIEWS_DDL) await setup.run(ddl);
      // After the ATTACH: from here on no file, URL or other database can be opened.
      await setup.run("SET enable_external_access = false");
      await setup.run("SET lock_configuration = true");
    } finally {
      setup.closeSync();
    }
    return new DataDb(instance, await instance.connect());
  }

  /** A connection of its own (one per svcsql request, so that interrupting it stops only that query). */
  connect(): Promise<DuckDBConnection> {
    return this.instance.connect();
  }

  close(): void {
    this.loadConn.closeSync();
    this.instance.closeSync();
  }
}
