// How the adapter reads Office errors: RichApi.Error carries a code (InvalidArgument, ItemNotFound,
// RequestPayloadSizeLimitExceeded, …) on `code` (and on `debugInfo.code`).

import { DataChangedError } from "../port.ts";

export function officeErrorCode(e: unknown): string | null {
  if (!e || typeof e !== "object") return null;
  const code = (e as { code?: unknown }).code ?? (e as { debugInfo?: { code?: unknown } }).debugInfo?.code;
  return typeof code === "string" ? code : null;
}

/** A request or response too large for one sync (Excel on the web caps both at 5 MB). */
export function isPayloadTooLarge(e: unknown): boolean {
  const code = officeErrorCode(e);
  return code === "RequestPayloadSizeLimitExceeded" || code === "ResponsePayloadSizeLimitExceeded";
}

/** An Office error re-thrown with what the adapter was doing, keeping the code. */
export class HostError extends Error {
  override name = "HostError";
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function wrap(e: unknown, doing: string): never {
  if (e instanceof HostError || e instanceof DataChangedError) throw e; // a co-author's change: the caller merges and retries
  const code = officeErrorCode(e) ?? "Unknown";
  if (code === "InvalidOperationInCellEditMode")
    throw new HostError(
      code,
      `Excel did not run "${doing}" while a cell is being edited: finish editing the cell (Enter or Esc), then try again.`,
      {
        cause: e,
      },
    );
  throw new HostError(code, `${doing}: ${(e as Error)?.message ?? String(e)} (${code})`, { cause: e });
}
