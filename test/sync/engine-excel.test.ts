// The same sync scenarios through the real Office.js adapter (src/host/excel) running on dev/excel,
// the Excel stand-in, against the platform stand-in.
import { syncScenarios } from "./scenarios.ts";
import { devExcelWorkbook } from "./support.ts";

syncScenarios("Office.js adapter on dev/excel", devExcelWorkbook);
