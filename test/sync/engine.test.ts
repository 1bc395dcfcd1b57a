// The sync scenarios on the plain in-memory port (src/host/memory) against the platform stand-in.
import { syncScenarios } from "./scenarios.ts";
import { memoryWorkbook } from "./support.ts";

syncScenarios("memory port", memoryWorkbook);
