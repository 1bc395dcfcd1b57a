// Embed-session schemas (seeds 02 §2.4, §3.3, §4.2, §8): written once, used by the client to check
// responses and by the stand-in to check requests (strict: an unknown field is a 400). Shapes the
// seeds leave "not shown" are our choices, recorded in docs/API.md §Embedded dashboards.
import { z } from "zod";
import { CONTROL_CHARACTER, Timestamp, identifier } from "../schemas/common";

/** Seeds 02 §8 (and §2.4 "usable about 23 hours"). */
export const EMBED_LIMITS = {
  sessionIdTtlMs: 5 * 60_000,
  tokenLifetimeMs: 24 * 3600_000,
  /** The token stops working about an hour before its nominal 24 h (§2.4: "usable about 23 hours"). */
  tokenUsableMs: 23 * 3600_000,
  expiringLeadMs: 30 * 60_000,
  nameMax: 255,
} as const;

/** §2.4: primaryColor, borderRadius and font are the fields shown; others are rejected (our choice). */
export const EmbedTheme = z.strictObject({
  primaryColor: z.string().max(64).optional(),
  borderRadius: z.union([z.string().max(32), z.number().nonnegative()]).optional(),
  font: z.string().max(255).optional(),
});
export type EmbedTheme = z.infer<typeof EmbedTheme>;

/** §2.4 session settings flags. */
export const SessionSettings = z.strictObject({
  allowAi: z.boolean().optional(),
  showAiWidgets: z.boolean().optional(),
  showWorkbookChat: z.boolean().optional(),
  showDashboardChat: z.boolean().optional(),
  allowChatWorkspaceAuthoring: z.boolean().optional(),
  locale: z.string().min(1).max(35).optional(),
  timezone: z.string().min(1).max(64).optional(),
  showWorkbookShare: z.boolean().optional(),
  showDashboardSettings: z.boolean().optional(),
  showMemberNames: z.boolean().optional(),
  showGroupByCube: z.boolean().optional(),
  enableDashboardComments: z.boolean().optional(),
});
export type SessionSettings = z.infer<typeof SessionSettings>;

/** Tenant names, external ids, branch names: no control characters, kept exactly as sent (docs/API.md §4, §9). */
const Name = identifier(EMBED_LIMITS.nameMax);

/**
 * POST /api/v1/embed/generate-session (§4.2; full shape "not shown"). Exactly one of externalId /
 * internalId; an internalId session carries no embed tenant, so it takes no embedTenantName.
 */
export const GenerateSessionInput = z
  .strictObject({
    externalId: Name.optional(),
    internalId: z
      .email()
      .max(EMBED_LIMITS.nameMax)
      .refine((v) => !CONTROL_CHARACTER.test(v), { error: "must not contain control characters" })
      .optional(),
    embedTenantName: Name.optional(),
    embedTheme: EmbedTheme.optional(),
    branchName: Name.optional(),
    email: z.email().max(EMBED_LIMITS.nameMax).optional(),
    firstName: z.string().max(EMBED_LIMITS.nameMax).optional(),
    settings: SessionSettings.optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.externalId === undefined) === (v.internalId === undefined)) {
      ctx.addIssue({ code: "custom", path: ["externalId"], message: "send exactly one of externalId and internalId" });
    }
    if (v.internalId !== undefined && v.embedTenantName !== undefined) {
      ctx.addIssue({ code: "custom", path: ["embedTenantName"], message: "an internalId session carries no embed tenant" });
    }
  });
export type GenerateSessionInput = z.infer<typeof GenerateSessionInput>;

export const SessionIdBody = z.strictObject({ sessionId: identifier(512) });
export type SessionIdBody = z.infer<typeof SessionIdBody>;

/** What generate-session (and a customer's session broker) answers. */
export const SessionMinted = z.object({ sessionId: z.string().min(1) });
export type SessionMinted = z.infer<typeof SessionMinted>;

/** POST session/token answer (our choice): the JWT and its nominal expiry. */
export const EmbedToken = z.object({ token: z.string().min(1), expiresAt: Timestamp });
export type EmbedToken = z.infer<typeof EmbedToken>;

export const DashboardWidget = z.object({
  id: z.string(),
  title: z.string(),
  /** A semantic-layer JSON query (as /v1/load takes it). */
  query: z.record(z.string(), z.unknown()),
  chart: z.string(),
});
export type DashboardWidget = z.infer<typeof DashboardWidget>;

/** GET /api/v1/embed/dashboard/{publicId} (body "not shown"; ours). reportIds/deploymentId: the link to reports. */
export const EmbedDashboard = z.object({
  publicId: z.string(),
  title: z.string(),
  widgets: z.array(DashboardWidget),
  deploymentId: z.number().int().nullish(),
  reportIds: z.array(z.number().int()).nullish(),
});
export type EmbedDashboard = z.infer<typeof EmbedDashboard>;

export const DashboardSummary = EmbedDashboard.omit({ widgets: true });
export type DashboardSummary = z.infer<typeof DashboardSummary>;
/** GET /api/v1/embed/dashboards (ours): the published dashboards the caller can read, optionally linked to one report. */
export const DashboardList = z.object({ items: z.array(DashboardSummary) });
export type DashboardList = z.infer<typeof DashboardList>;

export const DashboardListQuery = z.strictObject({
  deploymentId: z
    .string()
    .regex(/^\d{1,9}$/, { error: "deploymentId must be an integer" })
    .transform(Number)
    .optional(),
  reportId: z
    .string()
    .regex(/^\d{1,9}$/, { error: "reportId must be an integer" })
    .transform(Number)
    .optional(),
});
