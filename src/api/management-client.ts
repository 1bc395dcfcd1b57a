// The management-API client (seeds 01 §4.1, §4.4): one function per endpoint, each
// taking an AbortSignal; `Authorization: Bearer <token>`; typed errors; bounded retries
// on transient causes; cursor pagination as async iterators.
import { z } from "zod";
import type { Page } from "./schemas/common";
import {
  DashboardExportJob,
  DeploymentPage,
  DeploymentToken,
  ExternalPlacementPage,
  Me,
  Report,
  ReportPage,
  type DashboardExportInput,
  type ConnectInput,
  type Deployment,
  type DeploymentTokenInput,
  type DisconnectInput,
  type ExternalPlacement,
  type RefreshInput,
  type ReportInput,
} from "./schemas/management";
import {
  RunStarted,
  ScheduledTask,
  ScheduledTaskPage,
  ScheduledTaskRunPage,
  type ScheduledTaskInput,
  type ScheduledTaskRun,
  type ScheduledTaskUpdate,
} from "./schemas/scheduled-tasks";
import {
  AmbiguousLegacyIdError,
  ApiError,
  BadRequestError,
  FieldTooLongError,
  PlaceholderPublicIdError,
  PlacementLimitError,
  PublicIdImmutableError,
  PublicIdInOtherDeploymentError,
  PublicIdTakenError,
  UpsertBranchChangedError,
  ConflictError,
  InvalidResponseError,
  ScheduledTaskLimitError,
  ScheduledTasksDisabledError,
} from "./errors";
import {
  buildUrl,
  errorBody,
  errorDetails,
  parseBody,
  parseJsonBody,
  path,
  resolveCredential,
  sendRaw,
  statusError,
  type Credential,
  type FetchLike,
} from "./http";
import { withRetry } from "./retry";
import { DEFAULT_RETRY, deadlinesWith, type Deadlines, type RetryPolicy } from "./deadlines";

/** Error codes the stand-in (and, by our documented choice, the platform) sends. */
export const ERROR_CODES = {
  upsertBranchChanged: "upsert_branch_changed",
  ambiguousLegacyId: "ambiguous_legacy_id",
  publicIdImmutable: "public_id_immutable",
  placeholderPublicId: "placeholder_public_id",
  tooLong: "too_long",
  invalid: "invalid",
  placementLimit: "placement_limit",
  /** Scheduled tasks (docs/API.md §12): 409 limit of active tasks, 403 off for the account, 403 embed session. */
  scheduledTaskLimit: "scheduled_task_limit",
  scheduledTasksDisabled: "scheduled_tasks_disabled",
  embedSession: "embed_session",
} as const;

export interface PlatformClientOptions {
  /** The tenant host, e.g. "https://acme.example.com" (the /api/v1 prefix is added here). */
  baseUrl: string;
  /** An API key or OAuth token, or a function yielding one. */
  credential: Credential;
  fetch?: FetchLike;
  /** Retries and the budget of a whole call (src/api/deadlines.ts). */
  retry?: Partial<RetryPolicy>;
  /** Per-attempt deadline and response size cap. */
  deadlines?: Partial<Deadlines>;
}

export interface ListReportsOptions {
  externalWorkbookId?: string;
  first?: number;
  after?: string;
}

