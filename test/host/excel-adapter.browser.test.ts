// The SheetPort contract suite against the Office.js adapter on dev/excel, in Chromium —
// the "adapter runs unchanged on the stand-in" run the issue asks for.
import { adapterContractTests } from "./adapter-contract.ts";

describe("SheetPort contract: Office.js adapter on dev/excel (Chromium)", () => {
  it("runs in a real browser", () => {
    expect(typeof window).toBe("object");
    expect(navigator.userAgent).toMatch(/Chrome/);
  });
  adapterContractTests();
});
