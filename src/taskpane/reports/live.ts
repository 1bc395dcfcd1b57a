// The Reports tab's live service, the catalog: the parts of a Workspace that need only the API layer —
// browsing reports (cursor paging, search), the data model from /v1/meta, previews through /v1/load,
// and saving a built report (upsert by a new publicId) for the builder and the dashboard's drilldowns.
// The data-API token is minted and renewed by src/api's token manager.
import {
  createDataClient,
  createDeploymentTokenManager,
  generatePublicId,
  PublicIdInOtherDeploymentError,
  PublicIdTakenError,
  type DataClient,
  type LoadQuery,
  type PlatformClient,
  type Report,
} from "../../api";
import { isPivot, runReport } from "../../sync";
import type { BuilderQuery, MetaView, Page, PivotItems, ReportSummary, SaveReportInput } from "../types";
import type { PreviewGrid } from "../builder/types";

/** Page size of the reports list. Search filters on the client (the list endpoint has no search). */
export const REPORTS_PAGE = 25;
/** How many server pages one search may scan before returning what it found (with a cursor to go on). */
const SEARCH_SCAN_PAGES = 20;

export function summarize(r: Report): ReportSummary {
  return {
    id: r.id,
    publicId: r.publicId,
    name: r.name,
    title: r.title,
    updatedAt: r.updatedAt,
    ownerName: r.user.firstName.trim() || r.user.email,
    folder: r.folderPath?.length ? r.folderPath.map((f) => f.name).join(" › ") : null,
    ...(isPivot(r.pivotItems ?? null) ? { pivot: true } : {}),
  };
}

export function matches(r: Report, search: string): boolean {
  if (!search) return true;
  const s = search.toLowerCase();
  return r.type === "REPORT" && (r.name.toLowerCase().includes(s) || r.title.toLowerCase().includes(s));
}

export function toLoadQuery(q: BuilderQuery): LoadQuery {
  const out: LoadQuery = {};
  if (q.measures.length) out.measures = q.measures;
  if (q.dimensions.length) out.dimensions = q.dimensions;
  if (q.timeDimensions.length) out.timeDimensions = q.timeDimensions as LoadQuery["timeDimensions"];
  if (q.filters.length)
    out.filters = q.filters.map((f) =>
      f.operator === "set" || f.operator === "notSet"
        ? { member: f.member, operator: f.operator }
        : { member: f.member, operator: f.operator, values: f.values },
    );
  if (q.order.length) out.order = q.order;
  if (q.limit !== undefined) out.limit = q.limit;
  return out;
}

export interface Catalog {
  data: DataClient;
  reports(query: { search: string; after: string | null }, signal?: AbortSignal): Promise<Page<ReportSummary>>;
  meta(signal?: AbortSignal): Promise<MetaView[]>;
  preview(query: BuilderQuery, pivot: PivotItems | null, signal?: AbortSignal): Promise<PreviewGrid>;
  saveReport(input: SaveReportInput, signal?: AbortSignal): Promise<Report>;
  /**
   * A built report not saved yet, to place (issue 31 item 1): the engine creates it on the platform
   * under its new publicId only once its target is clear or the person confirmed the overwrite.
   */
  draft(input: SaveReportInput): Report;
}

export function createCatalog(client: PlatformClient, deploymentId: number, dataUrl: string, fetchImpl?: typeof fetch): Catalog {
  const tokens = createDeploymentTokenManager({ client, deploymentId });
  const data = createDataClient({ dataUrl, token: tokens, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  return {
    data,
    async reports({ search, after }, signal) {
      const items: ReportSummary[] = [];
      let cursor = after;
      for (let scanned = 0; scanned < SEARCH_SCAN_PAGES; scanned++) {
        const page = await client.listReports(deploymentId, { first: REPORTS_PAGE, ...(cursor ? { after: cursor } : {}) }, signal);
        items.push(...page.items.filter((r) => r.type === "REPORT" && matches(r, search.trim())).map(summarize));
        cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
        if (!cursor || items.length >= REPORTS_PAGE || !search.trim()) break;
      }
      return { items, next: cursor };
    },
    async meta(signal) {
      const meta = await data.meta(signal);
      return meta.cubes.map((c) => ({
        name: c.name,
        title: c.title,
        measures: c.measures
          .filter((m) => m.isVisible !== false)
          .map((m) => ({ name: m.name, title: m.shortTitle || m.title, type: m.type })),
        dimensions: c.dimensions
          .filter((d) => d.isVisible !== false)
          .map((d) => ({ name: d.name, title: d.shortTitle || d.title, type: d.type })),
      }));
    },
    async preview(query, pivot, signal) {
      // The same layout the sheet will get (pivot zones, totals from their own queries), on the first rows.
      const jsonQuery = JSON.stringify({ ...toLoadQuery(query), limit: query.limit ?? 20 });
      const { layout } = await runReport(data, { jsonQuery, ...(pivot ? { pivotItems: pivot } : {}) }, {}, signal);
      return { cells: layout.cells, headerRows: layout.headerRows, columnFormats: layout.columnFormats };
    },
    draft(input) {
      const now = new Date().toISOString();
      const nobody = { id: 0, email: "", firstName: "", picture: "" };
      return {
        id: 0,
        publicId: generatePublicId(),
        deploymentId,
        name: input.name,
        title: input.name,
        type: "REPORT",
        createdAt: now,
        updatedAt: now,
        userId: 0,
        user: nobody,
        refreshedByUser: nobody,
        source: "SHEETS_CLOUD",
        canEdit: true,
        jsonQuery: JSON.stringify(toLoadQuery(input.query)),
        ...(input.pivotItems ? { pivotItems: input.pivotItems } : {}),
      };
    },
    async saveReport(input, signal) {
      const body = {
        name: input.name,
        title: input.name,
        jsonQuery: JSON.stringify(toLoadQuery(input.query)),
        ...(input.pivotItems ? { pivotItems: input.pivotItems } : {}),
      };
      // A fresh publicId each save; if it happens to collide (taken, or used in another deployment),
      // draw another one — an upsert with a new id never overwrites someone else's report.
      for (let attempt = 0; ; attempt++) {
        try {
          return await client.upsertReport(deploymentId, generatePublicId(), body, signal);
        } catch (e) {
          if (attempt < 2 && (e instanceof PublicIdTakenError || e instanceof PublicIdInOtherDeploymentError)) continue;
          throw e;
        }
      }
    },
  };
}