export interface PlatformClient {
  getMe(signal?: AbortSignal): Promise<Me>;
  listDeployments(signal?: AbortSignal): Promise<Deployment[]>;
  listReports(deploymentId: number, options?: ListReportsOptions, signal?: AbortSignal): Promise<Page<Report>>;
  /** Every readable report, page by page (`first` = page size). */
  iterateReports(deploymentId: number, options?: Omit<ListReportsOptions, "after">, signal?: AbortSignal): AsyncIterable<Report>;
  /** Not retried on network/5xx (it is not idempotent); prefer upsertReport with generatePublicId(). */
  createReport(deploymentId: number, input: ReportInput, signal?: AbortSignal): Promise<Report>;
  updateReport(deploymentId: number, reportId: number, input: ReportInput, signal?: AbortSignal): Promise<Report>;
  upsertReport(deploymentId: number, publicId: string, input: ReportInput, signal?: AbortSignal): Promise<Report>;
  refreshReport(deploymentId: number, reportId: number, input: RefreshInput, signal?: AbortSignal): Promise<Report>;
  /** POST …/connect-workbook (method "not shown": our choice, docs/API.md). */
  connectWorkbook(deploymentId: number, reportId: number, input: ConnectInput, signal?: AbortSignal): Promise<Report>;
  disconnectWorkbook(deploymentId: number, reportId: number, input: DisconnectInput, signal?: AbortSignal): Promise<Report>;
  listExternalPlacements(
    externalWorkbookId: string,
    options?: { first?: number; after?: string },
    signal?: AbortSignal,
  ): Promise<Page<ExternalPlacement>>;
  iterateExternalPlacements(
    externalWorkbookId: string,
    options?: { first?: number },
    signal?: AbortSignal,
  ): AsyncIterable<ExternalPlacement>;
  createDeploymentToken(deploymentId: number, input?: DeploymentTokenInput, signal?: AbortSignal): Promise<DeploymentToken>;
  /** The OpenAPI 3.1 document the platform serves at GET /api/v1/spec. */
  getSpec(signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** POST /dashboard-exports → 202 {jobId, status}; not retried (each POST is a new job). */
  createDashboardExport(input: DashboardExportInput, signal?: AbortSignal): Promise<DashboardExportJob>;
  getDashboardExport(jobId: string, signal?: AbortSignal): Promise<DashboardExportJob>;
  /** The rendered file (image/png or application/pdf); 409 until the job is done. */
  downloadDashboardExport(jobId: string, signal?: AbortSignal): Promise<{ contentType: string; bytes: Uint8Array }>;
  // Scheduled tasks (seeds 01 §4.4, §4.5; docs/API.md §12). Errors: ScheduledTasksDisabledError,
  // ForbiddenError (no access, an embed session, not the creator or an admin), ScheduledTaskLimitError
  // (409 on create or resume), BadRequestError with field cron or timezone.
  /** One page (`first` omitted: every task). */
  listScheduledTasks(
    deploymentId: number,
    options?: { first?: number; after?: string },
    signal?: AbortSignal,
  ): Promise<Page<ScheduledTask>>;
  getScheduledTask(deploymentId: number, taskId: number, signal?: AbortSignal): Promise<ScheduledTask>;
  /** POST → 201; not retried (each POST creates a task). */
  createScheduledTask(deploymentId: number, input: ScheduledTaskInput, signal?: AbortSignal): Promise<ScheduledTask>;
  /** PUT: only the fields sent change (pause/resume = `{ enabled }`). */
  updateScheduledTask(deploymentId: number, taskId: number, patch: ScheduledTaskUpdate, signal?: AbortSignal): Promise<ScheduledTask>;
  deleteScheduledTask(deploymentId: number, taskId: number, signal?: AbortSignal): Promise<void>;
  /** POST …/run → 202 {runId, chatId}; not retried (each POST starts a run). */
  runScheduledTask(deploymentId: number, taskId: number, signal?: AbortSignal): Promise<RunStarted>;
  /** The most recent runs (at most 50), newest first; `first`/`after` page within them. */
  listScheduledTaskRuns(
    deploymentId: number,
    taskId: number,
    options?: { first?: number; after?: string },
    signal?: AbortSignal,
  ): Promise<Page<ScheduledTaskRun>>;
}

type Endpoint = "upsert" | "other";

const SpecShape = z.looseObject({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }) });

/**
 * Maps a non-2xx management response to its typed error. The status decides first; the body (JSON
 * or not) only refines it, so an HTML error page keeps its status and lends an excerpt.
 */
