// Issue 25 §4: the builder's date range accepts what its placeholder suggests — relative ranges in
// words as Cube documents them — or a from–to pair; anything else is refused beside the field
// (src/taskpane/builder/query.ts) before a request is made. The stand-in resolves relative ranges.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDateRange, resolveRelativeRange } from "../../src/api/date-range.ts";
import { dateRangeProblem, emptyBuilder, toQuery } from "../../src/taskpane/builder/query.ts";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server.ts";
import { createDataClient, createDeploymentTokenManager, createPlatformClient } from "../../src/api/index.ts";

describe("date ranges as typed", () => {
  it("relative ranges, one date, a pair; a reversed pair and words it does not know are refused with what to type", () => {
    expect(parseDateRange("  Last 12   months ")).toEqual({ ok: true, value: "last 12 months" });
    for (const s of ["today", "yesterday", "this year", "last week", "last quarter", "last 7 days", "from 3 months ago to now"])
      expect(parseDateRange(s)).toEqual({ ok: true, value: s });
    expect(parseDateRange("2025-01-31")).toEqual({ ok: true, value: "2025-01-31" });
    expect(parseDateRange("2025-01-01 to 2025-06-30")).toEqual({ ok: true, value: ["2025-01-01", "2025-06-30"] });
    expect(parseDateRange("2025-01-01 – 2025-06-30")).toEqual({ ok: true, value: ["2025-01-01", "2025-06-30"] });
    expect(parseDateRange("2025-06-30 to 2025-01-01")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ends .* before it starts/),
    });
    expect(parseDateRange("since the spring")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/“since the spring”.*last 12 months/),
    });
  });

  it("resolves against today: last N units are whole units before the current one", () => {
    const now = new Date("2026-11-24T17:00:00Z"); // a Tuesday
    expect(resolveRelativeRange("last 12 months", now)).toEqual(["2025-11-01", "2026-10-31"]);
    expect(resolveRelativeRange("this year", now)).toEqual(["2026-01-01", "2026-12-31"]);
    expect(resolveRelativeRange("last week", now)).toEqual(["2026-11-16", "2026-11-22"]);
    expect(resolveRelativeRange("last quarter", now)).toEqual(["2026-07-01", "2026-09-30"]);
    expect(resolveRelativeRange("yesterday", now)).toEqual(["2026-11-23", "2026-11-23"]);
    expect(resolveRelativeRange("from 7 days ago to now", now)).toEqual(["2026-11-17", "2026-11-24"]);
  });

  it("the builder sends the parsed range and names a bad one beside the field", () => {
    const s = { ...emptyBuilder("orders"), measures: ["orders.count"], timeDimension: "orders.created_at", granularity: "month" };
    expect(toQuery({ ...s, dateRange: "last 12 months" }).timeDimensions[0]!.dateRange).toBe("last 12 months");
    expect(toQuery({ ...s, dateRange: "2025-01-01 to 2025-03-31" }).timeDimensions[0]!.dateRange).toEqual(["2025-01-01", "2025-03-31"]);
    expect(dateRangeProblem({ ...s, dateRange: "last 12 months" })).toBeNull();
    expect(dateRangeProblem({ ...s, dateRange: "a while" })).toMatch(/not a date range/);
  });
});

describe("the stand-in's /v1/load with a relative range", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startPlatform({ log: () => {} });
  });
  afterAll(async () => {
    await p?.close();
  });
  it("answers 'last 12 months' and 'this year' (no 400 Unsupported date range value)", async () => {
    const client = createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.analyst });
    const data = createDataClient({ dataUrl: p.info.dataUrl, token: createDeploymentTokenManager({ client, deploymentId: 1 }) });
    for (const dateRange of ["last 12 months", "this year"]) {
      const r = await data.load({
        measures: ["orders.count"],
        timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange }],
      });
      expect(JSON.stringify(r.query)).toContain(`${new Date().getUTCFullYear() - (dateRange === "this year" ? 0 : 1)}-`); // resolved to dates
    }
  });
});
