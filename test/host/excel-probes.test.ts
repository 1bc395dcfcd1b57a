// The Diagnostics view's Excel probes (src/host/excel/probes.ts) pass on dev/excel: they pin what
// dev/excel models of real Excel's sharp edges, so in real Excel a failure shows where it is wrong.
import { runCheck } from "../../src/host/contract/index.ts";
import { excelProbes } from "../../src/host/excel/probes.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

describe("Excel probes on dev/excel", () => {
  const names = excelProbes({} as typeof Excel).map((p) => p.name);
  for (const [i, name] of names.entries()) {
    it(name, async () => {
      const { dx, port, driver } = adapterOnDevExcel();
      const probe = excelProbes(dx.Excel as unknown as typeof Excel, {
        cellEdit: { enter: () => dx.workbook.enterCellEdit(), leave: () => dx.workbook.leaveCellEdit() },
        platform: dx.Office.context.platform, // "OfficeOnline": dev/excel enforces the web's 5 MB on every platform
      })[i]!;
      const r = await runCheck(probe, { port, driver });
      expect(r.detail ?? "").toBe("");
      expect(r.status).toBe("pass");
    });
  }
});
