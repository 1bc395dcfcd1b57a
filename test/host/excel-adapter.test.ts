// The SheetPort contract suite against the Office.js adapter on dev/excel, in Node (quick feedback;
// the same run in Chromium is excel-adapter.browser.test.ts).
import { adapterContractTests } from "./adapter-contract.ts";

describe("SheetPort contract: Office.js adapter on dev/excel (node)", () => {
  adapterContractTests();
});
