// A live Workspace: the catalog (src/api) plus the workbook operations of the sync engine (src/sync)
// over the Office.js adapter (src/host/excel).
import { createPlatformClient } from "../../api";
import type { ConnectInput, Deployment, Workspace } from "../model";
import { createCatalog, summarize } from "./catalog";
import { openWorkbookOps } from "./engine";
import { createChatService } from "./chat";

/** The data API's base when Connect leaves it empty: the platform's documented default path. */
export function defaultDataUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/$/, "")}/cubejs-api`;
}

export async function openWorkspace(input: ConnectInput, deployment: Deployment, fetchImpl?: typeof fetch): Promise<Workspace> {
  const client = createPlatformClient({ baseUrl: input.baseUrl, credential: input.credential, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const catalog = createCatalog(client, deployment.id, input.dataUrl ?? defaultDataUrl(input.baseUrl), fetchImpl);
  const ops = await openWorkbookOps({ client, data: catalog.data, deploymentId: deployment.id });
  return {
    deployment,
    home: (signal) => ops.home(signal),
    reports: (q, signal) => catalog.reports(q, signal),
    place: (reportId, o) => ops.place(reportId, o),
    refresh: (id, choice, o) => ops.refresh(id, choice, o),
    refreshAll: (o) => ops.refreshAll(o),
    locate: (id, rows) => ops.locate(id, rows),
    disconnect: (id) => ops.disconnect(id),
    meta: (signal) => catalog.meta(signal),
    preview: (q, pivot, signal) => catalog.preview(q, pivot, signal),
    saveReport: async (i, signal) => summarize(await catalog.saveReport(i, signal)),
    fork: (signal) => ops.fork(signal),
    watch: (listener) => ops.watch(listener),
    close: () => ops.close(),
    chat: createChatService(input, deployment, fetchImpl),
  };
}
