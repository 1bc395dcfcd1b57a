// Persistence of the embed state that outlives a session: embed users and dashboard comments, in the
// stand-in's DuckDB file (tables state_embed_users, state_comments, one JSON doc per row). As for
// reports, every change is one transaction and is applied in memory only after it committed.
// Sessions are not kept: they last minutes (ids) or hours (tokens); after a restart a token answers
// 401 and clients mint a new session.
import type { Db } from "./db";

const DDL = [
  "CREATE TABLE IF NOT EXISTS state_embed_users (id INTEGER PRIMARY KEY, doc VARCHAR)",
  "CREATE TABLE IF NOT EXISTS state_comments (id INTEGER PRIMARY KEY, doc VARCHAR)",
];

export class EmbedStore<U extends { id: number }, C extends { id: number }> {
  private constructor(
    private readonly db: Db,
    readonly users: U[],
    readonly comments: C[],
  ) {}

  static async load<U extends { id: number }, C extends { id: number }>(db: Db): Promise<EmbedStore<U, C>> {
    for (const d of DDL) await db.run(d);
    const users = (await db.all("SELECT doc FROM state_embed_users ORDER BY id")).map((r) => JSON.parse(String(r.doc)) as U);
    const comments = (await db.all("SELECT doc FROM state_comments ORDER BY id")).map((r) => JSON.parse(String(r.doc)) as C);
    return new EmbedStore<U, C>(db, users, comments);
  }

  saveUser(u: U): Promise<void> {
    return this.db.transaction(async (exec) => exec("INSERT OR REPLACE INTO state_embed_users VALUES ($1, $2)", [u.id, JSON.stringify(u)]));
  }

  saveComment(c: C): Promise<void> {
    return this.db.transaction(async (exec) => exec("INSERT OR REPLACE INTO state_comments VALUES ($1, $2)", [c.id, JSON.stringify(c)]));
  }
}
