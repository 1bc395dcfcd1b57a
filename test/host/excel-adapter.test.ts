// The SheetPort contract suite against the Office.js adapter on dev/excel, in Node (quick feedback;
// the same run in Chromium is excel-adapter.browser.test.ts).
import { CONTRACT_CHECKS, runCheck } from "../../src/host/contract/index.ts";
import { HOSTILE_STRINGS } from "./fixtures/hostile-strings.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

describe("SheetPort contract: Office.js adapter on dev/excel (node)", () => {
  for (const c of CONTRACT_CHECKS) {
    it(c.name, async () => {
      const { port, driver } = adapterOnDevExcel();
      const r = await runCheck(c, { port, driver, hostileStrings: HOSTILE_STRINGS });
      expect(r.detail ?? "").toBe("");
      expect(r.status).toBe("pass");
    });
  }
});
