// Issue 36 items 1–4 and 15–17 (test/sync/issue-36-clobber.ts) on the in-memory port and on the Office.js adapter over dev/excel.
import { clobberScenarios } from "./issue-36-clobber.ts";
import { devExcelWorkbook, memoryWorkbook } from "./support.ts";

clobberScenarios("memory port", memoryWorkbook);
clobberScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
