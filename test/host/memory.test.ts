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
