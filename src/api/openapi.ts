// Generates the OpenAPI 3.1 document of the management API (and the data API as a
// second server) from the zod schemas, so the spec, the types and the validation can
// never disagree. The stand-in serves it at GET /api/v1/spec. The component schemas and
// the builders the paths are written with live in src/api/openapi-components.ts; each
// group of endpoints below is one function, in the document's order.
import * as M from "./schemas/management";
import * as D from "./schemas/data";
import * as S from "./schemas/scheduled-tasks";
import { body, componentSchemas, err, json, ok, ref } from "./openapi-components";
import { embedPaths } from "./openapi-embed";

const commonErrors = {
  "400": err("Malformed input; the body names the field (codes: public_id_immutable, placeholder_public_id, too_long, invalid)"),
  "401": err("Missing or unknown credential"),
  "403": err("The caller lacks the access this operation needs"),
  "404": err("Unknown deployment, report or placement"),
};
const intParam = (name: string) => ({ name, in: "path", required: true, schema: { type: "integer", minimum: 0 } });
const strParam = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", ...extra },
});
const cursorParams = [
  {
    name: "first",
    in: "query",
    required: false,
    schema: { type: "integer", minimum: 1, maximum: 1000 },
    description: "Page size; omitted returns every item",
  },
  { name: "after", in: "query", required: false, schema: { type: "string" }, description: "Opaque cursor (pageInfo.endCursor)" },
];
const dep = intParam("deploymentId");
const reportOp = (summary: string, operationId: string, extra: Record<string, unknown> = {}) => ({
  summary,
  operationId,
  tags: ["reports"],
  responses: { "200": ok(M.Report), ...commonErrors, ...(extra.responses as object | undefined) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "responses")),
});

/** The caller, their deployments and a deployment's data-API token. */
function accountPaths(): Record<string, unknown> {
  return {
    "/api/v1/users/me": {
      get: { operationId: "getMe", summary: "The caller", responses: { "200": ok(M.Me), "401": commonErrors["401"] } },
    },
    "/api/v1/deployments": {
      get: {
        operationId: "listDeployments",
        summary: "Deployments the caller can read",
        parameters: cursorParams,
        responses: { "200": ok(M.DeploymentPage), "401": commonErrors["401"] },
      },
    },
    "/api/v1/deployments/{deploymentId}/token": {
      post: {
        operationId: "createDeploymentToken",
        summary: "Mint a data-API token (expiresIn 60..86400 s, default 24 h)",
        parameters: [dep],
        requestBody: { required: false, content: json(M.DeploymentTokenInput) },
        responses: { "200": ok(M.DeploymentToken), ...commonErrors },
      },
    },
  };
}

/** Reports and their placements (seeds 01 §4.1–§4.3). */
function reportPaths(): Record<string, unknown> {
  const rep = intParam("reportId");
  const conflict = { "409": err("publicId already used by another report") };
  return {
    "/api/v1/deployments/{deploymentId}/reports": {
      get: {
        operationId: "listReports",
        summary: "Reports the caller can read in one deployment",
        tags: ["reports"],
        parameters: [dep, { name: "externalWorkbookId", in: "query", required: false, schema: { type: "string" } }, ...cursorParams],
        responses: { "200": ok(M.ReportPage), ...commonErrors },
      },
      post: reportOp("Create a report", "createReport", { parameters: [dep], requestBody: body(M.ReportInput), responses: conflict }),
    },
    "/api/v1/deployments/{deploymentId}/reports/{reportId}": {
      put: reportOp("Update a report (only the fields sent change)", "updateReport", {
        parameters: [dep, rep],
        requestBody: body(M.ReportInput),
        responses: conflict,
      }),
    },
    "/api/v1/deployments/{deploymentId}/reports/by-public-id/{publicId}": {
      put: reportOp("Idempotent upsert keyed on publicId", "upsertReportByPublicId", {
        parameters: [dep, strParam("publicId", { minLength: 12, maxLength: 12, pattern: "^[0-9A-Za-z]+$" })],
        requestBody: body(M.ReportInput),
        responses: {
          "409": err(
            "No code: publicId belongs to another deployment (permanent); code upsert_branch_changed (transient); code ambiguous_legacy_id (permanent)",
          ),
        },
      }),
    },
    "/api/v1/deployments/{deploymentId}/reports/{reportId}/refresh": {
      put: reportOp("Refresh one placement", "refreshReport", { parameters: [dep, rep], requestBody: body(M.RefreshInput) }),
    },
    "/api/v1/deployments/{deploymentId}/reports/{reportId}/connect-workbook": {
      post: reportOp("Connect a report to a spreadsheet (create or correct a placement)", "connectWorkbook", {
        parameters: [dep, rep],
        requestBody: body(M.ConnectInput),
      }),
      delete: reportOp("Remove one sheet-and-anchor placement", "disconnectWorkbook", {
        parameters: [dep, rep],
        requestBody: body(M.DisconnectInput),
      }),
    },
    "/api/v1/external-documents/{externalWorkbookId}/placements": {
      get: {
        operationId: "listExternalDocumentPlacements",
        summary: "Every placement in an external spreadsheet, GRANTED or DENIED",
        parameters: [strParam("externalWorkbookId"), ...cursorParams],
        responses: { "200": ok(M.ExternalPlacementPage), ...commonErrors, "422": err("Over 500 placed explorations or 2000 placements") },
      },
    },
  };
}

