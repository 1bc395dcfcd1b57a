// The live DashboardService. It owns the browser side of the embed protocol: the iframe, the window
// `message` listener (a message counts only when `event.source` is the iframe's window; the bridge
// then checks the origin and the envelope), and postMessage to the tenant origin only. Sessions come
// from the organisation's session URL (shared with comments): one fresh id for the iframe's URL and
// one per renewal, never cached ahead (seeds 02 §4.2 note 3, §6.3).
import {
  createEmbedBridge,
  createEmbedClient,
  createEmbedSession,
  filterParameter,
  isIanaTimeZone,
  type EmbedBridge,
  type EmbedSession,
  type DashboardWidget,
} from "../../api/embed";
import { ForbiddenError, NotFoundError, type FetchLike, type PlatformClient } from "../../api";
import { sleep } from "../../api/retry";
import type {
  BuilderQuery,
  EmbedConfig,
  LinkedDashboards,
  MetaView,
  PlaceOutcome,
  SaveReportInput,
  SelectedCell,
  SelectedPlacement,
} from "../types";
import type { CellFilter, DashboardService, EmbedHandle, EmbedNews } from "./service";

const STORAGE_KEY = "cellbound.comments.sessionUrl";
const POLL_MS = 500;
/** How long the iframe may take to say ready before the pane says so. */
const READY_DEADLINE_MS = 30_000;

export interface DashboardDeps {
  baseUrl: string;
  embed: EmbedConfig;
  client: PlatformClient;
  selectedPlacement(): Promise<SelectedPlacement | null>;
  selectedCell(signal?: AbortSignal): Promise<SelectedCell>;
  putPicture(name: string, base64: string, atSelection: boolean): Promise<{ sheetId: string; name: string; address: string }>;
  activeSheetPictures(): Promise<string[]>;
  /**
   * Places a report not saved yet: it is created on the platform as it is placed, so nothing is saved
   * while the person is asked whether to overwrite, or when they cancel (as the builder's Save).
   */
  placeNew(report: SaveReportInput, o: { confirmed: boolean; signal?: AbortSignal }): Promise<PlaceOutcome>;
  /** The data model (titles of members, for messages in words). */
  meta?: (signal?: AbortSignal) => Promise<MetaView[]>;
  fetch?: FetchLike;
  win?: Window;
  storage?: Pick<Storage, "getItem"> | null;
  debug?: (m: string) => void;
}

function defaultStorage(): Pick<Storage, "getItem"> | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

/** The picture's name in the workbook: one picture per dashboard and sheet, found again by name. */
export const pictureName = (publicId: string) => `Dashboard ${publicId}`;

const toBase64 = (bytes: Uint8Array): string => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};

/** The drilled query: the widget's query narrowed to the drilled point (a time bucket becomes its date range). */
export function drilledQuery(w: DashboardWidget, drill: { member: string; value: unknown }): BuilderQuery {
  const q = w.query as {
    measures?: string[];
    dimensions?: string[];
    timeDimensions?: Array<{ dimension: string; granularity?: string; dateRange?: string | [string, string] }>;
  };
  const out: BuilderQuery = {
    measures: [drill.member],
    dimensions: [...(q.dimensions ?? [])],
    timeDimensions: (q.timeDimensions ?? []).map((t) => ({ ...t })),
    filters: [],
    order: [],
  };
  const point = drill.value && typeof drill.value === "object" ? Object.entries(drill.value as Record<string, unknown>) : [];
  for (const [key, v] of point) {
    const td = out.timeDimensions.find((t) => t.granularity && key === `${t.dimension}.${t.granularity}`);
    if (td && typeof v === "string" && td.granularity === "month") {
      const start = v.slice(0, 10);
      const d = new Date(`${start}T00:00:00Z`);
      const end = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
      td.dateRange = [start, end];
      td.granularity = "day";
    } else if (!td) {
      out.filters.push({ member: key, operator: "equals", values: [String(v)] });
    }
  }
  return out;
}

/** What one live dashboard service keeps: its dependencies and the embed session of the current session URL. */
interface DashboardContext {
  deps: DashboardDeps;
  storage: Pick<Storage, "getItem"> | null;
  win: Window;
  debug: (m: string) => void;
  session: { url: string; s: EmbedSession } | null;
}

