// The platform's limits per workbook (issue 36, item 6; src/sync/limits.ts): what is counted, the
// words of a refusal and of the home when the platform refuses the list. Pure: no port, no platform.
import { describe, expect, it } from "vitest";
import type { ExternalPlacement } from "../../src/api/index.ts";
import { holding, limitReason, unlistedMessage } from "../../src/sync/limits.ts";
import { placementRecord } from "./support.ts";

const records = (count: number, reportOf: (i: number) => number = () => 1) =>
  Array.from({ length: count }, (_, i) => ({ ...placementRecord(`K${i}`), placementId: `P${i}`, reportId: reportOf(i) }));
const listed = (placementId: string, reportId: number): ExternalPlacement =>
  ({ placementId, reportId, deploymentId: 1 }) as ExternalPlacement;
const report = (reportId: number) => ({ deploymentId: 1, reportId, name: "Sales" });

describe("issue 36 item 6: the platform's limits per workbook", () => {
  it("counts a placement the workbook records and the platform lists once, and those only one of them knows", () => {
    const h = holding(records(3), [listed("P0", 1), listed("P9", 7)]);
    expect([h.placements.size, h.reports.size]).toEqual([4, 2]);
    expect(holding([{ ...placementRecord("Q"), placementId: null }]).placements).toEqual(new Set(["k:Q"]));
  });

  it("the 2,000th placement is allowed, the 2,001st refused naming the limit and what to do", () => {
    expect(limitReason(holding(records(1999)), report(1))).toBeNull();
    expect(limitReason(holding(records(2000)), report(1))).toBe(
      "“Sales” was not placed: this workbook already holds 2,000 placements, the most the platform records for one workbook. Disconnect some before placing another.",
    );
    expect(limitReason(holding(records(1999), [listed("X", 1)]), report(1))).toMatch(/already holds 2,000 placements/);
  });

  it("a 501st report is refused; another placement of one of the 500 is not", () => {
    const five = holding(records(500, (i) => i + 1));
    expect(limitReason(five, report(3))).toBeNull();
    expect(limitReason(five, report(501))).toMatch(
      /^“Sales” was not placed: this workbook already holds placements of 500 reports, the most/,
    );
    expect(limitReason(holding(records(499, (i) => i + 1)), report(501))).toBeNull();
  });

  it("the home's message says how many to disconnect when the workbook's own record is over", () => {
    expect(unlistedMessage(records(2003))).toMatch(
      /own record has 2,003 placements of 1 report: .* Disconnect at least 3 placements you no longer need, then check the workbook again\.$/,
    );
    expect(unlistedMessage(records(501, (i) => i))).toMatch(/Disconnect every placement of at least 1 report you no longer need/);
  });
});
