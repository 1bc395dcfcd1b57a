// The SheetPort contract suite against the Office.js adapter on dev/excel, in Chromium —
// the "adapter runs unchanged on the stand-in" run the issue asks for.
import { CONTRACT_CHECKS, runCheck } from "../../src/host/contract/index.ts";
import { HOSTILE_STRINGS } from "./fixtures/hostile-strings.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

describe("SheetPort contract: Office.js adapter on dev/excel (Chromium)", () => {
  it("runs in a real browser", () => {
    expect(typeof window).toBe("object");
    expect(navigator.userAgent).toMatch(/Chrome/);
  });
  for (const c of CONTRACT_CHECKS) {
    it(c.name, async () => {
      const { port, driver } = adapterOnDevExcel();
      const r = await runCheck(c, { port, driver, hostileStrings: HOSTILE_STRINGS });
      expect(r.detail ?? "").toBe("");
      expect(r.status).toBe("pass");
    });
  }
});