export function createLiveDashboard(deps: DashboardDeps): DashboardService {
  const ctx: DashboardContext = {
    deps,
    storage: deps.storage === undefined ? defaultStorage() : deps.storage,
    win: deps.win ?? window,
    debug: deps.debug ?? ((m: string) => console.debug(`[dashboard] ${m}`)),
    session: null,
  };
  return {
    sessionUrl: () => sessionUrlOf(ctx),
    look: () => look(ctx),
    linkedDashboards: (signal) => linkedDashboards(ctx, signal),
    async dashboard(publicId, signal) {
      const d = await embedClient(ctx).getDashboard(publicId, signal);
      return { publicId: d.publicId, title: d.title };
    },
    open: (host, publicId, onNews) => openEmbed(ctx, host, publicId, onNews),
    async cellFilter(signal): Promise<CellFilter> {
      return cellFilterOf(await deps.selectedCell(signal));
    },
    placeDrilldown: (publicId, drill, confirmed, signal) => placeDrilldown(ctx, publicId, drill, confirmed, signal),
    async memberTitles(signal) {
      if (!deps.meta) return {};
      const out: Record<string, string> = {};
      for (const v of await deps.meta(signal)) for (const m of [...v.measures, ...v.dimensions]) out[m.name] = m.title;
      return out;
    },
    async pictureOnSheet(publicId) {
      const names = await deps.activeSheetPictures();
      return names.includes(pictureName(publicId)) ? pictureName(publicId) : null;
    },
    insertPicture: (publicId, o) => insertPicture(ctx, publicId, o),
  };
}

const sessionUrlOf = (ctx: DashboardContext): string | null => ctx.storage?.getItem(STORAGE_KEY) || ctx.deps.embed.sessionUrl || null;

/** The embed session of the session URL configured now (a new one when the URL changed). */
function embedSession(ctx: DashboardContext): EmbedSession {
  const url = sessionUrlOf(ctx);
  if (!url) throw new Error("No session URL is configured: set it in the Comments tab (your organisation provides it).");
  if (ctx.session?.url !== url) {
    ctx.session = {
      url,
      s: createEmbedSession({
        baseUrl: ctx.deps.baseUrl,
        sessionUrl: url,
        ...(ctx.deps.embed.sessionRequest ? { sessionRequest: ctx.deps.embed.sessionRequest } : {}),
        ...(ctx.deps.fetch ? { fetch: ctx.deps.fetch } : {}),
      }),
    };
  }
  return ctx.session.s;
}

const embedClient = (ctx: DashboardContext) =>
  createEmbedClient({ baseUrl: ctx.deps.baseUrl, session: embedSession(ctx), ...(ctx.deps.fetch ? { fetch: ctx.deps.fetch } : {}) });

/** The user's time zone, Office's theme and display language, as the embed takes them. */
function look(ctx: DashboardContext) {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const dark = ctx.win.document.documentElement.dataset.theme === "dark";
  // Office's display language when Office gives one, else the browser's.
  const office = (globalThis as { Office?: { context?: { displayLanguage?: string } } }).Office;
  const lang = office?.context?.displayLanguage ?? ctx.win.navigator.language;
  const locale = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(lang ?? "") ? lang : null;
  return { timezone: tz && isIanaTimeZone(tz) ? tz : "UTC", scheme: dark ? ("dark" as const) : ("light" as const), locale };
}

/** The pane's brand colour (the theme's token), sent to the embed as its primaryColor. */
function brandColor(win: Window): string | null {
  const v = win.getComputedStyle(win.document.documentElement).getPropertyValue("--colorBrandBackground").trim();
  return /^#[0-9a-f]{3,8}$/i.test(v) || /^rgb/.test(v) ? v : null;
}

async function linkedDashboards(ctx: DashboardContext, signal?: AbortSignal): Promise<LinkedDashboards> {
  const p = await ctx.deps.selectedPlacement();
  if (!p) return { placement: null, dashboards: [] };
  const found = await embedClient(ctx).linkedDashboards({ deploymentId: p.deploymentId, reportId: p.reportId }, signal);
  return {
    placement: { reportName: p.reportName, range: p.range },
    dashboards: found.map((d) => ({ publicId: d.publicId, title: d.title })),
  };
}

/** Mounts the embed in `host`: the iframe, its bridge, the news in the pane's words, and the user's look. */
async function openEmbed(ctx: DashboardContext, host: HTMLElement, publicId: string, onNews: (n: EmbedNews) => void): Promise<EmbedHandle> {
  const s = embedSession(ctx);
  const tenantOrigin = new URL(ctx.deps.baseUrl).origin;
  const first = await s.mintSessionId();
  const l = look(ctx);
  const iframe = embedFrame(ctx, publicId, first, l.timezone);
  host.replaceChildren(iframe);
  const bridge = frameBridge(ctx, iframe, tenantOrigin, s);
  forwardNews(bridge, onNews);
  // The look the user has now, sent as soon as the embed is ready (the bridge queues until then).
  bridge.send("svc:action:set-color-scheme", { scheme: l.scheme });
  bridge.send("svc:action:set-timezone", { timezone: l.timezone });
  if (l.locale) bridge.send("svc:action:set-locale", { locale: l.locale });
  const brand = brandColor(ctx.win);
  if (brand) bridge.send("svc:action:set-theme", { embedTheme: { primaryColor: brand } });
  return {
    setFilter: (member, values) => bridge.send("svc:action:set-filter", { filterUrlParameter: filterParameter({ member, values }) }),
    setScheme: (scheme) => bridge.send("svc:action:set-color-scheme", { scheme }),
    setBrandColor: (color) => bridge.send("svc:action:set-theme", { embedTheme: { primaryColor: color } }),
    setTimezone: (timezone) => {
      if (isIanaTimeZone(timezone)) bridge.send("svc:action:set-timezone", { timezone });
    },
    refresh: () => bridge.send("svc:action:refresh", {}),
    close: () => {
      bridge.close();
      iframe.remove();
    },
  };
}

