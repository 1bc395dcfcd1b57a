// Issue 32 (test/sync/issue-32-inputs.ts) on the in-memory port and on the Office.js adapter over dev/excel.
import { inputScenarios } from "./issue-32-inputs.ts";
import { devExcelWorkbook, memoryWorkbook } from "./support.ts";

inputScenarios("memory port", memoryWorkbook);
inputScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
