// Entry of the Diagnostics chunk. `Diagnostics` runs the contract on any port + driver;
// `DiagnosticsView` is the pane's hidden route: it builds the Office.js adapter and its driver from the
// Excel/Office globals (real Excel, or the harness shim over dev/excel) and shows Diagnostics.
import { useMemo } from "preact/hooks";
import { officeDriver } from "../../host/excel/driver.ts";
import { ExcelPort } from "../../host/excel/index.ts";
import { excelProbes } from "../../host/excel/probes.ts";
import { CONTRACT_CHECKS } from "../../host/contract/index.ts";
import { Diagnostics } from "./Diagnostics.tsx";

export { Diagnostics, reportText, type DiagnosticsProps } from "./Diagnostics.tsx";

export function DiagnosticsView(_props: Record<string, unknown>) {
  const made = useMemo(() => {
    try {
      const X = (globalThis as { Excel?: typeof Excel }).Excel;
      if (!X) throw new Error("Excel's JavaScript API is not available here.");
      return {
        port: new ExcelPort({ Excel: X }),
        driver: officeDriver(X, "Office.js adapter in this Excel"),
        // The port contract, then the probes of Excel's own behaviour that dev/excel assumes (issue 22).
        checks: [
          ...CONTRACT_CHECKS,
          ...excelProbes(X, { platform: String((globalThis as { Office?: typeof Office }).Office?.context?.platform ?? "") }),
        ],
      };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, []);
  if ("error" in made) return <p role="alert">Diagnostics cannot run: {made.error}</p>;
  return <Diagnostics port={made.port} driver={made.driver} checks={made.checks} />;
}