/** The embed's iframe: sandboxed, no referrer, its URL carrying the first session id. */
function embedFrame(ctx: DashboardContext, publicId: string, session: string, timezone: string): HTMLIFrameElement {
  const iframe = ctx.win.document.createElement("iframe");
  iframe.title = "Dashboard";
  iframe.className = "cb-dashboard-frame";
  // Scripts and its own origin (for its API calls and a non-"null" event.origin), downloads for its
  // exports; no top navigation, forms or popups. The URL carries a single-use session id: no referrer.
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-downloads");
  iframe.referrerPolicy = "no-referrer";
  // Keep any path of the platform URL (a same-origin proxy such as the harness's /_platform).
  const src = new URL(`${ctx.deps.baseUrl.replace(/\/+$/, "")}/embed/dashboard/${encodeURIComponent(publicId)}`);
  src.search = new URLSearchParams({
    session,
    hostOrigin: ctx.win.location.origin,
    allowExport: "true",
    timezone,
  }).toString();
  iframe.src = src.toString();
  return iframe;
}

/** The bridge to the iframe: messages count only from its window, and go to the tenant origin only. */
function frameBridge(ctx: DashboardContext, iframe: HTMLIFrameElement, tenantOrigin: string, s: EmbedSession): EmbedBridge {
  const { win, debug } = ctx;
  return createEmbedBridge({
    tenantOrigin,
    debug,
    mintSessionId: (signal) => s.mintSessionId(signal),
    port: {
      // Always the tenant origin (the bridge passes it); never "*".
      post: (message, target) => iframe.contentWindow?.postMessage(message, target),
      subscribe(listener) {
        const onMessage = (e: MessageEvent) => {
          if (e.source !== iframe.contentWindow) return debug(`ignored a message from another window (origin ${e.origin})`);
          listener({ origin: e.origin, data: e.data });
        };
        win.addEventListener("message", onMessage);
        return () => {
          win.removeEventListener("message", onMessage);
        };
      },
    },
  });
}

/** The embed's events, renewal failures and a missing ready, as the pane's news. */
function forwardNews(bridge: EmbedBridge, onNews: (n: EmbedNews) => void): void {
  let sessions = 0;
  bridge.onAny((e) => {
    switch (e.type) {
      case "svc:event:ready":
        if (sessions++ > 0) onNews({ kind: "renewed" });
        else onNews({ kind: "ready" });
        break;
      case "svc:event:dashboard-loaded":
        onNews({ kind: "loaded", widgetCount: e.payload.widgetCount ?? null });
        break;
      case "svc:event:download":
        onNews({ kind: "download", format: e.payload.format, title: e.payload.title ?? null, rowCount: e.payload.rowCount ?? null });
        break;
      case "svc:event:drilldown":
        onNews({ kind: "drilldown", member: e.payload.member, value: e.payload.value, widgetId: e.payload.widgetId ?? null });
        break;
      case "svc:event:session-expiring":
        onNews({ kind: "renewing", reason: "expiring" });
        break;
      case "svc:event:session-expired":
        onNews({ kind: "renewing", reason: "expired" });
        break;
      case "svc:event:error":
        // A refused renewal also reaches onRenewalError (below) as EmbedSessionExchangeError.
        if (e.payload.context !== "session-renewal")
          onNews({ kind: "error", message: e.payload.message, context: e.payload.context ?? null });
        break;
      default:
        break;
    }
  });
  bridge.onRenewalError((err) =>
    onNews({
      kind: "error",
      context: "session-renewal",
      message:
        err.name === "EmbedSessionExchangeError"
          ? `The dashboard's session could not be renewed (${err.message}). The dashboard keeps working until its session ends; it will try again then.`
          : `The dashboard's session could not be renewed: ${err.message}`,
    }),
  );
  void bridge
    .whenReady(READY_DEADLINE_MS)
    .catch((err: Error) =>
      onNews({ kind: "error", message: `${err.message}. Check the platform address and your network.`, context: "ready" }),
    );
}

