// The SheetPort contract suite against the Office.js adapter on dev/excel, as vitest tests.
// Registered by excel-adapter.test.ts (Node) and excel-adapter.browser.test.ts (Chromium).
import { CONTRACT_CHECKS, runCheck } from "../../src/host/contract/index.ts";
import { HOSTILE_STRINGS } from "./fixtures/hostile-strings.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

export function adapterContractTests(): void {
  for (const c of CONTRACT_CHECKS) {
    it(c.name, async () => {
      const { port, driver } = adapterOnDevExcel();
      const r = await runCheck(c, { port, driver, hostileStrings: HOSTILE_STRINGS });
      expect(r.detail ?? "").toBe("");
      expect(r.status).toBe("pass");
    });
  }
}
