// Management state of the stand-in: reports and placements, kept in memory for reads and
// written through to DuckDB (tables state_reports, state_placements, state_meta) in one
// transaction per change, so a change is either fully persisted or not applied at all.
import type { Db } from "./db";
import type { Host, PivotItems, ReportSource, ResultChecksum } from "../../src/api/schemas/management";

export interface StoredReport {
  id: number;
  deploymentId: number;
  /** The real (chosen or generated) publicId; null for a legacy report (placeholder shown). */
  publicId: string | null;
  name: string;
  title: string;
  userId: number;
  shared: boolean;
  source: ReportSource;
  createdAt: string;
  updatedAt: string;
  refreshedBy?: number;
  version: number;
  description?: string;
  folderId?: number;
  workbookId?: number;
  workbookName?: string;
  externalWorkbookId?: string;
  host?: Host;
  sheetId?: string;
  resultLocation?: string;
  endResultCell?: string;
  jsonQuery?: string;
  sqlQuery?: string;
  meta?: Record<string, unknown>;
  pivotItems?: PivotItems;
  currentQueryChecksum?: string;
}

export interface StoredPlacement {
  id: string;
  reportId: number;
  host: Host;
  workbookId: string;
  workbookName: string;
  sheetId: string;
  sheetName: string;
  anchorCell: string;
  endResultCell: string;
  resultLocation: string;
  placedAt: string;
  refreshedAt: string;
  placedByUserId: number;
  refreshedByUserId: number;
  queryChecksum: string;
  resultChecksum: ResultChecksum;
}

export interface Change {
  reports?: StoredReport[];
  deleteReports?: number[];
  placements?: StoredPlacement[];
  deletePlacements?: string[];
  meta?: Record<string, string>;
}

const DDL = [
  "CREATE TABLE IF NOT EXISTS state_reports (id INTEGER PRIMARY KEY, deployment_id INTEGER, public_id VARCHAR, doc VARCHAR)",
  "CREATE TABLE IF NOT EXISTS state_placements (id VARCHAR PRIMARY KEY, report_id INTEGER, doc VARCHAR)",
  "CREATE TABLE IF NOT EXISTS state_meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
];

export class Store {
  readonly reports = new Map<number, StoredReport>();
  readonly placements = new Map<string, StoredPlacement>();
  readonly meta = new Map<string, string>();
  private constructor(private readonly db: Db) {}

  static async load(db: Db): Promise<Store> {
    const s = new Store(db);
    for (const d of DDL) await db.run(d);
    for (const r of await db.all("SELECT doc FROM state_reports")) {
      const rep = JSON.parse(String(r.doc)) as StoredReport;
      s.reports.set(rep.id, rep);
    }
    for (const r of await db.all("SELECT doc FROM state_placements")) {
      const p = JSON.parse(String(r.doc)) as StoredPlacement;
      s.placements.set(p.id, p);
    }
    for (const r of await db.all("SELECT key, value FROM state_meta")) s.meta.set(String(r.key), String(r.value));
    return s;
  }

  nextReportId(): number {
    let max = 0;
    for (const id of this.reports.keys()) max = Math.max(max, id);
    return Math.max(max, Number(this.meta.get("lastReportId") ?? 0)) + 1;
  }

  placementsOf(reportId: number): StoredPlacement[] {
    return [...this.placements.values()].filter((p) => p.reportId === reportId).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Persists a change in one transaction, then applies it in memory. */
  async commit(c: Change): Promise<void> {
    const maxId = Math.max(0, ...(c.reports ?? []).map((r) => r.id));
    const meta = { ...c.meta };
    if (maxId > Number(this.meta.get("lastReportId") ?? 0)) meta.lastReportId = String(maxId);
    await this.db.transaction(async (exec) => {
      for (const id of c.deleteReports ?? []) {
        await exec("DELETE FROM state_placements WHERE report_id = $1", [id]);
        await exec("DELETE FROM state_reports WHERE id = $1", [id]);
      }
      for (const id of c.deletePlacements ?? []) await exec("DELETE FROM state_placements WHERE id = $1", [id]);
      for (const r of c.reports ?? []) {
        await exec("INSERT OR REPLACE INTO state_reports VALUES ($1, $2, $3, $4)", [r.id, r.deploymentId, r.publicId, JSON.stringify(r)]);
      }
      await this.writePlacements(exec, c.placements ?? []);
      for (const [k, v] of Object.entries(meta)) await exec("INSERT OR REPLACE INTO state_meta VALUES ($1, $2)", [k, v]);
    });
    for (const id of c.deleteReports ?? []) {
      this.reports.delete(id);
      for (const p of this.placementsOf(id)) this.placements.delete(p.id);
    }
    for (const id of c.deletePlacements ?? []) this.placements.delete(id);
    for (const r of c.reports ?? []) this.reports.set(r.id, r);
    for (const p of c.placements ?? []) this.placements.set(p.id, p);
    for (const [k, v] of Object.entries(meta)) this.meta.set(k, v);
  }

  /**
   * Problems with the store's consistency (none when healthy): memory and database disagree, a
   * placement's report is gone, two placements share one workbook address, or a publicId is
   * held by two reports. Used by the soak after every step.
   */
  async verify(): Promise<string[]> {
    const out: string[] = [];
    const docs = async (sql: string) => new Map((await this.db.all(sql)).map((r) => [String(r.k), String(r.doc)]));
    const reports = await docs("SELECT CAST(id AS VARCHAR) AS k, doc FROM state_reports");
    const placements = await docs("SELECT id AS k, doc FROM state_placements");
    if (reports.size !== this.reports.size) out.push(`${reports.size} reports persisted, ${this.reports.size} in memory`);
    for (const [id, r] of this.reports)
      if (reports.get(String(id)) !== JSON.stringify(r)) out.push(`report ${id}: memory and database differ`);
    if (placements.size !== this.placements.size) out.push(`${placements.size} placements persisted, ${this.placements.size} in memory`);
    for (const [id, p] of this.placements)
      if (placements.get(id) !== JSON.stringify(p)) out.push(`placement ${id}: memory and database differ`);
    const addresses = new Map<string, string>();
    for (const p of this.placements.values()) {
      if (!this.reports.has(p.reportId)) out.push(`placement ${p.id}: its report ${p.reportId} is gone`);
      const at = `${p.workbookId}|${p.sheetId}|${p.anchorCell}`;
      const other = addresses.get(at);
      if (other) out.push(`placements ${other} and ${p.id} share ${p.workbookId} ${p.sheetName}!${p.anchorCell}`);
      addresses.set(at, p.id);
    }
    const publicIds = new Map<string, number>();
    for (const r of this.reports.values()) {
      if (r.publicId === null) continue;
      const other = publicIds.get(r.publicId);
      if (other !== undefined) out.push(`reports ${other} and ${r.id} share publicId ${r.publicId}`);
      publicIds.set(r.publicId, r.id);
    }
    return out;
  }

  private async writePlacements(
    exec: (sql: string, p?: (string | number | null)[]) => Promise<void>,
    ps: StoredPlacement[],
  ): Promise<void> {
    // Batched multi-row inserts: seeding writes thousands of placements at once.
    for (let i = 0; i < ps.length; i += 200) {
      const batch = ps.slice(i, i + 200);
      const values = batch.map((_, k) => `($${k * 3 + 1}, $${k * 3 + 2}, $${k * 3 + 3})`).join(", ");
      await exec(
        `INSERT OR REPLACE INTO state_placements VALUES ${values}`,
        batch.flatMap((p) => [p.id, p.reportId, JSON.stringify(p)]),
      );
    }
  }
}
