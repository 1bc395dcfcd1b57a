// The composition root, its second half — a live Workspace: one session's fetch, the catalog
// (reports/live.ts), the workbook operations (home/live.ts) and each pane's live service (chat,
// comments, dashboard: app/pane-services.ts, loaded with the pane) joined into the one interface the
// views call (model.ts).
import {
  createDataClient,
  createDeploymentTokenManager,
  createPlatformClient,
  defaultDataUrl,
  type DataClient,
  type PlatformClient,
} from "../../api";
import { roleLimit } from "../../sync/access";
import { sessionFetch } from "./session-fetch";
import type { ConnectInput, Workspace } from "./model";
import type { Deployment, EmbedConfig, MetaView } from "../types";
import type { InputsDetail } from "../home/types";
import { createCatalog, summarize, type Catalog } from "../reports/live";
import { openWorkbookOps, type WorkbookOps } from "../home/live";
import type { ChatDefaults } from "../chat/live";
import { loadPaneService, paneServices } from "./pane-services";

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
  const ops = await openWorkbookOps({
    client,
    data: catalog.data,
    deploymentId: deployment.id,
    ...deploymentsByName(deployment, deployments),
    dataFor: dataClients(client, dataUrl, fetchImpl),
  });
  const panes = paneServices({ input, deployment, embed, chatDefaults, client, catalog, ops, fetch: fetchImpl });
  return {
    deployment,
    roleLimit: roleLimit(deployment.role, deployment.name),
    ...workbookAndCatalog(ops, catalog),
    get comments() {
      return panes.comments();
    },
    get chat() {
      return panes.chat();
    },
    get dashboard() {
      return panes.dashboard();
    },
    openPane: (pane) => loadPaneService(pane),
    close: async () => {
      session.end();
      panes.close();
      await ops.close();
    },
  };
}

/** Names and roles of the deployments the user can use (for the cards and for what each may change). */
function deploymentsByName(deployment: Deployment, deployments: readonly Deployment[] = [deployment]) {
  const names = new Map(deployments.map((d) => [d.id, d.name]));
  names.set(deployment.id, deployment.name);
  const roles = new Map(deployments.flatMap((d) => (d.role ? [[d.id, d.role] as const] : [])));
  if (deployment.role) roles.set(deployment.id, deployment.role);
  return { deployments: names, roles };
}

/** One data client (one token manager) per deployment whose placements this workbook holds, made on first use. */
function dataClients(client: PlatformClient, dataUrl: string, fetchImpl: typeof fetch): (id: number) => DataClient {
  const made = new Map<number, DataClient>();
  return (id) => {
    let d = made.get(id);
    if (!d)
      made.set(
        id,
        (d = createDataClient({ dataUrl, token: createDeploymentTokenManager({ client, deploymentId: id }), fetch: fetchImpl })),
      );
    return d;
  };
}

/** The workspace's workbook operations and catalog, as the views call them. */
function workbookAndCatalog(
  ops: WorkbookOps,
  catalog: Catalog,
): Omit<Workspace, "deployment" | "close" | "comments" | "chat" | "dashboard"> {
  return {
    home: (signal) => ops.home(signal),
    reports: (q, signal) => catalog.reports(q, signal),
    place: (report, o) => ops.place(typeof report === "number" ? report : catalog.draft(report), o),
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
    inputs: async (id, signal) => withTitles(await ops.inputs(id, signal), await catalog.meta(signal).catch(() => [])),
    bindSelection: (id, member, signal) => ops.bindSelection(id, member, signal),
    unbindInput: (id, member, signal) => ops.unbindInput(id, member, signal),
    setAutoRefresh: (id, on) => ops.setAutoRefresh(id, on),
    selectionRef: () => ops.selectionRef(),
  };
}

/** The Inputs panel's filters named by their titles in the data model (a time dimension known by its type). */
function withTitles(d: InputsDetail, views: MetaView[]): InputsDetail {
  const members = new Map(views.flatMap((v) => [...v.measures, ...v.dimensions]).map((m) => [m.name, m]));
  return {
    ...d,
    inputs: d.inputs.map((i) => ({ ...i, title: members.get(i.member)?.title ?? i.title })),
    bindable: d.bindable.map((b) => {
      const m = members.get(b.member);
      return { ...b, title: m?.title ?? b.title, time: b.time || m?.type === "time" };
    }),
  };
}
