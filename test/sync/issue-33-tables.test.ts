// Issue 33 (test/sync/issue-33-tables.ts) on the in-memory port and on the Office.js adapter over dev/excel.
import { tableScenarios } from "./issue-33-tables.ts";
import { devExcelWorkbook, memoryWorkbook } from "./support.ts";

tableScenarios("memory port", memoryWorkbook, false);
tableScenarios("Office.js adapter on dev/excel", devExcelWorkbook, true);
