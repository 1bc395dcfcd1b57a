// Agent chat API schemas (seed 03 §2, §4): the request bodies, the streamed frame, the two tool
// calls' input/result JSON strings, the usage frame, and the JSON-RPC auth-error object. Also the
// management API's app-config and users/me settings (seed 01 §4.4), which decide whether the pane
// offers chat at all. Written once: types, client validation, the stand-in's request validation.
import { z } from "zod";
import { identifier } from "../schemas/common";

/** Seed 03 §4.1 / §8: a 13-or-more-digit millisecond timestamp then "-message". */
export const MESSAGE_ID_PATTERN = /^\d{13,}-message$/;
export const MessageId = z.string().regex(MESSAGE_ID_PATTERN, { error: "messageId must match ^\\d{13,}-message$" });

/** The three sentinel frame ids; frames with them are never rendered as chat messages (§2.2). */
export const SENTINELS = { cutoff: "__cutoff__", state: "__state__", usage: "__usage__" } as const;
export const SENTINEL_IDS: ReadonlySet<string> = new Set(Object.values(SENTINELS));

/** §2.1 */
export const SessionSettings = z.strictObject({
  /** Identifiers: no control characters (docs/API.md §4). */
  externalId: identifier(255).optional(),
  internalId: identifier(255).min(3).optional(),
  email: z.string().max(255).optional(),
  userAttributes: z.array(z.strictObject({ name: z.string().min(1), value: z.string() })).optional(),
  groups: z.array(identifier(255)).optional(),
  /** Not in §2.1's table, but named by §2.1's internalId rule: accepted with externalId only. */
  roles: z.array(z.string()).optional(),
  securityContext: z.record(z.string(), z.unknown()).optional(),
  isEphemeral: z.boolean().optional(),
  ephemeralTtlSeconds: z
    .number()
    .int()
    .positive()
    .max(366 * 24 * 3600)
    .optional(),
});
export type SessionSettings = z.infer<typeof SessionSettings>;

/** §4.1 request body. Strict: an unknown field is a 400 (our choice, docs/API.md §Chat). */
export const StreamChatInput = z.strictObject({
  input: z.string().min(1).max(20_000).optional(),
  chatId: identifier(200).optional(),
  messageId: MessageId.optional(),
  sessionSettings: SessionSettings.optional(),
  activeBranchName: z.string().min(1).max(255).optional(),
  isDefaultBranch: z.boolean().optional(),
});
export type StreamChatInput = z.infer<typeof StreamChatInput>;

/** §4.2 request body. */
export const AbortChatInput = z.strictObject({
  chatId: identifier(200),
  sessionSettings: SessionSettings.optional(),
});
export type AbortChatInput = z.infer<typeof AbortChatInput>;

export const ToolCall = z.object({
  name: z.string(),
  /** A string holding JSON. */
  input: z.string().optional(),
  /** A string holding JSON; present only when the call is complete. */
  result: z.string().optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const Usage = z.object({
  models: z.array(z.string()),
  llmCalls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheWriteTokens: z.number(),
  cacheReadTokens: z.number(),
  totalTokens: z.number(),
});
export type Usage = z.infer<typeof Usage>;

/** §2.2: one line of the stream. Loose: a field added by a later platform version is kept, not fatal. */
export const ChatFrame = z.looseObject({
  id: z.string().optional(),
  role: z.enum(["user", "assistant"]).optional(),
  error: z.string().optional(),
  content: z.string().optional(),
  thinking: z.string().optional(),
  toolCall: ToolCall.optional(),
  graphPath: z.array(z.string()).optional(),
  isDelta: z.boolean().optional(),
  isInProcess: z.boolean().optional(),
  sort: z.number().optional(),
  state: z.record(z.string(), z.unknown()).optional(),
  type: z.literal("usage").optional(),
  usage: Usage.optional(),
});
export type ChatFrame = z.infer<typeof ChatFrame>;

/** §5.4: an authentication failure, inside an HTTP 200 response. */
export const JsonRpcError = z.object({
  jsonrpc: z.literal("2.0"),
  error: z.object({ code: z.number(), message: z.string() }),
  id: z.null(),
});
export type JsonRpcError = z.infer<typeof JsonRpcError>;

// ---- tool calls (§2.3) --------------------------------------------------------------------

export const MetaToolInput = z.looseObject({ searchQuery: z.string() });
export const MetaToolResult = z.looseObject({
  cubes: z.array(
    z.looseObject({
      name: z.string(),
      title: z.string().optional(),
      measures: z.array(z.unknown()).optional(),
      dimensions: z.array(z.unknown()).optional(),
    }),
  ),
  searchQuery: z.string(),
});

export const SqlToolInput = z.looseObject({
  sqlQuery: z.string(),
  queryTitle: z.string().optional(),
  description: z.string().optional(),
  userRequest: z.string().optional(),
  memoryId: z.string().optional(),
  vegaSpec: z.string().optional(),
});
export type SqlToolInput = z.infer<typeof SqlToolInput>;

export const SqlColumn = z.object({ name: z.string(), column_type: z.string() });
export const SqlToolResult = z.looseObject({
  sqlQuery: z.string(),
  queryTitle: z.string().optional(),
  description: z.string().optional(),
  userRequest: z.string().optional(),
  schema: z.array(SqlColumn),
  data: z.array(z.array(z.unknown())),
  totalRows: z.number().int().nonnegative(),
  uuid: z.string(),
  vegaSpec: z.string().optional(),
});
export type SqlToolResult = z.infer<typeof SqlToolResult>;

/** Any tool result carrying `error` is a failed call (§2.3). */
export const FailedToolResult = z.looseObject({ error: z.union([z.string(), z.record(z.string(), z.unknown())]) });

/** Rows the agent returns inside a svcSqlApi result (the rest: run sqlQuery on the data API). */
export const SQL_TOOL_ROW_LIMIT = 100;

// ---- management API: app config and the user's sheets settings (seed 01 §4.4) --------------

/** GET /api/v1/app-config (fields beyond the five named: "not shown"). */
export const AppConfig = z.looseObject({
  aiPaywalled: z.boolean(),
  dashboardAppsEnabled: z.boolean(),
  restrictDataDownload: z.boolean(),
  sheetsAgentChatEnabled: z.boolean(),
  timezoneSettings: z.looseObject({ timezone: z.string() }),
  /** Where the chat API is and the account name of its paths (our addition, docs/API.md §Chat). */
  aiUrl: z.string().optional(),
  accountName: z.string().optional(),
});
export type AppConfig = z.infer<typeof AppConfig>;

/**
 * The add-in's own settings, kept by the platform per user (`settings.sheetsSettings`). Their
 * fields are ours (docs/API.md §Chat): the chat's last agent and open thread.
 */
export const SheetsSettings = z.looseObject({
  chatAgentId: z.string().max(200).nullable().optional(),
  chatOpenThreadId: z.string().max(200).nullable().optional(),
});
export type SheetsSettings = z.infer<typeof SheetsSettings>;

/** PATCH /api/v1/users/me/settings: a partial patch; an explicit null clears a field. */
export const SettingsPatch = z.strictObject({
  sheetsSettings: z.record(z.string().max(100), z.union([z.string().max(8192), z.number(), z.boolean(), z.null()])).optional(),
});
export type SettingsPatch = z.infer<typeof SettingsPatch>;

export const UserSettings = z.looseObject({ sheetsSettings: SheetsSettings });
export type UserSettings = z.infer<typeof UserSettings>;