/** The selected cell as a dashboard filter, or an Error saying why that cell cannot filter. */
function cellFilterOf(c: SelectedCell): CellFilter {
  const p = c.placement;
  if (!p) throw new Error(`${c.address} is not inside a placed report: select a cell of a placed report's dimension column.`);
  const where = `${p.reportName ?? "this report"} (${p.range})`;
  if (p.header) throw new Error(`${c.address} is the header of ${where}: select a value below it.`);
  if (p.pivot && p.columnKey === null) throw new Error(`${c.address} is in the values of the pivot ${where}: select a row label.`);
  if (!p.columnKey) throw new Error(`Cellbound does not know which dimension column ${c.address} of ${where} is.`);
  if (p.measure)
    throw new Error(
      `${c.address} is in the measure column ${p.columnKey} of ${where}: a dashboard filters by dimensions; select a cell of a dimension column.`,
    );
  if (/\.(second|minute|hour|day|week|month|quarter|year)$/.test(p.columnKey))
    throw new Error(
      `${c.address} is a date bucket (${p.columnKey}); filtering the dashboard by a date is not supported yet: select a text dimension.`,
    );
  if (c.value === "") throw new Error(`${c.address} is empty: select a cell with a value.`);
  // In words: the column's title as the sheet shows it ("Status is completed"), not the member key.
  return { member: p.columnKey, value: c.value, label: `${p.columnTitle ?? p.columnKey} is ${String(c.value)} (${c.address})` };
}

/** Places the drilled query of the drilled chart at the selection, as a report created when it is placed. */
async function placeDrilldown(
  ctx: DashboardContext,
  publicId: string,
  drill: { member: string; value: unknown; widgetId: string | null },
  confirmed: boolean,
  signal?: AbortSignal,
): Promise<PlaceOutcome> {
  const d = await embedClient(ctx).getDashboard(publicId, signal);
  const w =
    d.widgets.find((x) => x.id === drill.widgetId) ??
    d.widgets.find((x) => (x.query as { measures?: string[] }).measures?.includes(drill.member));
  if (!w) throw new Error(`The dashboard ${d.title} has no chart of ${drill.member} any more: refresh it and drill again.`);
  const point =
    drill.value && typeof drill.value === "object"
      ? Object.values(drill.value as object)
          .map(String)
          .join(", ")
      : "";
  const name = `${w.title}${point ? ` – ${point}` : ""} (drilldown)`.slice(0, 255);
  return ctx.deps.placeNew({ name, query: drilledQuery(w, drill), pivotItems: null }, { confirmed, ...(signal ? { signal } : {}) });
}

type PictureOptions = Parameters<DashboardService["insertPicture"]>[1];

/** Runs a PNG export of the dashboard, waits for it, and puts it at the selection (or in place of `refreshName`). */
async function insertPicture(ctx: DashboardContext, publicId: string, o: PictureOptions): Promise<{ name: string }> {
  const { client } = ctx.deps;
  o.onProgress({ status: "queued" });
  const job = await startExport(client, publicId, o);
  let j = job;
  while (j.status === "queued" || j.status === "running") {
    o.onProgress({ status: j.status });
    await sleep(POLL_MS, o.signal);
    j = await client.getDashboardExport(job.jobId, o.signal);
  }
  if (j.status === "failed") throw new Error(j.error ?? "The platform could not render the dashboard picture.");
  o.onProgress({ status: "downloading" });
  const file = await client.downloadDashboardExport(job.jobId, o.signal);
  if (o.signal.aborted) throw o.signal.reason;
  o.onProgress({ status: "inserting" });
  const name = o.refreshName ?? pictureName(publicId);
  const r = await ctx.deps.putPicture(name, toBase64(file.bytes), o.refreshName === undefined);
  o.onProgress({ status: "done" });
  return { name: r.name };
}

/** Asks the platform for the export; a refusal or an unknown dashboard is said in words. */
function startExport(client: PlatformClient, publicId: string, o: PictureOptions) {
  const named = o.title ? `“${o.title}”` : publicId; // messages name the dashboard by its title
  return client.createDashboardExport({ publicId, format: "png" }, o.signal).catch((e: unknown) => {
    if (e instanceof ForbiddenError) {
      throw new Error(
        `A picture of the dashboard ${named} needs manage access to its deployment (admin, or editor); your role there cannot export it. Ask an admin of that deployment.`,
        { cause: e },
      );
    }
    if (e instanceof NotFoundError)
      throw new Error(`The dashboard ${named} is not published any more (the platform does not know it).`, { cause: e });
    throw e;
  });
}
