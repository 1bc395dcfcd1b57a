// Generates the OpenAPI 3.1 document of the management API (and the data API as a
// second server) from the zod schemas, so the spec, the types and the validation can
// never disagree. The stand-in serves it at GET /api/v1/spec.
import { z } from "zod";
import { ErrorBody, PageInfo } from "./schemas/common";
import * as M from "./schemas/management";
import * as D from "./schemas/data";
import * as S from "./schemas/scheduled-tasks";
import { EMBED_COMPONENTS, embedPaths } from "./openapi-embed";

const components: Record<string, z.ZodType> = {
  ErrorBody,
  PageInfo,
  Report: M.Report,
  Placement: M.Placement,
  ResultChecksum: M.ResultChecksum,
  PivotItems: M.PivotItems,
  UserRef: M.UserRef,
  ReportInput: M.ReportInput,
  RefreshInput: M.RefreshInput,
  ConnectInput: M.ConnectInput,
  DisconnectInput: M.DisconnectInput,
  ExternalPlacement: M.ExternalPlacement,
  ReportPage: M.ReportPage,
  ExternalPlacementPage: M.ExternalPlacementPage,
  DeploymentTokenInput: M.DeploymentTokenInput,
  DeploymentToken: M.DeploymentToken,
  Deployment: M.Deployment,
  DeploymentPage: M.DeploymentPage,
  Me: M.Me,
  LoadRequest: D.LoadRequest,
  LoadResponse: D.LoadResponse,
  SqlRequest: D.SqlRequest,
  SqlResponse: D.SqlResponse,
  MetaResponse: D.MetaResponse,
  DataErrorBody: D.DataErrorBody,
  ContinueWait: D.ContinueWait,
  DashboardExportInput: M.DashboardExportInput,
  DashboardExportJob: M.DashboardExportJob,
  ScheduledTask: S.ScheduledTask,
  ScheduledTaskInput: S.ScheduledTaskInput,
  ScheduledTaskUpdate: S.ScheduledTaskUpdate,
  ScheduledTaskPage: S.ScheduledTaskPage,
  ScheduledTaskRun: S.ScheduledTaskRun,
  ScheduledTaskRunPage: S.ScheduledTaskRunPage,
  RunStarted: S.RunStarted,
  ...EMBED_COMPONENTS,
};

function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
    io: "input",
  }) as { schemas: Record<string, Record<string, unknown>> };
  for (const s of Object.values(out.schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return out.schemas;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string) => ({ "application/json": { schema: ref(id) } });
const ok = (id: string, description = "OK") => ({ description, content: json(id) });
const err = (description: string) => ({ description, content: json("ErrorBody") });
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
const body = (id: string) => ({ required: true, content: json(id) });
const reportOp = (summary: string, operationId: string, extra: Record<string, unknown> = {}) => ({
  summary,
  operationId,
  tags: ["reports"],
  responses: { "200": ok("Report"), ...commonErrors, ...(extra.responses as object | undefined) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "responses")),
});

