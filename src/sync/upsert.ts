// Upsert semantics (seeds 01 §4.1, upsert rules 1–5) on top of the API client.
//
//   - PUT by-public-id is idempotent: a retry of the same request changes nothing, so every
//     transient failure may simply be repeated.
//   - 409 without code (the publicId belongs to a report in another deployment, e.g. the
//     workbook moved deployments): choose a new publicId, say so in `notices`, carry on.
//   - 409 upsert_branch_changed (transient): retried with jittered backoff. The client already
//     retries it within its own policy; this layer adds a bounded outer round so a burst of
//     concurrent writers does not surface as a failure.
//   - 409 ambiguous_legacy_id (permanent): stop with UpsertStopped; the caller may offer
//     assignNewPublicId (PUT by reportId with an id of our own).
import {
  AmbiguousLegacyIdError,
  PublicIdInOtherDeploymentError,
  RetryExhaustedError,
  UpsertBranchChangedError,
  backoffDelay,
  generatePublicId,
  type PlatformClient,
  type Report,
  type ReportInput,
} from "../api/index.ts";
import { sleep } from "../api/retry.ts";

export interface UpsertOutcome {
  report: Report;
  /** The publicId finally used (differs from the requested one after a 409 without code). */
  publicId: string;
  /** Things the user should be told, e.g. that a new publicId was chosen. */
  notices: string[];
}

/** A permanent upsert failure the user must decide about. */
export class UpsertStopped extends Error {
  constructor(
    message: string,
    readonly reason: "ambiguous-legacy-id",
    /** What the caller can offer: assign a new publicId through PUT by reportId. */
    readonly offer: "assign-new-public-id",
    readonly publicId: string,
  ) {
    super(message);
    this.name = "UpsertStopped";
  }
}

export interface UpsertOptions {
  signal?: AbortSignal;
  newPublicId?: () => string;
  /** Outer rounds for upsert_branch_changed after the client's own retries (default 3). */
  branchRounds?: number;
  /** New publicIds tried after 409-without-code before giving up (default 3). */
  idAttempts?: number;
}

const isBranchChanged = (e: unknown) =>
  e instanceof UpsertBranchChangedError || (e instanceof RetryExhaustedError && e.cause instanceof UpsertBranchChangedError);

export async function upsertReport(
  client: Pick<PlatformClient, "upsertReport">,
  deploymentId: number,
  publicId: string,
  input: ReportInput,
  o: UpsertOptions = {},
): Promise<UpsertOutcome> {
  const notices: string[] = [];
  const newId = o.newPublicId ?? (() => generatePublicId());
  let id = publicId;
  let idAttempts = 0;
  let round = 0;
  for (;;) {
    try {
      const report = await client.upsertReport(deploymentId, id, { ...input, publicId: id }, o.signal);
      return { report, publicId: id, notices };
    } catch (e) {
      if (e instanceof PublicIdInOtherDeploymentError && idAttempts < (o.idAttempts ?? 3)) {
        idAttempts++;
        const next = newId();
        notices.push(
          `The id ${id} already belongs to a report in another deployment (this workbook may have moved deployments); Cellbound chose the new id ${next} for this report.`,
        );
        id = next;
        continue;
      }
      if (isBranchChanged(e) && round < (o.branchRounds ?? 3)) {
        await sleep(backoffDelay({ maxAttempts: 0, maxElapsedMs: 0, baseDelayMs: 250, maxDelayMs: 4_000 }, round), o.signal);
        round++;
        continue;
      }
      if (e instanceof AmbiguousLegacyIdError) {
        throw new UpsertStopped(
          `The report id ${id} is a placeholder shared by several older reports, so the platform cannot tell which one is meant; nothing was changed. Assign this report a new id of its own to continue.`,
          "ambiguous-legacy-id",
          "assign-new-public-id",
          id,
        );
      }
      throw e;
    }
  }
}

/** The way out of ambiguous_legacy_id: give the report (known by reportId) an id of our own. */
export async function assignNewPublicId(
  client: Pick<PlatformClient, "updateReport">,
  deploymentId: number,
  reportId: number,
  o: { signal?: AbortSignal; newPublicId?: () => string } = {},
): Promise<Report> {
  const id = (o.newPublicId ?? (() => generatePublicId()))();
  return client.updateReport(deploymentId, reportId, { publicId: id }, o.signal);
}
