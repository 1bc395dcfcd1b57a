import { runSoak } from "../test/soak/soak.ts";
const r = await runSoak({ seed: Number(process.argv[2]), durationMs: 600_000, maxSteps: Number(process.argv[3]), log: (l) => { if (/✗|place failed|refresh failed/.test(l)) console.log(l); } });
console.log("violations", r.violations.length);
process.exit(0);
