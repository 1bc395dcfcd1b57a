// The harness's Office: real Office.js from the pinned @microsoft/office-js package (harness-taskpane.html
// loads it first, from /office-js/), with dev/excel's Excel installed over it, inside the harness iframe.
// Outside Office the library starts on its own and resolves Office.onReady with host null; this shim
// (the harness-office chunk, which runs after office.js and before the pane) waits for that start-up and
// for the harness config, then puts dev/excel's `Excel`, `Office.context` and `Office.onReady` in place,
// so the pane's Office.onReady resolves once, with host Excel. The rest of `Office` stays the library's.
// It takes the simulated workbook from the harness page (same origin) and leaves the stand-in's demo
// credential as the Connect pre-fill (harness only). Opened on its own, outside the harness page, it
// installs nothing: the library answers host null and the pane shows its "not in Office" message.
// First: the pane's CSP settings (zod without generated code) hold for this chunk's zod too.
import "../../src/taskpane/csp.ts";
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
  // Each sync costs what the harness's "Excel" selector says, read at every sync (dev/excel/latency.ts).
  Object.defineProperty(dev.env, "latency", { get: () => harness.latency?.() ?? "none", configurable: true });
  const g = globalThis as unknown as Record<string, unknown>;
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
  type Ready = { host: string; platform: string };
  type Library = { onReady?: (cb?: () => void) => PromiseLike<unknown> };
  const office = g.Office as Library | undefined;
  if (!office || typeof office.onReady !== "function") {
    // No fallback to a shim-only Office: the harness must run against the real library.
    harness.reportError?.(new Error("Office.js did not load in the pane (/office-js/office.js from @microsoft/office-js)."));
  } else {
    // The library's own start-up first: it loads o15apptofilemappingtable.js, which sets window.Office
    // (again) and defines Office.context as a getter that cannot be redefined, then resolves onReady
    // with host null. Installing anything before that end raced it. The context getter reads
    // OSF._OfficeAppFactory.getContext(): that is where dev/excel's context goes, so `Office` stays
    // the library's own object.
    const ready: Promise<Ready> = Promise.all([office.onReady(), harness.config]).then(([, config]) => {
      const factory = (g.OSF as { _OfficeAppFactory?: { getContext?: unknown } } | undefined)?._OfficeAppFactory;
      if (typeof factory?.getContext !== "function")
        throw new Error("Office.js has no OSF._OfficeAppFactory.getContext: update office-shim.ts");
      const context = { ...dev.Office.context, officeTheme, document: dev.Office.context.document };
      factory.getContext = () => context;
      g.__cellboundPrefill = { ...parseHarnessConfig(config) };
      g.Excel = dev.Excel;
      return dev.Office.onReady();
    });
    ready.catch((e: unknown) => harness.reportError?.(e));
    // onReady is a plain property of the library's namespace: the pane's call gets ours, resolved once.
    office.onReady = ((callback?: (info: Ready) => unknown) =>
      ready.then(async (info) => {
        await callback?.(info);
        return info;
      })) as Library["onReady"];
  }
}