export function managementError(
  status: number,
  json: unknown,
  what: string,
  endpoint: Endpoint = "other",
  o: { excerpt?: string; headers?: Headers } = {},
): ApiError {
  const body = errorBody(json);
  const message = body?.error ?? o.excerpt ?? "";
  const msg = `${what}: ${status}${message ? ` ${message}` : ""}`;
  switch (status) {
    case 422:
      return new PlacementLimitError(msg, status, json);
    case 409:
      if (body?.code === ERROR_CODES.upsertBranchChanged) return new UpsertBranchChangedError(msg, status, json);
      if (body?.code === ERROR_CODES.ambiguousLegacyId) return new AmbiguousLegacyIdError(msg, status, json);
      if (body?.code === ERROR_CODES.scheduledTaskLimit) return new ScheduledTaskLimitError(msg, status, json);
      if (body?.code === undefined) {
        return endpoint === "upsert" ? new PublicIdInOtherDeploymentError(msg, status, json) : new PublicIdTakenError(msg, status, json);
      }
      return new ConflictError(msg, status, json);
    case 400:
      if (body?.code === ERROR_CODES.publicIdImmutable) return new PublicIdImmutableError(msg, status, json);
      if (body?.code === ERROR_CODES.placeholderPublicId) return new PlaceholderPublicIdError(msg, status, json);
      if (body?.code === ERROR_CODES.tooLong && body.field) return new FieldTooLongError(msg, status, json, body.field);
      return new BadRequestError(msg, status, json, body?.field);
    case 403:
      if (body?.code === ERROR_CODES.scheduledTasksDisabled) return new ScheduledTasksDisabledError(msg, status, json);
      return statusError(status, { json, message }, what, o.headers);
    default:
      return statusError(status, { json, message }, what, o.headers);
  }
}

/** What every call of one client shares: where and how it sends, its retry policy and limits. */
interface PlatformContext {
  options: PlatformClientOptions;
  fetch: FetchLike;
  policy: RetryPolicy;
  limits: Deadlines;
}

interface SendSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  p: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  endpoint?: Endpoint;
  accept?: string;
}

/** One attempt within `deadlineMs`: the bearer credential, the request, a non-2xx answer as its typed error. */
async function attempt(ctx: PlatformContext, s: SendSpec, deadlineMs: number) {
  const what = `${s.method} ${s.p}`;
  const token = await resolveCredential(ctx.options.credential, s.signal);
  const res = await sendRaw({
    fetch: ctx.fetch,
    method: s.method,
    url: buildUrl(ctx.options.baseUrl, s.p, s.query),
    authorization: `Bearer ${token}`,
    body: s.body,
    signal: s.signal,
    deadlineMs,
    maxBytes: ctx.limits.maxResponseBytes,
    ...(s.accept !== undefined ? { accept: s.accept } : {}),
  });
  if (res.status < 200 || res.status > 299) {
    const d = errorDetails(res.bytes);
    throw managementError(res.status, d.json, what, s.endpoint, { excerpt: d.message, headers: res.headers });
  }
  return res;
}

/** One JSON call, retried on transient causes unless `retry` is false, its answer checked against `schema`. */
async function call<S extends z.ZodType>(
  ctx: PlatformContext,
  method: SendSpec["method"],
  p: string,
  schema: S,
  o: Omit<SendSpec, "method" | "p" | "accept"> & { retry?: boolean },
): Promise<z.output<S>> {
  const what = `${method} ${p}`;
  const once = async (deadlineMs: number): Promise<z.output<S>> => {
    const res = await attempt(ctx, { method, p, ...o }, deadlineMs);
    return parseBody(schema, parseJsonBody(res, what), what, res.status);
  };
  // Not retried (createReport): one attempt, still bounded by the whole call's budget.
  const attempts = o.retry === false ? { ...ctx.policy, maxAttempts: 1 } : ctx.policy;
  return withRetry(attempts, (_n, retry) => once(retry.deadlineMs), o.signal, { what, attemptMs: ctx.limits.managementAttemptMs });
}

