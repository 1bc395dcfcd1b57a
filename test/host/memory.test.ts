// The SheetPort contract suite against the plain in-memory port (src/host/memory), in Node.
import { CONTRACT_CHECKS, runCheck } from "../../src/host/contract/index.ts";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { memoryDriver } from "../../src/host/memory/driver.ts";
import { HOSTILE_STRINGS } from "./fixtures/hostile-strings.ts";

describe("SheetPort contract: memory port", () => {
  for (const c of CONTRACT_CHECKS) {
    it(c.name, async () => {
      const wb = new MemoryWorkbook("https://contoso.example/Book.xlsx");
      const r = await runCheck(c, { port: new MemoryPort(wb), driver: memoryDriver(wb), hostileStrings: HOSTILE_STRINGS });
      expect(r.detail ?? "").toBe("");
      expect(r.status).toBe("pass");
    });
  }
});

describe("the memory port's defined names (issue 32)", () => {
  it("issue 32: a person's names follow Excel's rules: unique whatever the case, no cell references or spaces; a deleted sheet's name is #REF!", async () => {
    const wb = new MemoryWorkbook();
    const port = new MemoryPort(wb);
    const inputs = wb.addSheet("Inputs");
    const b1 = { sheetId: inputs.id, row: 0, col: 1, rows: 1, cols: 1 };
    wb.defineName("Region", b1);
    expect(() => wb.defineName("REGION", b1)).toThrow(/exists/);
    for (const bad of ["B1", "r1c1", "R", "C", "two words", "1st", "", "a-b"])
      expect(() => wb.defineName(bad, b1), bad).toThrow(/not a name/);
    for (const good of ["_x", "\\odd", "Région.2024", "Rate"]) wb.defineName(good, b1);
    expect(await port.namedArea("région.2024")).toEqual({ sheet: inputs, area: b1 });
    const copy = new MemoryPort(wb.saveAsCopy("https://contoso.example/Copy.xlsx"));
    wb.deleteSheet(inputs.id);
    expect(await port.namedArea("Region")).toBeNull();
    expect(await copy.namedArea("Region")).toEqual({ sheet: inputs, area: b1 });
  });
});
