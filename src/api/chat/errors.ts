// Typed errors of the agent chat API (seed 03 §5.4, §7). The generic HTTP statuses (400, 403, 404,
// 5xx) reuse the management API's classes (same `{error, code?, field?}` body, our choice); a stream
// gone silent is the request layer's TimeoutError.
import { ApiError } from "../errors";

/** §5.4: an authentication failure, sent as a JSON-RPC error object inside an HTTP 200. */
export class ChatAuthError extends ApiError {
  readonly kind = "chat-auth";
  constructor(
    message: string,
    readonly code: number,
    body: unknown,
  ) {
    super(message, 200, body);
  }
}

/** §3/§7: a new message while the thread streams another ("Streaming for thread is in progress"). */
export class ThreadBusyError extends ApiError {
  readonly kind = "chat-busy";
}