function scheduledTaskErrors() {
  return {
    "401": commonErrors["401"],
    "403": err(
      "Scheduled tasks not enabled for the account (code scheduled_tasks_disabled), no read access to the deployment, an embed session (code embed_session), or (update, delete, run) neither the task's creator nor an admin",
    ),
    "404": err("Unknown deployment or task"),
  };
}

/** Seeds 01 §4.4/§4.5 (docs/API.md §12). */
function scheduledTaskPaths(): Record<string, unknown> {
  const task = intParam("taskId");
  const tags = ["scheduled-tasks"];
  const errors = scheduledTaskErrors();
  const bad = {
    "400": err("Bad input: a cron firing more than once an hour (minute field not one number), a bad cron or time zone (field names it)"),
  };
  const limit = {
    "409": err("The creator already has 20 active (scheduled and enabled) tasks across the account (code scheduled_task_limit)"),
  };
  return {
    "/api/v1/deployments/{deploymentId}/scheduled-tasks": {
      get: {
        operationId: "listScheduledTasks",
        summary: "The deployment's scheduled tasks (no cap when first is omitted)",
        tags,
        parameters: [dep, ...cursorParams],
        responses: { "200": ok(S.ScheduledTaskPage), ...errors },
      },
      post: {
        operationId: "createScheduledTask",
        summary: "Create a scheduled (cron + IANA time zone) or on-demand task; the caller is its creator",
        tags,
        parameters: [dep],
        requestBody: body(S.ScheduledTaskInput),
        responses: { "201": ok(S.ScheduledTask, "Created"), ...bad, ...errors, ...limit },
      },
    },
    "/api/v1/deployments/{deploymentId}/scheduled-tasks/{taskId}": {
      get: {
        operationId: "getScheduledTask",
        summary: "One task",
        tags,
        parameters: [dep, task],
        responses: { "200": ok(S.ScheduledTask), ...errors },
      },
      put: {
        operationId: "updateScheduledTask",
        summary: "Change the fields sent (enabled false pauses, true resumes)",
        tags,
        parameters: [dep, task],
        requestBody: body(S.ScheduledTaskUpdate),
        responses: { "200": ok(S.ScheduledTask), ...bad, ...errors, ...limit },
      },
      delete: {
        operationId: "deleteScheduledTask",
        summary: "Delete the task and its runs list (the runs' chat threads stay)",
        tags,
        parameters: [dep, task],
        responses: { "204": { description: "Deleted" }, ...errors },
      },
    },
    "/api/v1/deployments/{deploymentId}/scheduled-tasks/{taskId}/run": {
      post: {
        operationId: "runScheduledTask",
        summary: "Run now, as the task's creator: a new chat thread",
        tags,
        parameters: [dep, task],
        responses: { "202": ok(S.RunStarted, "Accepted"), ...errors },
      },
    },
    "/api/v1/deployments/{deploymentId}/scheduled-tasks/{taskId}/runs": {
      get: {
        operationId: "listScheduledTaskRuns",
        summary: "The 50 most recent runs, newest first; first/after page within them",
        tags,
        parameters: [dep, task, ...cursorParams],
        responses: { "200": ok(S.ScheduledTaskRunPage), ...errors },
      },
    },
  };
}

