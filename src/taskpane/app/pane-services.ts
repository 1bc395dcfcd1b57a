// The live services of the panes that load when they are opened (chat, comments, dashboard). Each
// service's module comes in its pane's own chunk, with the pane's view (App.tsx names the same chunk),
// so neither the first paint nor the sign-in carries them. `loadPaneService` brings a module in (once
// per page); from then on every workspace makes that pane's service on first use, at once — a change
// of deployment on an open pane finds it there.
import type { PlatformClient } from "../../api";
import type { ChatDefaults } from "../chat/live";
import type { ChatService } from "../chat/service";
import type { CommentsService } from "../comments/service";
import type { DashboardService } from "../dashboard/service";
import type { WorkbookOps } from "../home/live";
import type { Catalog } from "../reports/live";
import type { Deployment, EmbedConfig } from "../types";
import type { ConnectInput, ServicePane } from "./model";

/** The pane modules loaded so far (a module, not a session: the same for every workspace of this page). */
const loaded: {
  chat?: typeof import("../chat/live");
  comments?: typeof import("../comments/live");
  dashboard?: typeof import("../dashboard/live");
} = {};

const LOADERS: Record<ServicePane, () => Promise<void>> = {
  chat: async () => void (loaded.chat = await import(/* webpackChunkName: "chat" */ "../chat/live")),
  comments: async () => void (loaded.comments = await import(/* webpackChunkName: "comments" */ "../comments/live")),
  dashboard: async () => void (loaded.dashboard = await import(/* webpackChunkName: "dashboard" */ "../dashboard/live")),
};

/** Load a pane's live service (its chunk); a failed load (offline) is tried again the next time. */
export function loadPaneService(pane: ServicePane): Promise<void> {
  return loaded[pane] ? Promise.resolve() : LOADERS[pane]();
}

/** What one workspace gives its panes' services. */
export interface PaneDeps {
  input: ConnectInput;
  deployment: Deployment;
  embed: EmbedConfig;
  chatDefaults: ChatDefaults;
  client: PlatformClient;
  catalog: Catalog;
  ops: WorkbookOps;
  fetch: typeof fetch;
}

/** One workspace's pane services, each made on first use once its module is loaded (else undefined). */
export interface PaneServices {
  chat(): ChatService | undefined;
  comments(): CommentsService | undefined;
  dashboard(): DashboardService | undefined;
  /** Stop the background work of those made (the comments' embed session). */
  close(): void;
}

export function paneServices(deps: PaneDeps): PaneServices {
  let chat: ChatService | undefined;
  let comments: CommentsService | undefined;
  let dashboard: DashboardService | undefined;
  return {
    chat: () => (chat ??= loaded.chat?.createChatService(deps.input, deps.deployment, deps.fetch, deps.chatDefaults)),
    comments: () => (comments ??= loaded.comments && makeComments(loaded.comments, deps)),
    dashboard: () => (dashboard ??= loaded.dashboard && makeDashboard(loaded.dashboard, deps)),
    close: () => comments?.close(),
  };
}

function makeComments(m: typeof import("../comments/live"), { input, embed, ops, fetch }: PaneDeps): CommentsService {
  return m.createLiveComments({ baseUrl: input.baseUrl, embed, selectedPlacement: () => ops.selectedPlacement(), fetch });
}

function makeDashboard(m: typeof import("../dashboard/live"), { input, embed, client, ops, catalog, fetch }: PaneDeps): DashboardService {
  return m.createLiveDashboard({
    baseUrl: input.baseUrl,
    embed,
    client,
    selectedPlacement: () => ops.selectedPlacement(),
    selectedCell: (signal) => ops.selectedCell(signal),
    putPicture: (name, b64, atSelection) => ops.putPicture(name, b64, atSelection),
    activeSheetPictures: () => ops.activeSheetPictures(),
    placeNew: (report, o) => ops.place(catalog.draft(report), o),
    meta: (signal) => catalog.meta(signal),
    fetch,
  });
}
