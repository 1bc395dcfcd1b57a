// The stand-in's embed page, in the browser (bundled by embed-page.ts). It exchanges the session id
// from its URL itself, draws the dashboard's widgets with Vega-Lite, and speaks the protocol of
// seeds 02 §6: events posted to the allow-listed host origin only (never "*"), actions accepted only
// from that origin and the parent window, parsed with the same zod schemas as the host's.
import {
  filterParameter,
  isIanaTimeZone,
  makeEvent,
  parseAction,
  parseFilterParameter,
  type DashboardFilter,
  type EmbedAction,
  type EventPayload,
  type EventType,
} from "../../src/api/embed/protocol";
import type { DashboardWidget, EmbedTheme } from "../../src/api/embed/schemas";
import { vegaLiteSpec, widgetMembers, widgetRows, type WidgetRow } from "./dashboard-spec";
import { memberTitle, totalLabel } from "./semantic";
import type { EmbedPageConfig } from "./embed-page";
import { xlsxBytes } from "./xlsx";

interface VegaView {
  addEventListener(type: string, h: (ev: unknown, item: { datum?: Record<string, unknown> } | null | undefined) => void): void;
  toImageURL(type: "png" | "svg"): Promise<string>;
  finalize(): void;
}
declare const vegaEmbed: (el: HTMLElement, spec: unknown, opts: unknown) => Promise<{ view: VegaView }>;

interface Context {
  publicId: string;
  title: string;
  widgets: DashboardWidget[];
  deploymentId: number | null;
  embedTenant: string | null;
  usableUntil: number;
  now: number;
}

const cfg = JSON.parse(document.getElementById("embed-config")!.textContent!) as EmbedPageConfig;
const app = document.getElementById("app")!;

const state = {
  token: null as string | null,
  ctx: null as Context | null,
  usableUntil: 0,
  skewMs: 0,
  expiringSent: false,
  expiredSent: false,
  sessions: 0,
  filters: new Map<string, DashboardFilter>(),
  timezone: cfg.timezone && isIanaTimeZone(cfg.timezone) ? cfg.timezone : null,
  scheme: "light" as "light" | "dark" | "auto",
  theme: null as EmbedTheme | null,
  locale: "en-US",
  path: "/",
  rows: new Map<string, WidgetRow[]>(),
  views: new Map<string, VegaView>(),
  generation: 0,
};
// A page instance id: tests tell a swap from a reload by it.
document.body.dataset.pageId = Math.random().toString(36).slice(2);

// ---- events ------------------------------------------------------------------------------------

function emit<T extends EventType>(type: T, payload: EventPayload<T>): void {
  // No allow-listed host (or not framed): post nothing at all.
  if (!cfg.hostOrigin || window.parent === window) return;
  window.parent.postMessage(makeEvent(type, payload, "dashboard"), cfg.hostOrigin);
}

// ---- session -----------------------------------------------------------------------------------

class EmbedSessionExchangeError extends Error {
  override name = "EmbedSessionExchangeError";
}

async function exchange(sessionId: string): Promise<string> {
  const res = await fetch("/api/v1/embed/session/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ sessionId }),
  });
  if (!res.ok)
    throw new EmbedSessionExchangeError(
      `The session id could not be redeemed (${res.status}): it is unknown, expired, revoked or already used.`,
    );
  const t = (await res.json()) as { token?: unknown };
  if (typeof t.token !== "string") throw new EmbedSessionExchangeError("The session exchange answered without a token.");
  return t.token;
}

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Embed-Token ${state.token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw Object.assign(new Error(json.error ?? `${method} ${url}: ${res.status}`), { status: res.status });
  return json;
}

