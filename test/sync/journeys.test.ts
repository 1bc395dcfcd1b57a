// The workbook journeys (test/sync/journeys.ts) in npm test: one fixed seed and budget per workbook kind (the
// memory port; the Office.js adapter over dev/excel). A violation fails the test with fast-check's seed, path and
// shrunk counterexample, and the journey's trace; `npm run journeys -- --port memory --seed <seed> --path <path>`
// replays it. The longer run: `npm run journeys -- --runs N --seed S`.
import { describe, expect, it } from "vitest";
import { INSIDE_STRUCTURAL, runJourneys, type JourneyOptions } from "./journeys.ts";
import { devExcelWorkbook, memoryWorkbook, useEnv, type WorkbookKind } from "./support.ts";

export const JOURNEY_SEED = 20261130;
/** Sized for about 30–40 s per kind on the 2-core machine under the usual load (measured: docs/SYNC.md "Workbook journeys"). */
export const JOURNEY_BUDGET = { runs: 25, steps: 30 } as const;

/** What every default run must have done, or it did not test what it claims to. */
const STEPS = ["place", "refresh", "refreshAll", "check", "disconnect", "editInside", "clearRowInside", "insertRowsAbove", "reportChanges"];

function journeys(label: string, port: string, kind: WorkbookKind): void {
  describe(`workbook journeys (${label})`, () => {
    const env = useEnv();
    it(`keep the promise over ${JOURNEY_BUDGET.runs} journeys of up to ${JOURNEY_BUDGET.steps} steps (seed ${JOURNEY_SEED})`, async () => {
      const o: JourneyOptions = { seed: JOURNEY_SEED, ...JOURNEY_BUDGET, timeLimitMs: 240_000 };
      const r = await runJourneys(env(), kind, o);
      if (r.failure)
        throw new Error(
          `${r.failure}\n\nReplay: npm run journeys -- --port ${port} --seed ${o.seed} --runs ${o.runs} --steps ${o.steps} (add --path from above for the shrunk journey alone)`,
        );
      expect(r.stats.runs).toBeGreaterThanOrEqual(JOURNEY_BUDGET.runs);
      for (const step of STEPS) expect(r.stats.ops[step], step).toBeGreaterThan(0);
      // The person acted while Cellbound waited, and the platform's record failed, more than once each.
      const during = Object.entries(r.stats.ops).filter(([k]) => k.startsWith("during:"));
      expect(during.reduce((n, [, v]) => n + v, 0)).toBeGreaterThan(10);
      expect((r.stats.ops["fault:5xx"] ?? 0) + (r.stats.ops["fault:drop"] ?? 0)).toBeGreaterThan(2);
      // Rows and columns inserted and deleted inside a placement (issue 30): the default run makes each of them.
      const inside = Object.keys(r.stats.ops).filter((k) => /Inside$/.test(k) && /^(insert|delete)/.test(k));
      expect(inside.sort()).toEqual(
        INSIDE_STRUCTURAL ? ["deleteColumnInside", "deleteRowInside", "insertColumnInside", "insertRowInside"] : [],
      );
    }, 300_000);
  });
}

journeys("memory port", "memory", memoryWorkbook);
journeys("Office.js adapter on dev/excel", "excel", devExcelWorkbook);

describe("workbook journeys: the promise catches what it guards", () => {
  const env = useEnv();
  it.each([
    ["outside", "a stray cell written beside every placement"],
    ["stale", "a shrink's clears dropped"],
    ["clobber", "Keep my edits carried out as Overwrite"],
    ["grid", "a placement's cell changed after its write"],
  ] as const)(
    "%s: %s",
    async (sabotage, _what) => {
      const r = await runJourneys(env(), memoryWorkbook, { seed: 7, runs: 40, steps: 30, sabotage, shrink: false });
      expect(r.failure).toMatch(new RegExp(`^${sabotage}: `, "m"));
    },
    120_000,
  );
});
