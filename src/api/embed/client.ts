// The embeddable dashboard (GET /api/v1/embed/dashboard/{publicId}) and our listing of readable
// dashboards linked to a report (GET /api/v1/embed/dashboards), on an embed session.
import type { FetchLike } from "../http";
import { path } from "../http";
import type { Deadlines, RetryPolicy } from "../deadlines";
import type { EmbedTokenSource } from "./session";
import { embedCall, embedContext } from "./call";
import { DashboardList, EmbedDashboard, type DashboardSummary } from "./schemas";

export interface EmbedClientOptions {
  baseUrl: string;
  session: EmbedTokenSource;
  fetch?: FetchLike;
  retry?: Partial<RetryPolicy>;
  deadlines?: Partial<Deadlines>;
}

export interface EmbedClient {
  getDashboard(publicId: string, signal?: AbortSignal): Promise<EmbedDashboard>;
  /** Readable dashboards, optionally only those linked to one report of one deployment. */
  linkedDashboards(link: { deploymentId?: number; reportId?: number }, signal?: AbortSignal): Promise<DashboardSummary[]>;
}

export function createEmbedClient(o: EmbedClientOptions): EmbedClient {
  const ctx = embedContext(o);
  return {
    getDashboard: (publicId, signal) =>
      embedCall(ctx, "GET", path`/api/v1/embed/dashboard/${publicId}`, EmbedDashboard, { signal, idempotent: true }),
    linkedDashboards: async (link, signal) =>
      (
        await embedCall(ctx, "GET", "/api/v1/embed/dashboards", DashboardList, {
          query: { deploymentId: link.deploymentId, reportId: link.reportId },
          signal,
          idempotent: true,
        })
      ).items,
  };
}
