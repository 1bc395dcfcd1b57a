// The embed postMessage protocol (seeds 02 §6): one envelope for both directions, every event and
// action with its payload, as zod schemas checked at runtime on whichever side receives them. The
// host (bridge.ts) and the stand-in's embed page (dev/platform/embed-page.ts) both use these.
import { z } from "zod";
import { EmbedTheme } from "./schemas";
import { isIanaTimeZone } from "../timezone";

export { isIanaTimeZone };

export const EMBED_SOURCE = "svc-embed";

export const Surface = z.enum(["dashboard", "app", "chat"]);
export type Surface = z.infer<typeof Surface>;

// ---- events (embed → host), §6.2 ---------------------------------------------------------------

const opt = <T extends z.ZodType>(t: T) => t.optional();

export const EVENT_PAYLOADS = {
  "svc:event:ready": z.looseObject({
    embedTenant: z.string().nullable(),
    deploymentId: z.number().int().nullable(),
    mode: z.enum(["signed", "private"]),
    surface: Surface,
    publicId: opt(z.string()),
  }),
  "svc:event:view": z.looseObject({ surface: Surface, path: z.string(), publicId: opt(z.string()), title: opt(z.string()) }),
  "svc:event:navigate": z.looseObject({ path: z.string(), previousPath: opt(z.string()) }),
  "svc:event:dashboard-loaded": z.looseObject({ publicId: opt(z.string()), widgetCount: opt(z.number()), loadDurationMs: opt(z.number()) }),
  "svc:event:download": z.looseObject({
    format: z.enum(["csv", "xlsx", "png", "pdf"]),
    target: z.enum(["widget", "dashboard"]),
    widgetId: opt(z.string()),
    title: opt(z.string()),
    rowCount: opt(z.number().int().nonnegative()),
  }),
  "svc:event:drilldown": z.looseObject({ member: z.string().min(1), value: z.unknown().optional(), widgetId: opt(z.string()) }),
  "svc:event:ai-query": z.looseObject({
    query: z.string(),
    status: z.enum(["submitted", "completed", "error"]),
    chatId: opt(z.string()),
    agentId: opt(z.string()),
  }),
  "svc:event:session-expiring": z.looseObject({ expiresAt: z.number(), expiresInMs: z.number().nonnegative() }),
  "svc:event:session-expired": z.looseObject({ expiredAt: z.number() }),
  "svc:event:error": z.looseObject({ message: z.string(), name: opt(z.string()), context: opt(z.string()), fatal: opt(z.boolean()) }),
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;
export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];

// ---- actions (host → embed), §6.3 --------------------------------------------------------------

