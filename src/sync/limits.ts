// The platform's limits per workbook (issue 36, item 6). The platform records at most 500 placed
// reports and 2,000 placements for one external document (seeds 01 §4.1, §8); over either, it lists
// none of the document's placements (422). So a placement that would pass a limit is refused before
// anything is written, counting what is known without another round trip:
//   - what the workbook holds: its placement records (every deployment's and every person's: the
//     store is the file's), read in the placement's own snapshot (state.ts addPlacement);
//   - what the platform said of it, when already at hand: the last list a check or the home read for
//     this engine (the pane reads it on every home reload), or its 422 — checked at the start of place,
//     before the report's data is fetched.
// When the platform refuses the list, the home keeps listing the workbook's own placements with a
// message that says what to do (check.ts home()).
import { LIMITS, type ExternalPlacement } from "../api/index.ts";

/** What the limits count of a placement record (a LocalPlacement of state.ts has these). */
export interface PlacementRecord {
  key: string;
  placementId: string | null;
  deploymentId: number;
  reportId: number;
}

/** A placement refused because the workbook is at one of the platform's limits; the message says which and what to do. */
export class PlacementLimitReached extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlacementLimitReached";
  }
}

const n = (k: number) => k.toLocaleString("en-US");

/** What a workbook holds: its placements (by platform id, or local key when not recorded) and placed reports. */
export interface Holding {
  placements: Set<string>;
  reports: Set<string>;
}

const reportKey = (deploymentId: number, reportId: number) => `${deploymentId}:${reportId}`;

/** The union of the workbook's records and the platform's list of it (a placement in both counts once). */
export function holding(records: readonly PlacementRecord[], listed: readonly ExternalPlacement[] = []): Holding {
  const h: Holding = { placements: new Set(), reports: new Set() };
  for (const p of records) {
    h.placements.add(p.placementId ? `p:${p.placementId}` : `k:${p.key}`);
    h.reports.add(reportKey(p.deploymentId, p.reportId));
  }
  for (const x of listed) {
    h.placements.add(`p:${x.placementId}`);
    h.reports.add(reportKey(x.deploymentId, x.reportId));
  }
  return h;
}

/**
 * Why one more placement of the report (deploymentId, reportId) would pass a limit, in words naming the
 * report and the limit and saying what to do; null when it would not.
 */
export function limitReason(h: Holding, report: { deploymentId: number; reportId: number; name: string | null }): string | null {
  const what = `“${report.name ?? "The report"}” was not placed`;
  const placements = h.placements.size;
  if (placements >= LIMITS.placementsMax)
    return `${what}: this workbook already holds ${n(placements)} placements, ${
      placements === LIMITS.placementsMax ? "the most" : `more than the ${n(LIMITS.placementsMax)}`
    } the platform records for one workbook. Disconnect some before placing another.`;
  const reports = h.reports.size;
  if (reports >= LIMITS.placedExplorationsMax && !h.reports.has(reportKey(report.deploymentId, report.reportId)))
    return `${what}: this workbook already holds placements of ${n(reports)} reports, ${
      reports === LIMITS.placedExplorationsMax ? "the most" : `more than the ${n(LIMITS.placedExplorationsMax)}`
    } the platform records for one workbook. Disconnect the placements of a report you no longer need before placing another report (more placements of a report already placed are fine).`;
  return null;
}

/** The words of a refusal when the platform already refused the workbook's list (422). */
export function overLimitReason(name: string | null): string {
  return `“${name ?? "The report"}” was not placed: this workbook holds more than the platform records for one workbook (${n(
    LIMITS.placedExplorationsMax,
  )} placed reports or ${n(LIMITS.placementsMax)} placements), so the platform lists none of its placements. Disconnect some before placing another.`;
}

/**
 * The home's message when the platform refused the workbook's list (422): what happened, what the
 * cards are, and how many to disconnect when the workbook's own records say.
 */
export function unlistedMessage(records: readonly PlacementRecord[]): string {
  const h = holding(records);
  const overPlacements = h.placements.size - LIMITS.placementsMax;
  const overReports = h.reports.size - LIMITS.placedExplorationsMax;
  const held = `This workbook's own record has ${n(h.placements.size)} placement${h.placements.size === 1 ? "" : "s"} of ${n(
    h.reports.size,
  )} report${h.reports.size === 1 ? "" : "s"}: the cards below; what the platform holds of them is unknown.`;
  const todo =
    overPlacements > 0
      ? `Disconnect at least ${n(overPlacements)} placement${overPlacements === 1 ? "" : "s"} you no longer need`
      : overReports > 0
        ? `Disconnect every placement of at least ${n(overReports)} report${overReports === 1 ? "" : "s"} you no longer need`
        : "Disconnect placements you no longer need";
  return `The platform lists none of this workbook's placements: it records at most ${n(LIMITS.placementsMax)} placements and ${n(
    LIMITS.placedExplorationsMax,
  )} placed reports for one workbook, and it holds more for this one. ${held} ${todo}, then check the workbook again.`;
}

/** What an engine last learnt of its workbook: its records and the platform's list ("over": refused, 422; null: unknown). */
interface Seen {
  records: readonly PlacementRecord[];
  listed: readonly ExternalPlacement[] | "over" | null;
}

const seen = new WeakMap<object, Seen>();

/** A check or the home read the workbook's records and the platform's list of it (check.ts). */
export function noteSeen(engine: object, records: readonly PlacementRecord[], listed: Seen["listed"]): void {
  seen.set(engine, { records, listed });
}

/** The workbook's id changed (a fork): what was seen is another workbook's. */
export function forgetSeen(engine: object): void {
  seen.delete(engine);
}

/**
 * At the start of place, before the report's data is fetched: refuse when what this engine last saw
 * of the workbook (its records, the platform's list or its 422) is at a limit. Nothing is read: a
 * placement made since is counted by the record's own check (state.ts addPlacement).
 */
export function refuseOverLimits(engine: object, report: { deploymentId: number; reportId: number; name: string | null }): void {
  const s = seen.get(engine);
  if (!s) return;
  if (s.listed === "over") throw new PlacementLimitReached(overLimitReason(report.name));
  const why = limitReason(holding(s.records, s.listed ?? []), report);
  if (why) throw new PlacementLimitReached(why);
}
