// Issue 12 fault scenarios (test/sync/faults.ts) on the in-memory port and on the Office.js adapter over dev/excel.
import { faultScenarios } from "./faults.ts";
import { devExcelWorkbook, memoryWorkbook } from "./support.ts";

faultScenarios("memory port", memoryWorkbook);
faultScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