/** `f_<view>.<dimension>=<JSON array>` (§6.3 set-filter), e.g. `f_orders.status=["returned"]`. */
export const FILTER_PARAMETER = /^f_([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

export interface DashboardFilter {
  /** `<view>.<dimension>` */
  member: string;
  values: Array<string | number | boolean | null>;
}

/** Parses a filter URL parameter; null when it is not of the form above or its JSON is not an array of scalars. */
export function parseFilterParameter(p: string): DashboardFilter | null {
  const m = FILTER_PARAMETER.exec(p);
  if (!m) return null;
  let json: unknown;
  try {
    json = JSON.parse(m[3]!);
  } catch {
    return null;
  }
  const r = z
    .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .max(1000)
    .safeParse(json);
  return r.success ? { member: `${m[1]}.${m[2]}`, values: r.data } : null;
}

export function filterParameter(f: DashboardFilter): string {
  return `f_${f.member}=${JSON.stringify(f.values)}`;
}

export const ACTION_PAYLOADS = {
  "svc:action:set-color-scheme": z.strictObject({ scheme: z.enum(["light", "dark", "auto"]) }),
  "svc:action:set-theme": z.strictObject({ embedTheme: EmbedTheme }),
  "svc:action:set-locale": z.strictObject({
    locale: z
      .string()
      .min(1)
      .max(35)
      .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/),
  }),
  "svc:action:set-timezone": z.strictObject({ timezone: z.string().min(1).max(64).refine(isIanaTimeZone, "an IANA time zone name") }),
  "svc:action:set-filter": z.strictObject({
    filterUrlParameter: z
      .string()
      .max(20_000)
      .refine((p) => parseFilterParameter(p) !== null, "f_<view>.<dimension>=<JSON array>"),
  }),
  "svc:action:navigate": z.strictObject({ path: z.string().min(1).max(2048).startsWith("/") }),
  "svc:action:refresh": z.strictObject({}),
  "svc:action:set-session": z.strictObject({ sessionId: z.string().min(1).max(512) }),
} as const;

export type ActionType = keyof typeof ACTION_PAYLOADS;
export type ActionPayload<T extends ActionType> = z.infer<(typeof ACTION_PAYLOADS)[T]>;
export const ACTION_TYPES = Object.keys(ACTION_PAYLOADS) as ActionType[];

// ---- envelopes (§6.1) --------------------------------------------------------------------------

const Envelope = z.looseObject({
  source: z.literal(EMBED_SOURCE),
  direction: z.enum(["event", "action"]),
  type: z.string(),
  payload: z.record(z.string(), z.unknown()),
  timestamp: z.number().finite(),
  surface: Surface.optional(),
});

export type EmbedEvent = {
  [T in EventType]: {
    source: typeof EMBED_SOURCE;
    direction: "event";
    type: T;
    payload: EventPayload<T>;
    timestamp: number;
    surface: Surface;
  };
}[EventType];
export type EmbedAction = {
  [T in ActionType]: { source: typeof EMBED_SOURCE; direction: "action"; type: T; payload: ActionPayload<T>; timestamp: number };
}[ActionType];

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** An event as the host receives it: `surface` required, a known type, its payload valid. Unknown event types are not errors but are not acted on. */
export function parseEvent(data: unknown): Parsed<EmbedEvent> {
  const e = Envelope.safeParse(data);
  if (!e.success)
    return {
      ok: false,
      reason: `not an svc-embed envelope (${e.error.issues[0]?.path.join(".") || "(root)"}: ${e.error.issues[0]?.message})`,
    };
  const env = e.data;
  if (env.direction !== "event") return { ok: false, reason: `direction ${env.direction}, not event` };
  if (env.surface === undefined) return { ok: false, reason: "an event without surface" };
  const schema = (EVENT_PAYLOADS as Record<string, z.ZodType>)[env.type];
  if (!schema) return { ok: false, reason: `unknown event type ${env.type}` };
  const p = schema.safeParse(env.payload);
  if (!p.success)
    return { ok: false, reason: `${env.type}: malformed payload (${p.error.issues[0]?.path.join(".")}: ${p.error.issues[0]?.message})` };
  return {
    ok: true,
    value: {
      source: EMBED_SOURCE,
      direction: "event",
      type: env.type,
      payload: p.data,
      timestamp: env.timestamp,
      surface: env.surface,
    } as EmbedEvent,
  };
}

/** An action as the embed receives it: direction action, no `surface` (§6.1: never sent on actions). */
export function parseAction(data: unknown): Parsed<EmbedAction> {
  const e = Envelope.safeParse(data);
  if (!e.success) return { ok: false, reason: "not an svc-embed envelope" };
  const env = e.data;
  if (env.direction !== "action") return { ok: false, reason: `direction ${env.direction}, not action` };
  if ("surface" in (data as object)) return { ok: false, reason: "an action carrying surface" };
  const schema = (ACTION_PAYLOADS as Record<string, z.ZodType>)[env.type];
  if (!schema) return { ok: false, reason: `unknown action type ${env.type}` };
  const p = schema.safeParse(env.payload);
  if (!p.success) return { ok: false, reason: `${env.type}: malformed payload` };
  return {
    ok: true,
    value: { source: EMBED_SOURCE, direction: "action", type: env.type, payload: p.data, timestamp: env.timestamp } as EmbedAction,
  };
}

export function makeAction<T extends ActionType>(type: T, payload: ActionPayload<T>, now: number = Date.now()): EmbedAction {
  return { source: EMBED_SOURCE, direction: "action", type, payload, timestamp: now } as EmbedAction;
}

export function makeEvent<T extends EventType>(
  type: T,
  payload: EventPayload<T>,
  surface: Surface = "dashboard",
  now: number = Date.now(),
): EmbedEvent {
  return { source: EMBED_SOURCE, direction: "event", type, payload, timestamp: now, surface } as EmbedEvent;
}

/**
 * A host origin is exactly scheme://host[:port], never "*" or a path: postMessage must target it.
 * Returns the normalized origin or null.
 */
export function normalizeOrigin(o: string): string | null {
  if (o === "*" || o === "null") return null;
  try {
    const u = new URL(o);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    return u.origin === o.replace(/\/$/, "") ? u.origin : null;
  } catch {
    return null;
  }
}
