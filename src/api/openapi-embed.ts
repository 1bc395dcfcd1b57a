// The embed and comments endpoints (seeds 02 §4.1, §4.2) for the OpenAPI document of src/api/openapi.ts:
// their component schemas (from the zod schemas) and their paths.
import type { z } from "zod";
import * as E from "./embed/schemas";
import * as C from "./comments/schemas";

export const EMBED_COMPONENTS: Record<string, z.ZodType> = {
  GenerateSessionInput: E.GenerateSessionInput,
  EmbedTheme: E.EmbedTheme,
  SessionSettings: E.SessionSettings,
  SessionIdBody: E.SessionIdBody,
  SessionMinted: E.SessionMinted,
  EmbedToken: E.EmbedToken,
  EmbedDashboard: E.EmbedDashboard,
  DashboardWidget: E.DashboardWidget,
  DashboardList: E.DashboardList,
  Comment: C.Comment,
  Thread: C.Thread,
  CommentPageInfo: C.CommentPageInfo,
  ThreadList: C.ThreadList,
  MentionableUser: C.MentionableUser,
  MentionableUserList: C.MentionableUserList,
  PostCommentInput: C.PostCommentInput,
  EditCommentInput: C.EditCommentInput,
  ResolveInput: C.ResolveInput,
};

export function embedPaths(): Record<string, unknown> {
  const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
  const json = (id: string) => ({ "application/json": { schema: ref(id) } });
  const ok = (id: string, description = "OK") => ({ description, content: json(id) });
  const err = (description: string) => ({ description, content: json("ErrorBody") });
  const body = (id: string) => ({ required: true, content: json(id) });
  const embed = [{ embedToken: [] }];
  const publicId = {
    name: "publicId",
    in: "path",
    required: true,
    schema: { type: "string" },
    description: "The dashboard's public id (as in its embed URL)",
  };
  const commentId = { name: "commentId", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
  const first = {
    name: "first",
    in: "query",
    required: false,
    schema: { type: "integer", minimum: 1 },
    description: "Default 100; values over 200 are clamped",
  };
  const after = {
    name: "after",
    in: "query",
    required: false,
    schema: { type: "string" },
    description: "pageInfo.endCursor of the previous page",
  };
  const commentErrors = {
    "400": err(
      "Bad input: reply to a reply, resolve on a reply, body outside 1..10000 characters, search over 255, first below 1, a bogus cursor",
    ),
    "401": err("Embed token invalid, expired or revoked"),
    "403": err("No embed tenant (API key, console token, internalId session), dashboard not readable, or not the author / thread starter"),
    "404": err("Dashboard, comment or parentId not found on this dashboard"),
  };
  const tags = ["embed"];
  return {
    "/api/v1/embed/generate-session": {
      post: {
        operationId: "generateEmbedSession",
        summary: "Mint a single-use embed session id (admin API key; from the host's server)",
        tags,
        requestBody: body("GenerateSessionInput"),
        responses: {
          "200": ok("SessionMinted"),
          "400": err("Bad input, or the branch has nothing running"),
          "401": err("Missing or unknown credential"),
          "403": err("Not an admin API key"),
          "404": err("branchName is not a branch of the deployment"),
        },
      },
    },
    "/api/v1/embed/session/token": {
      post: {
        operationId: "exchangeEmbedSession",
        summary: "Exchange a session id (once, within 5 minutes) for an embed token (24 h nominal)",
        tags,
        security: [],
        requestBody: body("SessionIdBody"),
        responses: { "200": ok("EmbedToken"), "400": err("Malformed body"), "401": err("Unknown, expired, revoked or already redeemed") },
      },
    },
    "/api/v1/embed/session/revoke": {
      post: {
        operationId: "revokeEmbedSession",
        summary: "Revoke a session id and every token from it (idempotent)",
        tags,
        requestBody: body("SessionIdBody"),
        responses: {
          "204": { description: "Revoked (also for unknown, expired or revoked ids)" },
          "401": err("Missing or unknown credential"),
          "403": err("Not an admin API key"),
        },
      },
    },
    "/api/v1/embed/dashboard/{publicId}": {
      get: {
        operationId: "getEmbedDashboard",
        summary: "The embeddable published dashboard",
        tags,
        security: embed,
        parameters: [publicId],
        responses: {
          "200": ok("EmbedDashboard"),
          "401": commentErrors["401"],
          "403": err("Not readable by this session"),
          "404": err("No such dashboard"),
        },
      },
    },
    "/api/v1/embed/dashboards": {
      get: {
        operationId: "listEmbedDashboards",
        summary: "Readable published dashboards, optionally those linked to one report",
        tags,
        security: embed,
        parameters: [
          { name: "deploymentId", in: "query", required: false, schema: { type: "integer" } },
          { name: "reportId", in: "query", required: false, schema: { type: "integer" } },
        ],
        responses: { "200": ok("DashboardList"), "400": err("Bad query"), "401": commentErrors["401"], "403": err("Not an embed token") },
      },
    },
    "/api/v1/embed/dashboard/{publicId}/comments": {
      get: {
        operationId: "listDashboardThreads",
        summary: "Threads, newest first; open by default",
        tags,
        security: embed,
        parameters: [
          publicId,
          { name: "includeResolved", in: "query", required: false, schema: { type: "boolean" } },
          { name: "resolvedOnly", in: "query", required: false, schema: { type: "boolean" }, description: "Wins over includeResolved" },
          first,
          after,
        ],
        responses: { "200": ok("ThreadList"), ...commentErrors },
      },
      post: {
        operationId: "postDashboardComment",
        summary: "Start a thread, or reply to one (parentId: its first comment)",
        tags,
        security: embed,
        parameters: [publicId],
        requestBody: body("PostCommentInput"),
        responses: { "201": ok("Comment", "Created"), ...commentErrors },
      },
    },
    "/api/v1/embed/dashboard/{publicId}/comments/mentionable-users": {
      get: {
        operationId: "listMentionableUsers",
        summary: "Embed users of the caller's tenant, by username",
        tags,
        security: embed,
        parameters: [publicId, { name: "search", in: "query", required: false, schema: { type: "string", maxLength: 255 } }, first, after],
        responses: { "200": ok("MentionableUserList"), ...commentErrors },
      },
    },
    "/api/v1/embed/dashboard/{publicId}/comments/{commentId}": {
      patch: {
        operationId: "editDashboardComment",
        summary: "Edit your comment",
        tags,
        security: embed,
        parameters: [publicId, commentId],
        requestBody: body("EditCommentInput"),
        responses: { "200": ok("Comment"), ...commentErrors },
      },
      delete: {
        operationId: "deleteDashboardComment",
        summary: "Delete your comment (a thread's first comment takes the thread)",
        tags,
        security: embed,
        parameters: [publicId, commentId],
        responses: { "204": { description: "Deleted" }, ...commentErrors },
      },
    },
    "/api/v1/embed/dashboard/{publicId}/comments/{commentId}/resolve": {
      post: {
        operationId: "resolveDashboardThread",
        summary: "Resolve or reopen your thread",
        tags,
        security: embed,
        parameters: [publicId, commentId],
        requestBody: body("ResolveInput"),
        responses: { "200": ok("Thread"), ...commentErrors },
      },
    },
  };
}