/** Takes a token: learns the dashboard, when the token stops working, and the stand-in's clock. */
async function adopt(token: string): Promise<Context> {
  const previous = state.token;
  state.token = token;
  try {
    const ctx = await api<Context>("GET", `/embed/api/context/${encodeURIComponent(cfg.publicId)}`);
    state.ctx = ctx;
    state.usableUntil = ctx.usableUntil;
    state.skewMs = ctx.now - Date.now();
    state.expiringSent = false;
    state.expiredSent = false;
    state.sessions++;
    document.body.dataset.sessions = String(state.sessions);
    return ctx;
  } catch (e) {
    state.token = previous;
    throw e;
  }
}

function ready(ctx: Context): void {
  emit("svc:event:ready", {
    embedTenant: ctx.embedTenant,
    deploymentId: ctx.deploymentId,
    mode: "signed",
    surface: "dashboard",
    publicId: ctx.publicId,
  });
}

/** The session timers follow the stand-in's clock (so `POST /__dev/clock` moves them). */
async function tick(): Promise<void> {
  try {
    const res = await fetch("/embed/api/time", { cache: "no-store" });
    state.skewMs = ((await res.json()) as { now: number }).now - Date.now();
  } catch {
    // Keep the last known skew.
  }
  if (!state.token) return;
  const now = Date.now() + state.skewMs;
  if (now >= state.usableUntil) {
    if (!state.expiredSent) {
      state.expiredSent = true;
      emit("svc:event:session-expired", { expiredAt: state.usableUntil });
      banner("The session expired; waiting for the host to renew it.");
    }
  } else if (!state.expiringSent && now >= state.usableUntil - cfg.expiringLeadMs) {
    state.expiringSent = true;
    emit("svc:event:session-expiring", { expiresAt: state.usableUntil, expiresInMs: Math.max(0, state.usableUntil - now) });
  }
}

// ---- rendering ---------------------------------------------------------------------------------

const dark = () => state.scheme === "dark" || (state.scheme === "auto" && matchMedia("(prefers-color-scheme: dark)").matches);

function applyLook(): void {
  const d = dark();
  document.documentElement.dataset.scheme = d ? "dark" : "light";
  document.documentElement.lang = state.locale;
  const s = document.body.style;
  s.background = d ? "#1e1e1e" : "#ffffff";
  s.color = d ? "#e8e8e8" : "#222222";
  s.fontFamily = state.theme?.font ?? "system-ui, sans-serif";
  s.margin = "8px";
  document.body.dataset.primaryColor = state.theme?.primaryColor ?? "";
}

function banner(text: string | null): void {
  let b = document.getElementById("banner");
  if (!text) return b?.remove();
  if (!b) {
    b = document.createElement("p");
    b.id = "banner";
    b.setAttribute("role", "status");
    app.prepend(b);
  }
  b.textContent = text;
}

function visibleWidgets(): DashboardWidget[] {
  const all = state.ctx?.widgets ?? [];
  const m = /^\/widgets\/([^/]+)$/.exec(state.path);
  return m ? all.filter((w) => w.id === decodeURIComponent(m[1]!)) : all;
}

