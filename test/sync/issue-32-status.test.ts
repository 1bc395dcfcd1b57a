// Issue 32: a placement whose input cells hold other values than it shows is never "Up to date" (status.ts).
import { describe, expect, it } from "vitest";
import { placementStatus, type StatusFacts } from "../../src/sync/index.ts";

const clean: StatusFacts = {
  access: "GRANTED",
  missing: false,
  edit: "clean",
  editedRows: [],
  editedRowsExact: true,
  syncStatus: "UP_TO_DATE",
  noAccess: null,
  activity: null,
};

describe("issue 32: the status of a placement with inputs", () => {
  it("issue 32: inputs unchanged → Up to date; changed → Out of date, with the line saying to refresh", () => {
    expect(placementStatus({ ...clean, inputs: { changed: false, problem: null, autoRefresh: false } })).toMatchObject({
      kind: "upToDate",
      lines: [],
    });
    expect(placementStatus({ ...clean, inputs: { changed: true, problem: null, autoRefresh: false } })).toMatchObject({
      kind: "outOfDate",
      label: "Out of date",
      canRefresh: true,
      lines: ["Inputs changed — refresh to show their values."],
    });
    expect(placementStatus({ ...clean, inputs: { changed: true, problem: null, autoRefresh: true } }).lines).toEqual([
      "Inputs changed — refreshing when you stop typing.",
    ]);
  });

  it("issue 32: an input that cannot be used names the cell, once, also after a refresh that was refused for it", () => {
    const problem = "Sheet1!B1 is empty: type a country.";
    const inputs = { changed: true, problem, autoRefresh: false };
    expect(placementStatus({ ...clean, inputs }).lines).toEqual([problem]);
    expect(placementStatus({ ...clean, inputs, activity: { state: "notRefreshed", reason: problem } })).toMatchObject({
      kind: "outOfDate",
      lines: [`Not refreshed: ${problem}`],
    });
  });

  it("issue 32: hand edits still come first, with the inputs' line after them", () => {
    const s = placementStatus({
      ...clean,
      edit: "edited",
      editedRows: [{ from: 5, to: 5 }],
      inputs: { changed: true, problem: null, autoRefresh: false },
    });
    expect(s.kind).toBe("editedByHand");
    expect(s.lines[s.lines.length - 1]).toBe("Inputs changed — refresh to show their values.");
  });
});
