// The harness's stand-in for the Office CDN script, loaded before the task-pane bundle inside the
// harness iframe. It takes the simulated workbook from the harness page (same origin) and publishes
// dev/excel's `Excel` and `Office` namespaces as the globals real Office.js would provide; once the
// harness config has arrived, Office.onReady resolves and the stand-in's demo credential is left as the
// Connect pre-fill (harness only). Opened on its own, outside the
// harness page, it publishes nothing: the pane then shows its "not in Office" message.
import { createDevExcel } from "../excel/index.ts";
import { parseHarnessConfig } from "./config.ts";
import type { HarnessGlobal } from "./index.tsx";

function harnessParent(): HarnessGlobal | null {
  try {
    const h = (window.parent as unknown as { cellboundHarness?: HarnessGlobal }).cellboundHarness;
    return window.parent !== window && h ? h : null;
  } catch {
    return null; // another origin: not the harness
  }
}

const harness = harnessParent();
if (harness) {
  const dev = createDevExcel({ workbook: harness.workbook(), platform: "OfficeOnline" });
  const g = globalThis as unknown as Record<string, unknown>;
  g.Excel = dev.Excel;
  // Office.onReady resolves once the harness has its config, so the Connect pre-fill is in place.
  // Office.context.officeTheme as Excel reports it (bodyBackgroundColor is what the pane reads).
  const dark = harness.theme() === "dark";
  const officeTheme = dark
    ? {
        bodyBackgroundColor: "#292929",
        bodyForegroundColor: "#FFFFFF",
        controlBackgroundColor: "#1F1F1F",
        controlForegroundColor: "#FFFFFF",
      }
    : {
        bodyBackgroundColor: "#FFFFFF",
        bodyForegroundColor: "#000000",
        controlBackgroundColor: "#FFFFFF",
        controlForegroundColor: "#000000",
      };
  // Runtime errors inside the pane go to the harness's dismissible panel (not an overlay over everything).
  window.addEventListener("error", (e) => harness.reportError?.(e.error ?? e.message));
  window.addEventListener("unhandledrejection", (e) => harness.reportError?.(e.reason));
  g.Office = {
    ...dev.Office,
    context: { ...dev.Office.context, officeTheme, document: dev.Office.context.document },
    onReady: (callback?: (info: { host: string; platform: string }) => void) =>
      harness.config.then((config) => {
        g.__cellboundPrefill = { ...parseHarnessConfig(config) };
        return dev.Office.onReady(callback);
      }),
  };
}