function button(label: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

function layout(): void {
  app.replaceChildren();
  const h = document.createElement("h1");
  h.textContent = state.ctx?.title ?? cfg.publicId;
  h.style.fontSize = "1.1em";
  app.append(h);
  const chips = document.createElement("p");
  chips.id = "filters";
  chips.textContent = state.filters.size
    ? `Filters: ${[...state.filters.values()].map((f) => `${memberTitle(f.member)} is ${f.values.join(", ")}`).join("; ")}`
    : "No filters";
  app.append(chips);
  const tz = document.createElement("p");
  tz.id = "timezone";
  tz.textContent = `Time zone: ${state.timezone ?? "UTC"}`;
  app.append(tz);
  for (const w of visibleWidgets()) {
    const sec = document.createElement("section");
    sec.dataset.widgetId = w.id;
    sec.setAttribute("aria-label", w.title);
    const chart = document.createElement("div");
    chart.className = "chart";
    const total = document.createElement("p");
    total.className = "total";
    const tools = document.createElement("div");
    tools.append(button("Drill down", () => drill(w, (state.rows.get(w.id) ?? [])[0] ?? null)));
    if (cfg.allowExport) {
      tools.append(
        button("Export CSV", () => download(w, "csv")),
        button("Export XLSX", () => download(w, "xlsx")),
      );
    }
    sec.append(chart, total, tools);
    app.append(sec);
  }
}

async function draw(w: DashboardWidget): Promise<void> {
  const sec = app.querySelector<HTMLElement>(`section[data-widget-id="${CSS.escape(w.id)}"]`);
  if (!sec) return;
  const rows = state.rows.get(w.id) ?? [];
  sec.dataset.rows = JSON.stringify(rows);
  const total = rows.reduce((a, r) => a + r.y, 0);
  sec.querySelector(".total")!.textContent =
    `${totalLabel(memberTitle(widgetMembers(w).measure))}: ${new Intl.NumberFormat(state.locale).format(total)}`;
  state.views.get(w.id)?.finalize();
  // Fit the chart to the frame (a task pane is narrow): the plot width leaves room for the axis.
  const width = Math.max(160, Math.min(640, (sec.clientWidth || 400) - 90));
  const spec = vegaLiteSpec(w, rows, { dark: dark(), color: state.theme?.primaryColor, width });
  const { view } = await vegaEmbed(sec.querySelector<HTMLElement>(".chart")!, spec, { actions: false, renderer: "svg" });
  view.addEventListener("click", (_ev, item) => {
    const d = item?.datum;
    if (!d) return;
    const x = d.x instanceof Date ? d.x.toISOString() : typeof d.x === "number" ? new Date(d.x).toISOString() : String(d.x);
    drill(w, rows.find((r) => r.x === x || Date.parse(r.x + "Z") === Date.parse(x)) ?? { x, y: Number(d.y) });
  });
  state.views.set(w.id, view);
}

/** Re-runs every visible widget's query with the filters and time zone; dashboard-loaded when all are drawn. */
async function load(): Promise<void> {
  const gen = ++state.generation;
  const started = performance.now();
  layout();
  const widgets = visibleWidgets();
  document.body.dataset.loading = "true";
  const results = await Promise.allSettled(
    widgets.map(async (w) => {
      const r = await api<{ data: Array<Record<string, unknown>> }>(
        "POST",
        `/embed/api/dashboard/${encodeURIComponent(cfg.publicId)}/widgets/${encodeURIComponent(w.id)}/load`,
        {
          filters: [...state.filters.values()],
          timezone: state.timezone,
        },
      );
      if (gen !== state.generation) return;
      state.rows.set(w.id, widgetRows(w, r.data));
      await draw(w);
    }),
  );
  if (gen !== state.generation) return;
  document.body.dataset.loading = "false";
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    const e = failed.reason as Error;
    banner(`A chart could not be drawn: ${e.message}`);
    emit("svc:event:error", { message: e.message, name: e.name, context: "embed-render", fatal: false });
    return;
  }
  emit("svc:event:dashboard-loaded", {
    publicId: cfg.publicId,
    widgetCount: widgets.length,
    loadDurationMs: Math.round(performance.now() - started),
  });
}

function redraw(): void {
  applyLook();
  for (const w of visibleWidgets()) void draw(w);
}

function drill(w: DashboardWidget, row: WidgetRow | null): void {
  const m = widgetMembers(w);
  emit("svc:event:drilldown", { member: m.measure, value: row ? { [m.x]: row.x } : null, widgetId: w.id });
}

