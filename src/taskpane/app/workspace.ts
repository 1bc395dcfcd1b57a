// The composition root, its second half — a live Workspace: one session's fetch, the catalog
// (reports/live.ts), the workbook operations (home/live.ts) and each pane's live service (chat,
// comments, dashboard) joined into the one interface the views call (model.ts).
import { createDataClient, createDeploymentTokenManager, createPlatformClient, defaultDataUrl, type DataClient } from "../../api";
import { sessionFetch } from "./session-fetch";
import type { ConnectInput, Workspace } from "./model";
import type { Deployment, EmbedConfig } from "../types";
import { createCatalog, summarize } from "../reports/live";
import { openWorkbookOps } from "../home/live";
import { createLiveComments } from "../comments/live";
import { createChatService, type ChatDefaults } from "../chat/live";
import { createLiveDashboard } from "../dashboard/live";

export { defaultDataUrl };

export async function openWorkspace(
  input: ConnectInput,
  deployment: Deployment,
  outerFetch?: typeof fetch,
  deployments?: readonly Deployment[],
  embed: EmbedConfig = {},
  chatDefaults: ChatDefaults = {},
): Promise<Workspace> {
  // Every request of this workspace goes through the session's fetch: close() aborts what is left and
  // no request leaves afterwards (a signed-out key is never sent).
  const session = sessionFetch(outerFetch);
  const fetchImpl = session.fetch;
  const client = createPlatformClient({ baseUrl: input.baseUrl, credential: input.credential, fetch: fetchImpl });
  const dataUrl = input.dataUrl ?? defaultDataUrl(input.baseUrl);
  const catalog = createCatalog(client, deployment.id, dataUrl, fetchImpl);
  // One data client (one token manager) per deployment whose placements this workbook holds, made on first use.
  const others = new Map<number, DataClient>();
  const dataFor = (id: number): DataClient => {
    let d = others.get(id);
    if (!d)
      others.set(
        id,
        (d = createDataClient({
          dataUrl,
          token: createDeploymentTokenManager({ client, deploymentId: id }),
          fetch: fetchImpl,
        })),
      );
    return d;
  };
  const names = new Map((deployments ?? [deployment]).map((d) => [d.id, d.name]));
  names.set(deployment.id, deployment.name);
  const roles = new Map((deployments ?? [deployment]).flatMap((d) => (d.role ? [[d.id, d.role] as const] : [])));
  if (deployment.role) roles.set(deployment.id, deployment.role);
  const ops = await openWorkbookOps({ client, data: catalog.data, deploymentId: deployment.id, deployments: names, roles, dataFor });
  const comments = createLiveComments({
    baseUrl: input.baseUrl,
    embed,
    selectedPlacement: () => ops.selectedPlacement(),
    fetch: fetchImpl,
  });
  const dashboard = createLiveDashboard({
    baseUrl: input.baseUrl,
    embed,
    client,
    selectedPlacement: () => ops.selectedPlacement(),
    selectedCell: (signal) => ops.selectedCell(signal),
    putPicture: (name, b64, atSelection) => ops.putPicture(name, b64, atSelection),
    activeSheetPictures: () => ops.activeSheetPictures(),
    saveReport: async (i, signal) => summarize(await catalog.saveReport(i, signal)),
    place: (reportId, o) => ops.place(reportId, o),
    meta: (signal) => catalog.meta(signal),
    fetch: fetchImpl,
  });
  return {
    deployment,
    home: (signal) => ops.home(signal),
    reports: (q, signal) => catalog.reports(q, signal),
    place: (reportId, o) => ops.place(reportId, o),
    refresh: (id, choice, o) => ops.refresh(id, choice, o),
    refreshAll: (o) => ops.refreshAll(o),
    locate: (id, rows) => ops.locate(id, rows),
    disconnect: (id, signal) => ops.disconnect(id, signal),
    selectionState: () => ops.selectionState(),
    selectionContext: (signal) => ops.selectionContext(signal),
    besideArea: (beside, size, signal) => ops.besideArea(beside, size, signal),
    meta: (signal) => catalog.meta(signal),
    preview: (q, pivot, signal) => catalog.preview(q, pivot, signal),
    saveReport: async (i, signal) => summarize(await catalog.saveReport(i, signal)),
    fork: (signal) => ops.fork(signal),
    keepIdentity: (signal) => ops.keepIdentity(signal),
    watch: (listener) => ops.watch(listener),
    comments,
    chat: createChatService(input, deployment, fetchImpl, chatDefaults),
    dashboard,
    close: async () => {
      session.end();
      comments.close();
      await ops.close();
    },
  };
}
