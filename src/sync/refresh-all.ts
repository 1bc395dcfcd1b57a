// Refresh all: every placement of the workbook, queries with bounded concurrency, one writer
// (docs/SYNC.md "Refresh all"). One read of the workbook for every placement, one listing of the
// reports per deployment, then per placement the refresh's own prepare (concurrent) and apply (under the
// lock, read again only when another write came first). A placement whose inputs come from another's
// cells (issue 32) waits for that one and reads its inputs afresh.
import type { Report } from "../api/index.ts";
import { reportsById, untilAborted } from "./context.ts";
import { producersFirst } from "./inputs.ts";
import { producersOf } from "./bind.ts";
import { NotRefreshed, runQueue, type QueueProgress } from "./queue.ts";
import { describeRowList, listingFailed, noAccessReason } from "./reasons.ts";
import { applyRefresh, dataOf, prepareRefresh } from "./refresh.ts";
import { viewOnlyPrefix, viewOnlyReason } from "./access.ts";
import type { Session } from "./session.ts";
import { loadPlacements, type LocalPlacement } from "./state.ts";
import { describeChange, handEditsAt, noAccessPrefix } from "./status.ts";
import type { Engine, PreparedRefresh } from "./types.ts";

export interface RefreshAllOptions {
  signal?: AbortSignal;
  onProgress?: (p: QueueProgress) => void;
  /** False for a placement the pane knows the person may not read (it ends No access, not queued for a query). */
  readable?: (p: LocalPlacement) => boolean;
}

/**
 * Refresh every placement of this workbook. Queries run with bounded concurrency; the sheet
 * has one writer. Hand-edited placements are not overwritten (they end as Not refreshed, with
 * their edited rows); the caller refreshes them one by one. Placements the signed-in user cannot
 * refresh (report not readable, another deployment without a data client) end Not refreshed
 * with the reason — never counted as refreshed.
 *
 * Stop (the signal) stops between placements: queued items and items still querying end
 * "Stopped"; a placement whose write has begun is finished and recorded (docs/SYNC.md).
 */
export async function refreshAll(e: Engine, o: RefreshAllOptions = {}): Promise<QueueProgress> {
  // One read of the workbook for every placement: state, tracking and all their cells.
  const view = await e.session({ trackedValues: "all", writeChecks: true, ...(o.signal ? { signal: o.signal } : {}) });
  const all = await loadPlacements(view);
  const byDeployment = await listReports(e, view, all, o.signal);
  // View only (access.ts): not queued, not counted; each says so.
  const skipped: QueueProgress["items"] = {};
  for (const p of all)
    if (e.viewOnly(p.deploymentId)) skipped[p.key] = { state: "not-refreshed", reason: viewOnlyPrefix + viewOnlyReason() };
  const withSkipped = (q: QueueProgress): QueueProgress => ({ ...q, items: { ...skipped, ...q.items } });
  const onProgress = o.onProgress;
  const queued = all.filter((p) => !skipped[p.key]);
  // Producers first (issue 32): a placement whose inputs lie in another's cells is refreshed after it, on a fresh read.
  const after = await producersOf(view, queued);
  const ended = new Map(queued.map((p) => [p.key, latch()] as const));
  const byKey = new Map(queued.map((p) => [p.key, p]));
  const progress = await runQueue(
    producersFirst([...byKey.keys()], after).map((key) => {
      const p = byKey.get(key)!;
      const end = () => ended.get(key)!.resolve();
      const waits = (after.get(key) ?? []).map((k) => ended.get(k)!.promise);
      return {
        key,
        prepare: async (signal: AbortSignal) => {
          try {
            if (waits.length) await untilAborted(Promise.all(waits), signal);
            return await prepareOne(e, p, byDeployment, waits.length ? null : view, o, signal);
          } catch (err) {
            end();
            throw err;
          }
        },
        // No stop signal here: a write that has begun is finished (an unbounded hang is ended by
        // the API layer's deadlines and the port's sync deadline), so Stop never leaves a placement half written.
        apply: (prep: PreparedRefresh) => applyOne(e, prep, view).finally(end),
      };
    }),
    {
      concurrency: e.ctx.queryConcurrency ?? 2,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(onProgress ? { onProgress: (q: QueueProgress) => onProgress(withSkipped(q)) } : {}),
    },
  );
  return withSkipped(progress);
}

/** A promise and its resolve. */
function latch(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Each deployment's reports attached to the workbook (one paged listing each); a failure is kept for its placements. */
async function listReports(
  e: Engine,
  view: Session,
  all: readonly LocalPlacement[],
  signal?: AbortSignal,
): Promise<Map<number, Map<number, Report> | Error>> {
  const identity = await view.identity();
  const byDeployment = new Map<number, Map<number, Report> | Error>();
  for (const id of new Set(all.map((p) => p.deploymentId))) {
    try {
      byDeployment.set(id, await reportsById(e.ctx, id, identity.workbookId, signal));
    } catch (err) {
      if (signal?.aborted) throw err;
      byDeployment.set(id, err as Error);
    }
  }
  return byDeployment;
}

/** A placement's query, or why it cannot be refreshed (no access, a listing that failed, no data client). */
function prepareOne(
  e: Engine,
  p: LocalPlacement,
  byDeployment: Map<number, Map<number, Report> | Error>,
  view: Session | null,
  o: RefreshAllOptions,
  signal: AbortSignal,
): Promise<PreparedRefresh> {
  const reports = byDeployment.get(p.deploymentId);
  if (reports instanceof Error) throw listingFailed(reports, p, e.ctx);
  const report = reports?.get(p.reportId);
  if (!report || o.readable?.(p) === false) throw new NotRefreshed(`${noAccessPrefix}${noAccessReason(p, e.ctx)}`);
  try {
    dataOf(e.ctx, p);
  } catch (err) {
    throw new NotRefreshed(`${noAccessPrefix}${(err as Error).message}`);
  }
  return prepareRefresh(e, p.key, report, signal, view ?? undefined);
}

/** Write one placement's answer ("ask": a placement edited by hand is left, with its rows named). */
async function applyOne(e: Engine, prep: PreparedRefresh, view: Session): Promise<string> {
  // Another operation of this engine wrote since the read: read this placement again (applyRefresh does).
  const out = await applyRefresh(e, prep, "ask", undefined, view);
  switch (out.kind) {
    case "refreshed":
      return describeChange(out.stats);
    case "handEdited":
      throw new NotRefreshed(
        out.edits.structure
          ? `${handEditsAt(out.edits.structure, out.edits.rows, prep.placement.anchorCell)}; refresh it on its own to choose overwrite or keep.`
          : `Edited by hand (${describeRowList(out.edits.rows, prep.placement)}); refresh it on its own to choose overwrite or keep.`,
      );
    case "cannotGrow":
    case "missing":
      throw new NotRefreshed(out.reason);
    case "kept":
      return "Kept edits";
  }
}
