// The embed and comments endpoints (seeds 02 §4.1, §4.2) for the OpenAPI document of src/api/openapi.ts;
// their component schemas are registered in src/api/openapi-components.ts.
import * as E from "./embed/schemas";
import * as C from "./comments/schemas";
import { body, err, ok } from "./openapi-components";

const tags = ["embed"];
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

function commentErrors() {
  return {
    "400": err(
      "Bad input: reply to a reply, resolve on a reply, body outside 1..10000 characters, search over 255, first below 1, a bogus cursor",
    ),
    "401": err("Embed token invalid, expired or revoked"),
    "403": err("No embed tenant (API key, console token, internalId session), dashboard not readable, or not the author / thread starter"),
    "404": err("Dashboard, comment or parentId not found on this dashboard"),
  };
}

/** Minting, exchanging and revoking an embed session. */
function sessionPaths(): Record<string, unknown> {
  return {
    "/api/v1/embed/generate-session": {
      post: {
        operationId: "generateEmbedSession",
        summary: "Mint a single-use embed session id (admin API key; from the host's server)",
        tags,
        requestBody: body(E.GenerateSessionInput),
        responses: {
          "200": ok(E.SessionMinted),
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
        requestBody: body(E.SessionIdBody),
        responses: { "200": ok(E.EmbedToken), "400": err("Malformed body"), "401": err("Unknown, expired, revoked or already redeemed") },
      },
    },
    "/api/v1/embed/session/revoke": {
      post: {
        operationId: "revokeEmbedSession",
        summary: "Revoke a session id and every token from it (idempotent)",
        tags,
        requestBody: body(E.SessionIdBody),
        responses: {
          "204": { description: "Revoked (also for unknown, expired or revoked ids)" },
          "401": err("Missing or unknown credential"),
          "403": err("Not an admin API key"),
        },
      },
    },
  };
}

/** One embeddable dashboard, and the list of them. */
function dashboardPaths(): Record<string, unknown> {
  return {
    "/api/v1/embed/dashboard/{publicId}": {
      get: {
        operationId: "getEmbedDashboard",
        summary: "The embeddable published dashboard",
        tags,
        security: embed,
        parameters: [publicId],
        responses: {
          "200": ok(E.EmbedDashboard),
          "401": commentErrors()["401"],
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
        responses: { "200": ok(E.DashboardList), "400": err("Bad query"), "401": commentErrors()["401"], "403": err("Not an embed token") },
      },
    },
  };
}

/** A dashboard's threads: list and post, the people to mention. */
function threadPaths(): Record<string, unknown> {
  return {
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
        responses: { "200": ok(C.ThreadList), ...commentErrors() },
      },
      post: {
        operationId: "postDashboardComment",
        summary: "Start a thread, or reply to one (parentId: its first comment)",
        tags,
        security: embed,
        parameters: [publicId],
        requestBody: body(C.PostCommentInput),
        responses: { "201": ok(C.Comment, "Created"), ...commentErrors() },
      },
    },
    "/api/v1/embed/dashboard/{publicId}/comments/mentionable-users": {
      get: {
        operationId: "listMentionableUsers",
        summary: "Embed users of the caller's tenant, by username",
        tags,
        security: embed,
        parameters: [publicId, { name: "search", in: "query", required: false, schema: { type: "string", maxLength: 255 } }, first, after],
        responses: { "200": ok(C.MentionableUserList), ...commentErrors() },
      },
    },
  };
}

/** One comment: edit, delete, resolve its thread. */
function commentPaths(): Record<string, unknown> {
  return {
    "/api/v1/embed/dashboard/{publicId}/comments/{commentId}": {
      patch: {
        operationId: "editDashboardComment",
        summary: "Edit your comment",
        tags,
        security: embed,
        parameters: [publicId, commentId],
        requestBody: body(C.EditCommentInput),
        responses: { "200": ok(C.Comment), ...commentErrors() },
      },
      delete: {
        operationId: "deleteDashboardComment",
        summary: "Delete your comment (a thread's first comment takes the thread)",
        tags,
        security: embed,
        parameters: [publicId, commentId],
        responses: { "204": { description: "Deleted" }, ...commentErrors() },
      },
    },
    "/api/v1/embed/dashboard/{publicId}/comments/{commentId}/resolve": {
      post: {
        operationId: "resolveDashboardThread",
        summary: "Resolve or reopen your thread",
        tags,
        security: embed,
        parameters: [publicId, commentId],
        requestBody: body(C.ResolveInput),
        responses: { "200": ok(C.Thread), ...commentErrors() },
      },
    },
  };
}

export function embedPaths(): Record<string, unknown> {
  return { ...sessionPaths(), ...dashboardPaths(), ...threadPaths(), ...commentPaths() };
}