/** Rendering a published dashboard to a file. */
function dashboardExportPaths(): Record<string, unknown> {
  const tags = ["dashboard-exports"];
  return {
    "/api/v1/dashboard-exports": {
      post: {
        operationId: "createDashboardExport",
        summary: "Render a published dashboard to PNG or PDF (asynchronously; job and file kept 5 minutes)",
        tags,
        requestBody: body(M.DashboardExportInput),
        responses: {
          "202": ok(M.DashboardExportJob, "Accepted"),
          ...commonErrors,
          "403": err("No manage access to the dashboard's deployment, or renderAs by a non-admin"),
        },
      },
    },
    "/api/v1/dashboard-exports/{jobId}": {
      get: {
        operationId: "getDashboardExport",
        summary: "Poll an export job",
        tags,
        parameters: [strParam("jobId")],
        responses: {
          "200": ok(M.DashboardExportJob),
          "401": commonErrors["401"],
          "404": err("Unknown, another caller's, or dropped (5 minutes after submission)"),
        },
      },
    },
    "/api/v1/dashboard-exports/{jobId}/download": {
      get: {
        operationId: "downloadDashboardExport",
        summary: "The rendered file",
        tags,
        parameters: [strParam("jobId")],
        responses: {
          "200": {
            description: "The file",
            content: {
              "image/png": { schema: { type: "string", contentMediaType: "image/png" } },
              "application/pdf": { schema: { type: "string", contentMediaType: "application/pdf" } },
            },
          },
          "401": commonErrors["401"],
          "404": err("Unknown or dropped job"),
          "409": err("The job is not done yet (code not_done)"),
        },
      },
    },
  };
}

/** This document itself. */
function specPaths(): Record<string, unknown> {
  return {
    "/api/v1/spec": {
      get: {
        operationId: "getSpec",
        summary: "This document",
        security: [],
        responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  };
}

/** The data API, served at {data_url} with its own JWT. */
function dataApiPaths(): Record<string, unknown> {
  const server = () => [{ url: "{dataUrl}", variables: { dataUrl: { default: "/cubejs-api" } } }];
  const dataError = (description: string) => ({ description, content: json(D.DataErrorBody) });
  return {
    "/v1/load": {
      post: {
        operationId: "dataLoad",
        summary: "Data API (at {data_url}): JSON query",
        servers: server(),
        security: [{ jwt: [] }],
        requestBody: body(D.LoadRequest),
        responses: {
          "200": {
            description: 'Result, or {"error":"Continue wait"} while the query runs',
            content: { "application/json": { schema: { oneOf: [ref(D.LoadResponse), ref(D.ContinueWait)] } } },
          },
          "400": dataError("UserError"),
          "403": dataError("Missing or invalid token"),
        },
      },
    },
    "/v1/svcsql": {
      post: {
        operationId: "dataSql",
        summary: "Data API: SQL over the semantic views",
        servers: server(),
        security: [{ jwt: [] }],
        requestBody: body(D.SqlRequest),
        responses: { "200": ok(D.SqlResponse), "400": dataError("Bad SQL"), "403": dataError("Missing or invalid token") },
      },
    },
    "/v1/meta": {
      get: {
        operationId: "dataMeta",
        summary: "Data API: views, measures, dimensions",
        servers: server(),
        security: [{ jwt: [] }],
        responses: { "200": ok(D.MetaResponse), "403": dataError("Missing or invalid token") },
      },
    },
  };
}

const securitySchemes = {
  bearer: { type: "http", scheme: "bearer", description: "API key or OAuth token" },
  jwt: { type: "apiKey", in: "header", name: "Authorization", description: "Data-API JWT, no prefix" },
  embedToken: {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description: "Embed-Token <embed token> (Bearer <embed token> also accepted)",
  },
};

export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Platform Management API (Cellbound stand-in)", version: "1.0.0" },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths: {
      ...accountPaths(),
      ...reportPaths(),
      ...scheduledTaskPaths(),
      ...embedPaths(),
      ...dashboardExportPaths(),
      ...specPaths(),
      ...dataApiPaths(),
    },
    components: { schemas: componentSchemas(), securitySchemes },
  };
}
