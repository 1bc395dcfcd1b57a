// The short soak (test/soak/soak.ts) in npm test: ~40 s, one fixed seed, both fault modes on.
// Every invariant must hold: a violation names the step, the operation and what broke, and
// `npm run soak -- --seed 20261123 --minutes 1` replays the same run at length.
// Hangs are left out of the short form (each one holds a step until the action deadline); the long
// soak (`npm run soak`) has them.
import { runSoak, SOAK_PLATFORM_RATES } from "./soak.ts";

const SEED = 20261123;

describe("soak (short form)", () => {
  it("holds every invariant over a seeded run of places, refreshes, Stops, checks, edits, inserts, renames and disconnects under faults", async () => {
    const { hang: _hang, ...rates } = SOAK_PLATFORM_RATES;
    const r = await runSoak({ seed: SEED, durationMs: 40_000, platformRates: rates });
    // The run did exercise what it claims to.
    expect(r.steps).toBeGreaterThan(50);
    for (const op of ["place", "refresh", "refreshAllStop", "check", "edit", "disconnect"]) expect(r.operations[op], op).toBeGreaterThan(0);
    expect(r.outcomes["place:placedAsTable"], "placements as Excel tables (issue 33)").toBeGreaterThan(0);
    const injected = Object.values(r.faults.platform).reduce((a, b) => a + b, 0) + Object.values(r.faults.excel).reduce((a, b) => a + b, 0);
    expect(injected).toBeGreaterThan(10);
    expect(r.violations.map((v) => `step ${v.step} ${v.op}: ${v.invariant}: ${v.detail}`)).toEqual([]);
  }, 180_000);
});

describe("soak invariants catch what they guard", () => {
  it.each([
    ["outside", ["outside"]],
    ["denied", ["denied"]],
    ["unrecorded", ["checksum", "falseEdit"]],
  ] as const)(
    "a Cellbound write (%s) is reported",
    async (sabotage, invariants) => {
      const r = await runSoak({ seed: 7, durationMs: 30_000, maxSteps: 25, platformRates: {}, excelRates: {}, sabotage });
      expect(r.operations.place).toBeGreaterThan(0);
      for (const i of invariants) expect(r.violationCounts[i], i).toBeGreaterThan(0);
    },
    120_000,
  );
});