function download(w: DashboardWidget, format: "csv" | "xlsx"): void {
  const rows = state.rows.get(w.id) ?? [];
  const m = widgetMembers(w);
  const table: Array<Array<string | number>> = [[m.x, m.measure], ...rows.map((r) => [r.x, r.y])];
  const blob =
    format === "csv"
      ? new Blob(
          [table.map((r) => r.map((v) => (typeof v === "number" ? String(v) : `"${v.replace(/"/g, '""')}"`)).join(",")).join("\r\n")],
          { type: "text/csv" },
        )
      : new Blob([xlsxBytes(w.title.slice(0, 31), table) as BlobPart], {
          type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${w.title}.${format}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  // The event says what was exported, never the rows.
  emit("svc:event:download", { format, target: "widget", widgetId: w.id, title: w.title, rowCount: rows.length });
}

// ---- actions -----------------------------------------------------------------------------------

async function act(a: EmbedAction): Promise<void> {
  switch (a.type) {
    case "svc:action:set-color-scheme":
      state.scheme = a.payload.scheme;
      return redraw();
    case "svc:action:set-theme":
      state.theme = a.payload.embedTheme;
      return redraw();
    case "svc:action:set-locale":
      try {
        state.locale = Intl.getCanonicalLocales(a.payload.locale.replace("_", "-"))[0] ?? state.locale;
      } catch {
        return;
      }
      return redraw();
    case "svc:action:set-timezone":
      state.timezone = a.payload.timezone;
      return load();
    case "svc:action:set-filter": {
      const f = parseFilterParameter(a.payload.filterUrlParameter)!;
      if (f.values.length === 0) state.filters.delete(f.member);
      else state.filters.set(f.member, f);
      document.body.dataset.filters = [...state.filters.values()].map(filterParameter).join("&");
      return load();
    }
    case "svc:action:navigate": {
      const ok =
        a.payload.path === "/" ||
        (/^\/widgets\/[^/]+$/.test(a.payload.path) &&
          (state.ctx?.widgets ?? []).some((w) => `/widgets/${encodeURIComponent(w.id)}` === a.payload.path));
      if (!ok) {
        emit("svc:event:error", { message: `There is no ${a.payload.path} in this dashboard.`, context: "navigate" });
        return;
      }
      const previousPath = state.path;
      state.path = a.payload.path;
      emit("svc:event:navigate", { path: state.path, previousPath });
      emit("svc:event:view", {
        surface: "dashboard",
        path: state.path,
        publicId: cfg.publicId,
        ...(state.ctx ? { title: state.ctx.title } : {}),
      });
      return load();
    }
    case "svc:action:refresh":
      return load();
    case "svc:action:set-session": {
      const wasExpired = state.expiredSent;
      try {
        const ctx = await adopt(await exchange(a.payload.sessionId));
        ready(ctx);
        banner(null);
        // An expired page's queries failed: run them again. A swap before expiry is invisible.
        if (wasExpired) await load();
      } catch (e) {
        // The working session stays; the host hears why the new one was refused.
        emit("svc:event:error", {
          message: (e as Error).message,
          name: "EmbedSessionExchangeError",
          context: "session-renewal",
          fatal: false,
        });
      }
      return;
    }
  }
}

window.addEventListener("message", (ev: MessageEvent) => {
  // Only the allow-listed host, from the parent window; another allow-listed origin is not enough.
  if (!cfg.hostOrigin || ev.origin !== cfg.hostOrigin || ev.source !== window.parent) return;
  const r = parseAction(ev.data);
  if (!r.ok) return;
  if (!state.token && r.value.type !== "svc:action:set-session") return;
  void act(r.value);
});

// ---- start -------------------------------------------------------------------------------------

async function start(): Promise<void> {
  applyLook();
  if (!cfg.sessionId) {
    app.textContent = "This embed URL has no session.";
    emit("svc:event:error", {
      message: "The embed URL carries no session id.",
      name: "EmbedSessionExchangeError",
      context: "session-exchange",
      fatal: true,
    });
    return;
  }
  let ctx: Context;
  try {
    ctx = await adopt(await exchange(cfg.sessionId));
  } catch (e) {
    app.textContent = `This dashboard cannot be shown: ${(e as Error).message}`;
    emit("svc:event:error", { message: (e as Error).message, name: (e as Error).name, context: "session-exchange", fatal: true });
    return;
  }
  ready(ctx);
  emit("svc:event:view", { surface: "dashboard", path: state.path, publicId: ctx.publicId, title: ctx.title });
  await load();
  setInterval(() => void tick(), 1000);
}

void start();
