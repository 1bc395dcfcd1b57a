// Issue 36 items 7, 8 and 10 (test/sync/issue-36-words.ts) on the in-memory port and on the Office.js adapter over dev/excel.
import { wordScenarios } from "./issue-36-words.ts";
import { devExcelWorkbook, memoryWorkbook } from "./support.ts";

wordScenarios("memory port", memoryWorkbook);
wordScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
