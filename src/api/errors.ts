// Typed errors of the API layer: one class per documented cause (seeds 01 §7, §4.1),
// told apart by `kind`. Everything the client throws (except an AbortError from the
// caller's own signal) is an ApiError.
import type { ErrorBody } from "./schemas/common";

export type ApiErrorKind =
  | "network"
  | "server"
  | "invalid-response"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "public-id-taken"
  | "public-id-other-deployment"
  | "upsert-branch-changed"
  | "ambiguous-legacy-id"
  | "public-id-immutable"
  | "placeholder-public-id"
  | "too-long"
  | "bad-request"
  | "placement-limit"
  | "conflict"
  | "scheduled-task-limit"
  | "scheduled-tasks-disabled"
  | "embed-session"
  | "data-query"
  | "continue-wait"
  | "retry-exhausted"
  | "timeout"
  | "token-refused"
  | "rate-limited"
  | "response-too-large"
  | "sql-not-supported"
  | "data-url"
  | "platform-url"
  | "chat-auth"
  | "chat-busy"
  | "http";

export abstract class ApiError extends Error {
  abstract readonly kind: ApiErrorKind;
  /** True when repeating the same request may succeed (network, 5xx, upsert_branch_changed). */
  readonly transient: boolean = false;
  constructor(
    message: string,
    /** HTTP status; 0 when no response arrived. */
    readonly status: number,
    /** The parsed error body, when there was one. */
    readonly body?: ErrorBody | unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class NetworkError extends ApiError {
  readonly kind = "network";
  override readonly transient = true;
}
export class ServerError extends ApiError {
  readonly kind = "server";
  override readonly transient = true;
}
/** A response that does not match its schema (or is not JSON). */
export class InvalidResponseError extends ApiError {
  readonly kind = "invalid-response";
}
export class UnauthorizedError extends ApiError {
  readonly kind = "unauthorized";
}
export class ForbiddenError extends ApiError {
  readonly kind = "forbidden";
}
export class NotFoundError extends ApiError {
  readonly kind = "not-found";
}
/** 409 on create or update: the publicId is used by another report. */
export class PublicIdTakenError extends ApiError {
  readonly kind = "public-id-taken";
}
/** 409 on upsert without `code`: the publicId belongs to a report in another deployment (permanent). */
export class PublicIdInOtherDeploymentError extends ApiError {
  readonly kind = "public-id-other-deployment";
}
/** 409 `upsert_branch_changed`: another writer changed the report mid-upsert (transient). */
export class UpsertBranchChangedError extends ApiError {
  readonly kind = "upsert-branch-changed";
  override readonly transient = true;
}
/** 409 `ambiguous_legacy_id`: the placeholder id matches several reports (permanent). */
export class AmbiguousLegacyIdError extends ApiError {
  readonly kind = "ambiguous-legacy-id";
}
/** 400: changing an existing publicId. */
export class PublicIdImmutableError extends ApiError {
  readonly kind = "public-id-immutable";
}
/** 400: assigning a synthesized placeholder publicId. */
export class PlaceholderPublicIdError extends ApiError {
  readonly kind = "placeholder-public-id";
}
/** 400 `too_long`: a string over its limit (name or title over 255, payload over 128…); `field` names it. */
export class FieldTooLongError extends ApiError {
  readonly kind = "too-long";
  constructor(
    message: string,
    status: number,
    body: unknown,
    readonly field: string,
  ) {
    super(message, status, body);
  }
}
/** Any other 400; `field` names the offending field when the body does. */
export class BadRequestError extends ApiError {
  readonly kind = "bad-request";
  constructor(
    message: string,
    status: number,
    body: unknown,
    readonly field: string | undefined,
  ) {
    super(message, status, body);
  }
}
/** 422: the external document holds over 500 placed explorations or 2000 placements. */
export class PlacementLimitError extends ApiError {
  readonly kind = "placement-limit";
}
/** A 409 of another cause. */
export class ConflictError extends ApiError {
  readonly kind = "conflict";
}
/** 409 `scheduled_task_limit`: the task's creator already has 20 active scheduled tasks (seeds 01 §4.5 rule 4). */
export class ScheduledTaskLimitError extends ApiError {
  readonly kind = "scheduled-task-limit";
}
/** 403 `scheduled_tasks_disabled`: scheduled tasks are not enabled for the account (§4.5 rule 1). */
export class ScheduledTasksDisabledError extends ApiError {
  readonly kind = "scheduled-tasks-disabled";
}
/** The data API rejected the query (400 `{type: "UserError", error}`). */
export class DataQueryError extends ApiError {
  readonly kind = "data-query";
}
/** The data API answered 200 {"error":"Continue wait"}: the query is still running (transient). */
export class ContinueWaitError extends ApiError {
  readonly kind = "continue-wait";
  override readonly transient = true;
}
/** Retries (or "Continue wait" polls) ran out of attempts or time; `cause` is the last error. */
export class RetryExhaustedError extends ApiError {
  readonly kind = "retry-exhausted";
}
/**
 * A deadline passed: one attempt, the whole request (retries and "Continue wait" included), or a
 * stream's idle time. The message names the request. Never thrown for the caller's own abort.
 */
export class TimeoutError extends ApiError {
  readonly kind = "timeout";
  override readonly transient = true;
  constructor(
    message: string,
    readonly deadlineMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, 0, undefined, options);
  }
}
/**
 * The data API refused the token itself (401, or 403 "Invalid token" / "Authorization header isn't
 * set"), and a freshly minted one too: a sign-in problem, not a permission problem.
 */
export class TokenRefusedError extends ApiError {
  readonly kind = "token-refused";
}
/** 429 Too Many Requests; `retryAfterMs` from Retry-After when the server sent one (transient). */
export class RateLimitedError extends ApiError {
  readonly kind = "rate-limited";
  override readonly transient = true;
  constructor(
    message: string,
    status: number,
    body: unknown,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, status, body);
  }
}
/** The body is (or announced itself as) larger than the configured cap; reading stopped there. */
export class ResponseTooLargeError extends ApiError {
  readonly kind = "response-too-large";
  constructor(
    message: string,
    status: number,
    readonly limitBytes: number,
  ) {
    super(message, status);
  }
}
/** POST /v1/svcsql answered 404: this data API has no SQL endpoint, so SQL reports cannot run here. */
export class SqlNotSupportedError extends ApiError {
  readonly kind = "sql-not-supported";
}
/** Sign-in: the data API URL entered does not lead to a data API (`cause` says what it answered). */
export class DataUrlError extends ApiError {
  readonly kind = "data-url";
  readonly field = "dataUrl";
  constructor(
    message: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(message, cause instanceof ApiError ? cause.status : 0, cause instanceof ApiError ? cause.body : undefined, { cause });
  }
}
/** Sign-in: no platform API answers at the platform URL entered (e.g. it carries a path). */
export class PlatformUrlError extends ApiError {
  readonly kind = "platform-url";
  readonly field = "baseUrl";
  constructor(
    message: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(message, cause instanceof ApiError ? cause.status : 0, cause instanceof ApiError ? cause.body : undefined, { cause });
  }
}
/** Any other HTTP status. */
export class HttpError extends ApiError {
  readonly kind = "http";
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
