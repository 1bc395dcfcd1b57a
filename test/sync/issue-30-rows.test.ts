// Issue 30 §1 (test/sync/issue-30-rows.ts) on the in-memory port and on the Office.js adapter over dev/excel.
import { rowScenarios } from "./issue-30-rows.ts";
import { devExcelWorkbook, memoryWorkbook } from "./support.ts";

rowScenarios("memory port", memoryWorkbook);
rowScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
