// One authorized call to an embed endpoint: `Authorization: Embed-Token <t>` from an EmbedSession,
// a deadline on every attempt and a budget on the whole call (src/api/deadlines.ts), the status
// checked before the body is used (an error body is never a comment, §7), the body checked against
// its schema, transient failures retried when the call is idempotent, and on a 401 one fresh session
// minted and exchanged before the one retry (a revoked or lapsed token).
import type { z } from "zod";
import { UnauthorizedError } from "../errors";
import { buildUrl, errorDetails, parseBody, parseJsonBody, sendRaw, type FetchLike } from "../http";
import { managementError } from "../management-client";
import { withRetry } from "../retry";
import { DEFAULT_RETRY, deadlinesWith, type Deadlines, type RetryPolicy } from "../deadlines";
import type { EmbedTokenSource } from "./session";

export interface EmbedCallContext {
  baseUrl: string;
  session: EmbedTokenSource;
  fetch: FetchLike;
  retry: RetryPolicy;
  deadlines: Deadlines;
}

export interface EmbedContextOptions {
  baseUrl: string;
  session: EmbedTokenSource;
  fetch?: FetchLike;
  retry?: Partial<RetryPolicy>;
  deadlines?: Partial<Deadlines>;
}

export function embedContext(o: EmbedContextOptions): EmbedCallContext {
  return {
    baseUrl: o.baseUrl,
    session: o.session,
    fetch: o.fetch ?? ((u, i) => fetch(u, i)),
    retry: { ...DEFAULT_RETRY, ...o.retry },
    deadlines: deadlinesWith(o.deadlines),
  };
}

export interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** Repeat on network/5xx/timeout failures (false for POST of a comment and DELETE: not idempotent). */
  idempotent: boolean;
}

export async function embedCall<S extends z.ZodType>(
  ctx: EmbedCallContext,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  schema: S | null,
  o: CallOptions,
): Promise<z.output<S>> {
  const what = `${method} ${path}`;
  let used: string | undefined;
  const once = async (deadlineMs: number): Promise<z.output<S>> => {
    const token = (used = await ctx.session.getToken(o.signal));
    const res = await sendRaw({
      fetch: ctx.fetch,
      method,
      url: buildUrl(ctx.baseUrl, path, o.query),
      authorization: `Embed-Token ${token}`,
      body: o.body,
      signal: o.signal,
      deadlineMs,
      maxBytes: ctx.deadlines.maxResponseBytes,
    });
    if (res.status < 200 || res.status > 299) {
      const d = errorDetails(res.bytes);
      throw managementError(res.status, d.json, what, "other", { excerpt: d.message, headers: res.headers });
    }
    return (schema === null ? undefined : parseBody(schema, parseJsonBody(res, what), what, res.status)) as z.output<S>;
  };
  // Not idempotent: one attempt, still bounded by the call's budget.
  const policy = o.idempotent ? ctx.retry : { ...ctx.retry, maxAttempts: 1 };
  const attempt = () => withRetry(policy, (_n, c) => once(c.deadlineMs), o.signal, { what, attemptMs: ctx.deadlines.managementAttemptMs });
  try {
    return await attempt();
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || o.signal?.aborted) throw e;
    ctx.session.invalidate?.(used);
    return attempt();
  }
}
