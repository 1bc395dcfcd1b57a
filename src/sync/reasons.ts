// Why a placement could not be refreshed, in words people read (Refresh all's reasons, refresh's NoAccess).
import { ApiError, ForbiddenError, NotFoundError } from "../api/index.ts";
import type { SyncContext } from "./context.ts";
import { NotRefreshed } from "./queue.ts";
import type { LocalPlacement } from "./state.ts";
import { noAccessPrefix } from "./status.ts";

export function deploymentLabel(p: LocalPlacement, ctx: SyncContext): string {
  const name = ctx.deploymentNames?.(p.deploymentId) ?? p.deploymentName ?? null;
  return name ? `deployment ${name}` : "another deployment";
}

export function noAccessReason(p: LocalPlacement, ctx: SyncContext): string {
  return `you cannot read ${p.reportName ? `the report ${p.reportName}` : "this report"} in ${deploymentLabel(p, ctx)} (it was deleted, or it is not shared with you).`;
}

/**
 * Refresh all could not list a deployment's reports. A 403 or 404 means this user cannot read them:
 * No access. Anything else did not say so — no answer, a server error, a deadline: the item failed,
 * says what happened, and Refresh stays offered (issue 36, item 7).
 */
export function listingFailed(e: Error, p: LocalPlacement, ctx: SyncContext): Error {
  if (e instanceof ForbiddenError || e instanceof NotFoundError) return new NotRefreshed(`${noAccessPrefix}${noAccessReason(p, ctx)}`);
  const what = p.reportName ? `the report ${p.reportName}` : "this report";
  const why = unreachable(e);
  return new Error(
    why
      ? `Could not reach the platform to look up ${what}: ${why}. Nothing was changed; try again.`
      : `Could not look up ${what} on the platform: ${e.message}`,
  );
}

/** Why the platform could not be reached, in words; null when it answered and refused. */
export function unreachable(e: unknown): string | null {
  if (!(e instanceof ApiError)) return null;
  if (e.kind === "retry-exhausted") return unreachable(e.cause);
  if (e.kind === "network") return "there was no answer (the network or the platform is down)";
  if (e.kind === "server") return "it answered with a server error";
  if (e.kind === "timeout") return "it did not answer in time";
  if (e.kind === "rate-limited") return "it asked Cellbound to slow down";
  return null;
}

/** "rows 3–7 and 12" as sheet rows, for reasons (exact rows relative to the placement). */
export function describeRowList(rows: readonly { from: number; to: number }[], p: LocalPlacement): string {
  const top = parseCellRow(p.anchorCell);
  const parts = rows.map((r) => (r.from === r.to ? `${top + r.from}` : `${top + r.from}–${top + r.to}`));
  return `${parts.length === 1 && rows[0]!.from === rows[0]!.to ? "row" : "rows"} ${parts.join(", ")}`;
}

export function parseCellRow(a1: string): number {
  return Number(/\d+$/.exec(a1)?.[0] ?? "1");
}
