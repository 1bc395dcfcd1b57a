// Who may change a placement (docs/SYNC.md "View-only placements"). Pure: no port, no network.
//
// The platform's rules (docs/API.md "Access model"): refresh, connect and disconnect need read
// access to the report AND the admin or editor role in its deployment. The role comes from the
// sign-in (GET /api/v1/deployments lists the caller's role per deployment). When nothing tells,
// a 403 on a placement's record is the proof: the engine remembers it for the deployment.
//
// A placement the user may read but not change is view only: never written, never recorded,
// never disconnected, never counted by Refresh all (it is skipped and says so).
import { ForbiddenError } from "../api/errors.ts";
import type { DeploymentRole } from "../api/schemas/management.ts";

export type { DeploymentRole };

/** Reasons of Refresh-all items skipped as view only start with this (the pane tells them apart). */
export const viewOnlyPrefix = "View only: ";

/** Whether a role may refresh, connect or disconnect placements. Unknown (undefined): try; a 403 decides. */
export function mayChangePlacements(role: DeploymentRole | undefined): boolean {
  return role !== "viewer";
}

/**
 * The one rule of a role that may not change placements, said before the person acts: beside the
 * disabled Place buttons, at the top of the builder (Save is disabled), beside the disabled Refresh
 * all, and by the command line's place (issue 31 item 3). A placement's own card says viewOnlyReason.
 */
export function viewerRule(deploymentName?: string | null): string {
  const where = deploymentName ? ` in ${deploymentName}` : " in this deployment";
  return `You are a viewer${where}: you can open its reports but not place, refresh or save them — ask an admin for the editor role.`;
}

/** The rule for a role, when it limits what the person may do (viewer); null when it does not or is not known. */
export function roleLimit(role: DeploymentRole | undefined, deploymentName?: string | null): string | null {
  return mayChangePlacements(role) ? null : viewerRule(deploymentName);
}

export interface Owner {
  name: string | null;
  email: string | null;
}

/** "ask Ana Analyst (ana@x.test) or an admin" — who can change it, in words. */
function askWhom(owner: Owner | null | undefined): string {
  if (!owner?.name && !owner?.email) return "ask the report's owner or an admin";
  const who = owner.name ? `${owner.name}${owner.email ? ` (${owner.email})` : ""}` : owner.email!;
  return `ask ${who} or an admin`;
}

/** The one sentence a view-only placement shows (card, Refresh-all item, a refused Refresh). */
export function viewOnlyReason(owner?: Owner | null): string {
  return `You can view this report but not refresh it — ${askWhom(owner)}.`;
}

/** The platform refused to record a write (a 403): the role changed, or the user never had edit rights. */
export function isRefusal(e: unknown): boolean {
  return e instanceof ForbiddenError;
}

/**
 * What a refused record says, after the cells were put back as they were (`restored`) or when they
 * could not be (`restored: false`, the placement is then left Interrupted for someone who may refresh).
 */
export function refusedRecordReason(reportName: string | null, restored: boolean, owner?: Owner | null): string {
  const what = reportName ? `“${reportName}”` : "this report";
  const head = `The platform did not let you record the refresh of ${what}: your role in its deployment does not allow changing placements (it may have changed just now).`;
  return restored
    ? `${head} Its cells were put back as they were. ${viewOnlyReason(owner)}`
    : `${head} The new values stay in the cells but are not recorded; someone who may refresh it can finish it — ${askWhom(owner)}.`;
}