/** Seeds 01 §4.4/§4.5 (docs/API.md §12). */
function scheduledTaskPaths(dep: ReturnType<typeof intParam>): Record<string, unknown> {
  const task = intParam("taskId");
  const tags = ["scheduled-tasks"];
  const errors = {
    "401": commonErrors["401"],
    "403": err(
      "Scheduled tasks not enabled for the account (code scheduled_tasks_disabled), no read access to the deployment, an embed session (code embed_session), or (update, delete, run) neither the task's creator nor an admin",
    ),
    "404": err("Unknown deployment or task"),
  };
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
        responses: { "200": ok("ScheduledTaskPage"), ...errors },
      },
      post: {
        operationId: "createScheduledTask",
        summary: "Create a scheduled (cron + IANA time zone) or on-demand task; the caller is its creator",
        tags,
        parameters: [dep],
        requestBody: body("ScheduledTaskInput"),
        responses: { "201": ok("ScheduledTask", "Created"), ...bad, ...errors, ...limit },
      },
    },
    "/api/v1/deployments/{deploymentId}/scheduled-tasks/{taskId}": {
      get: {
        operationId: "getScheduledTask",
        summary: "One task",
        tags,
        parameters: [dep, task],
        responses: { "200": ok("ScheduledTask"), ...errors },
      },
      put: {
        operationId: "updateScheduledTask",
        summary: "Change the fields sent (enabled false pauses, true resumes)",
        tags,
        parameters: [dep, task],
        requestBody: body("ScheduledTaskUpdate"),
        responses: { "200": ok("ScheduledTask"), ...bad, ...errors, ...limit },
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
        responses: { "202": ok("RunStarted", "Accepted"), ...errors },
      },
    },
    "/api/v1/deployments/{deploymentId}/scheduled-tasks/{taskId}/runs": {
      get: {
        operationId: "listScheduledTaskRuns",
        summary: "The 50 most recent runs, newest first; first/after page within them",
        tags,
        parameters: [dep, task, ...cursorParams],
        responses: { "200": ok("ScheduledTaskRunPage"), ...errors },
      },
    },
  };
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const dep = intParam("deploymentId");
  const rep = intParam("reportId");
  const conflict = { "409": err("publicId already used by another report") };
  return {
    openapi: "3.1.0",
    info: { title: "Platform Management API (Cellbound stand-in)", version: "1.0.0" },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths: {
      "/api/v1/users/me": {
        get: { operationId: "getMe", summary: "The caller", responses: { "200": ok("Me"), "401": commonErrors["401"] } },
      },
      "/api/v1/deployments": {
        get: {
          operationId: "listDeployments",
          summary: "Deployments the caller can read",
          parameters: cursorParams,
          responses: { "200": ok("DeploymentPage"), "401": commonErrors["401"] },
        },
      },
      "/api/v1/deployments/{deploymentId}/token": {
        post: {
          operationId: "createDeploymentToken",
          summary: "Mint a data-API token (expiresIn 60..86400 s, default 24 h)",
          parameters: [dep],
          requestBody: { required: false, content: json("DeploymentTokenInput") },
          responses: { "200": ok("DeploymentToken"), ...commonErrors },
        },
      },
      "/api/v1/deployments/{deploymentId}/reports": {
        get: {
          operationId: "listReports",
          summary: "Reports the caller can read in one deployment",
          tags: ["reports"],
          parameters: [dep, { name: "externalWorkbookId", in: "query", required: false, schema: { type: "string" } }, ...cursorParams],
          responses: { "200": ok("ReportPage"), ...commonErrors },
        },
        post: reportOp("Create a report", "createReport", { parameters: [dep], requestBody: body("ReportInput"), responses: conflict }),
      },
      "/api/v1/deployments/{deploymentId}/reports/{reportId}": {
        put: reportOp("Update a report (only the fields sent change)", "updateReport", {
          parameters: [dep, rep],
          requestBody: body("ReportInput"),
          responses: conflict,
        }),
      },
      "/api/v1/deployments/{deploymentId}/reports/by-public-id/{publicId}": {
        put: reportOp("Idempotent upsert keyed on publicId", "upsertReportByPublicId", {
          parameters: [dep, strParam("publicId", { minLength: 12, maxLength: 12, pattern: "^[0-9A-Za-z]+$" })],
          requestBody: body("ReportInput"),
          responses: {
            "409": err(
              "No code: publicId belongs to another deployment (permanent); code upsert_branch_changed (transient); code ambiguous_legacy_id (permanent)",
            ),
          },
        }),
      },
      "/api/v1/deployments/{deploymentId}/reports/{reportId}/refresh": {
        put: reportOp("Refresh one placement", "refreshReport", { parameters: [dep, rep], requestBody: body("RefreshInput") }),
      },
      "/api/v1/deployments/{deploymentId}/reports/{reportId}/connect-workbook": {
        post: reportOp("Connect a report to a spreadsheet (create or correct a placement)", "connectWorkbook", {
          parameters: [dep, rep],
          requestBody: body("ConnectInput"),
        }),
        delete: reportOp("Remove one sheet-and-anchor placement", "disconnectWorkbook", {
          parameters: [dep, rep],
          requestBody: body("DisconnectInput"),
        }),
      },
      "/api/v1/external-documents/{externalWorkbookId}/placements": {
        get: {
          operationId: "listExternalDocumentPlacements",
          summary: "Every placement in an external spreadsheet, GRANTED or DENIED",
          parameters: [strParam("externalWorkbookId"), ...cursorParams],
          responses: { "200": ok("ExternalPlacementPage"), ...commonErrors, "422": err("Over 500 placed explorations or 2000 placements") },
        },
      },
      ...scheduledTaskPaths(dep),
      ...embedPaths(),
      "/api/v1/dashboard-exports": {
        post: {
          operationId: "createDashboardExport",
          summary: "Render a published dashboard to PNG or PDF (asynchronously; job and file kept 5 minutes)",
          tags: ["dashboard-exports"],
          requestBody: body("DashboardExportInput"),
          responses: {
            "202": ok("DashboardExportJob", "Accepted"),
            ...commonErrors,
            "403": err("No manage access to the dashboard's deployment, or renderAs by a non-admin"),
          },
        },
      },
      "/api/v1/dashboard-exports/{jobId}": {
        get: {
          operationId: "getDashboardExport",
          summary: "Poll an export job",
          tags: ["dashboard-exports"],
          parameters: [strParam("jobId")],
          responses: {
            "200": ok("DashboardExportJob"),
            "401": commonErrors["401"],
            "404": err("Unknown, another caller's, or dropped (5 minutes after submission)"),
          },
        },
      },
      "/api/v1/dashboard-exports/{jobId}/download": {
        get: {
          operationId: "downloadDashboardExport",
          summary: "The rendered file",
          tags: ["dashboard-exports"],
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
      "/api/v1/spec": {
        get: {
          operationId: "getSpec",
          summary: "This document",
          security: [],
          responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
      "/v1/load": {
        post: {
          operationId: "dataLoad",
          summary: "Data API (at {data_url}): JSON query",
          servers: [{ url: "{dataUrl}", variables: { dataUrl: { default: "/cubejs-api" } } }],
          security: [{ jwt: [] }],
          requestBody: body("LoadRequest"),
          responses: {
            "200": {
              description: 'Result, or {"error":"Continue wait"} while the query runs',
              content: { "application/json": { schema: { oneOf: [ref("LoadResponse"), ref("ContinueWait")] } } },
            },
            "400": { description: "UserError", content: json("DataErrorBody") },
            "403": { description: "Missing or invalid token", content: json("DataErrorBody") },
          },
        },
      },
      "/v1/svcsql": {
        post: {
          operationId: "dataSql",
          summary: "Data API: SQL over the semantic views",
          servers: [{ url: "{dataUrl}", variables: { dataUrl: { default: "/cubejs-api" } } }],
          security: [{ jwt: [] }],
          requestBody: body("SqlRequest"),
          responses: {
            "200": ok("SqlResponse"),
            "400": { description: "Bad SQL", content: json("DataErrorBody") },
            "403": { description: "Missing or invalid token", content: json("DataErrorBody") },
          },
        },
      },
      "/v1/meta": {
        get: {
          operationId: "dataMeta",
          summary: "Data API: views, measures, dimensions",
          servers: [{ url: "{dataUrl}", variables: { dataUrl: { default: "/cubejs-api" } } }],
          security: [{ jwt: [] }],
          responses: { "200": ok("MetaResponse"), "403": { description: "Missing or invalid token", content: json("DataErrorBody") } },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "API key or OAuth token" },
        jwt: { type: "apiKey", in: "header", name: "Authorization", description: "Data-API JWT, no prefix" },
        embedToken: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "Embed-Token <embed token> (Bearer <embed token> also accepted)",
        },
      },
    },
  };
}
