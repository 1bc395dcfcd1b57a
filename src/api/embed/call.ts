// One authorized call to an embed endpoint: `Authorization: Embed-Token <t>` from an EmbedSession,
// the status checked before the body is used (an error body is never a comment, §7), the body
// checked against its schema, transient failures retried when the call is idempotent, and on a 401
// one fresh session minted and exchanged before the one retry (a revoked or lapsed token).
import type { z } from "zod";
import { UnauthorizedError } from "../errors";
import { buildUrl, parseBody, send, type FetchLike } from "../http";
import { managementError } from "../management-client";
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from "../retry";
import type { EmbedTokenSource } from "./session";

export interface EmbedCallContext {
  baseUrl: string;
  session: EmbedTokenSource;
  fetch: FetchLike;
  retry: RetryPolicy;
}

export function embedContext(o: { baseUrl: string; session: EmbedTokenSource; fetch?: FetchLike; retry?: Partial<RetryPolicy> }): EmbedCallContext {
  return { baseUrl: o.baseUrl, session: o.session, fetch: o.fetch ?? ((u, i) => fetch(u, i)), retry: { ...DEFAULT_RETRY, ...o.retry } };
}

export interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** Repeat on network/5xx failures (false for POST of a comment and DELETE: not idempotent). */
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
  const once = async (): Promise<z.output<S>> => {
    const token = (used = await ctx.session.getToken(o.signal));
    const res = await send({
      fetch: ctx.fetch, method, url: buildUrl(ctx.baseUrl, path, o.query),
      authorization: `Embed-Token ${token}`, body: o.body, signal: o.signal,
    });
    if (res.status < 200 || res.status > 299) throw managementError(res.status, res.json, what);
    return (schema === null ? undefined : parseBody(schema, res.json, what, res.status)) as z.output<S>;
  };
  const attempt = () => (o.idempotent ? withRetry(ctx.retry, once, o.signal) : once());
  try {
    return await attempt();
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || o.signal?.aborted) throw e;
    ctx.session.invalidate?.(used);
    return attempt();
  }
}