/** Every item of a cursor-paged listing, page after page. */
async function* pages<T>(fetchPage: (after: string | undefined) => Promise<Page<T>>): AsyncIterable<T> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage(after);
    yield* page.items;
    if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return;
    after = page.pageInfo.endCursor;
  }
}

function accountCalls(ctx: PlatformContext): Pick<PlatformClient, "getMe" | "listDeployments" | "createDeploymentToken" | "getSpec"> {
  return {
    getMe: (signal) => call(ctx, "GET", "/api/v1/users/me", Me, { signal }),
    listDeployments: async (signal) => {
      const out: Deployment[] = [];
      const all = pages((after) => call(ctx, "GET", "/api/v1/deployments", DeploymentPage, { query: { after }, signal }));
      for await (const d of all) out.push(d);
      return out;
    },
    createDeploymentToken: (deploymentId, input = {}, signal) =>
      call(ctx, "POST", path`/api/v1/deployments/${deploymentId}/token`, DeploymentToken, { body: input, signal }),
    getSpec: (signal) => call(ctx, "GET", "/api/v1/spec", SpecShape, { signal }),
  };
}

function reportCalls(
  ctx: PlatformContext,
): Pick<
  PlatformClient,
  | "listReports"
  | "createReport"
  | "updateReport"
  | "upsertReport"
  | "refreshReport"
  | "connectWorkbook"
  | "disconnectWorkbook"
  | "listExternalPlacements"
> {
  return {
    listReports: (deploymentId, o = {}, signal) =>
      call(ctx, "GET", path`/api/v1/deployments/${deploymentId}/reports`, ReportPage, {
        query: { externalWorkbookId: o.externalWorkbookId, first: o.first, after: o.after },
        signal,
      }),
    createReport: (deploymentId, input, signal) =>
      call(ctx, "POST", path`/api/v1/deployments/${deploymentId}/reports`, Report, { body: input, signal, retry: false }),
    updateReport: (deploymentId, reportId, input, signal) =>
      call(ctx, "PUT", path`/api/v1/deployments/${deploymentId}/reports/${reportId}`, Report, { body: input, signal }),
    upsertReport: (deploymentId, publicId, input, signal) =>
      call(ctx, "PUT", path`/api/v1/deployments/${deploymentId}/reports/by-public-id/${publicId}`, Report, {
        body: input,
        signal,
        endpoint: "upsert",
      }),
    refreshReport: (deploymentId, reportId, input, signal) =>
      call(ctx, "PUT", path`/api/v1/deployments/${deploymentId}/reports/${reportId}/refresh`, Report, { body: input, signal }),
    connectWorkbook: (deploymentId, reportId, input, signal) =>
      call(ctx, "POST", path`/api/v1/deployments/${deploymentId}/reports/${reportId}/connect-workbook`, Report, { body: input, signal }),
    disconnectWorkbook: (deploymentId, reportId, input, signal) =>
      call(ctx, "DELETE", path`/api/v1/deployments/${deploymentId}/reports/${reportId}/connect-workbook`, Report, { body: input, signal }),
    listExternalPlacements: (externalWorkbookId, o = {}, signal) =>
      call(ctx, "GET", path`/api/v1/external-documents/${externalWorkbookId}/placements`, ExternalPlacementPage, {
        query: { first: o.first, after: o.after },
        signal,
      }),
  };
}

function scheduledTaskCalls(
  ctx: PlatformContext,
): Pick<
  PlatformClient,
  | "listScheduledTasks"
  | "getScheduledTask"
  | "createScheduledTask"
  | "updateScheduledTask"
  | "deleteScheduledTask"
  | "runScheduledTask"
  | "listScheduledTaskRuns"
