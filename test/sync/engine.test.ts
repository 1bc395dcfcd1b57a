// The sync scenarios on the plain in-memory port (src/host/memory) against the platform stand-in,
// plus the scenarios that need the stand-in's seeded documents (DENIED mix, 422) and upsert 409s.
import { platformScenarios, syncScenarios } from "./scenarios.ts";
import { memoryWorkbook } from "./support.ts";

syncScenarios("memory port", memoryWorkbook);
platformScenarios(memoryWorkbook);