> {
  return {
    listScheduledTasks: (deploymentId, o = {}, signal) =>
      call(ctx, "GET", path`/api/v1/deployments/${deploymentId}/scheduled-tasks`, ScheduledTaskPage, {
        query: { first: o.first, after: o.after },
        signal,
      }),
    getScheduledTask: (deploymentId, taskId, signal) =>
      call(ctx, "GET", path`/api/v1/deployments/${deploymentId}/scheduled-tasks/${taskId}`, ScheduledTask, { signal }),
    createScheduledTask: (deploymentId, input, signal) =>
      call(ctx, "POST", path`/api/v1/deployments/${deploymentId}/scheduled-tasks`, ScheduledTask, { body: input, signal, retry: false }),
    updateScheduledTask: (deploymentId, taskId, patch, signal) =>
      call(ctx, "PUT", path`/api/v1/deployments/${deploymentId}/scheduled-tasks/${taskId}`, ScheduledTask, { body: patch, signal }),
    deleteScheduledTask: async (deploymentId, taskId, signal) => {
      await call(ctx, "DELETE", path`/api/v1/deployments/${deploymentId}/scheduled-tasks/${taskId}`, z.undefined(), { signal });
    },
    runScheduledTask: (deploymentId, taskId, signal) =>
      call(ctx, "POST", path`/api/v1/deployments/${deploymentId}/scheduled-tasks/${taskId}/run`, RunStarted, { signal, retry: false }),
    listScheduledTaskRuns: (deploymentId, taskId, o = {}, signal) =>
      call(ctx, "GET", path`/api/v1/deployments/${deploymentId}/scheduled-tasks/${taskId}/runs`, ScheduledTaskRunPage, {
        query: { first: o.first, after: o.after },
        signal,
      }),
  };
}

/** The rendered file of an export job: an image or a PDF, retried like a GET. */
function downloadDashboardExport(ctx: PlatformContext, jobId: string, signal?: AbortSignal) {
  const p = path`/api/v1/dashboard-exports/${jobId}/download`;
  const what = `GET ${p}`;
  return withRetry(
    ctx.policy,
    async (_n, retry) => {
      const res = await attempt(ctx, { method: "GET", p, signal, accept: "image/png, application/pdf" }, retry.deadlineMs);
      const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
      if (contentType !== "image/png" && contentType !== "application/pdf") {
        throw new InvalidResponseError(
          `${what}: answered ${contentType || "no content type"}, not an image or a PDF`,
          res.status,
          undefined,
        );
      }
      return { contentType, bytes: res.bytes };
    },
    signal,
    { what, attemptMs: ctx.limits.managementAttemptMs },
  );
}

function dashboardExportCalls(
  ctx: PlatformContext,
): Pick<PlatformClient, "createDashboardExport" | "getDashboardExport" | "downloadDashboardExport"> {
  return {
    createDashboardExport: (input, signal) =>
      call(ctx, "POST", "/api/v1/dashboard-exports", DashboardExportJob, { body: input, signal, retry: false }),
    getDashboardExport: (jobId, signal) => call(ctx, "GET", path`/api/v1/dashboard-exports/${jobId}`, DashboardExportJob, { signal }),
    downloadDashboardExport: (jobId, signal) => downloadDashboardExport(ctx, jobId, signal),
  };
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const ctx: PlatformContext = {
    options,
    fetch: options.fetch ?? ((u, i) => fetch(u, i)),
    policy: { ...DEFAULT_RETRY, ...options.retry },
    limits: deadlinesWith(options.deadlines),
  };
  const client: PlatformClient = {
    ...accountCalls(ctx),
    ...reportCalls(ctx),
    ...scheduledTaskCalls(ctx),
    ...dashboardExportCalls(ctx),
    // The iterators page through the client's own listings.
    iterateReports: (deploymentId, o = {}, signal) =>
      pages((after) => client.listReports(deploymentId, { ...o, first: o.first ?? 100, after }, signal)),
    iterateExternalPlacements: (externalWorkbookId, o = {}, signal) =>
      pages((after) => client.listExternalPlacements(externalWorkbookId, { first: o.first ?? 500, after }, signal)),
  };
  return client;
}
