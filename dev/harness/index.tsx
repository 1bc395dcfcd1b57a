// Harness page entry: loads /harness-config.json (stand-in URLs + the analyst's demo key), opens the
// simulated workbook (restored from this browser's storage, else a fresh one), exposes it to the pane's
// Office shim as window.cellboundHarness, and renders the workbook beside the real task pane.
// body[data-ready="true"] once the grid is drawn and the pane shows its first view (the bench waits on it).
import { render } from "preact";
import { DevWorkbook } from "../excel/model.ts";
import { isLatencyProfile, type LatencyProfile } from "../excel/latency.ts";
import { CONFIG_PATH, parseHarnessConfig, type HarnessConfig } from "./config.ts";
import { DevExcelBook } from "./dev-excel-book.ts";
import { Harness, type HarnessTheme } from "./Harness.tsx";
import { installErrorPanel } from "./error-panel.ts";
import { HARNESS_CSS } from "./harness-css.ts";

/** What the pane's Office shim (office-shim.ts, inside the iframe) reads from this window. */
export interface HarnessGlobal {
  workbook(): DevWorkbook;
  /** Resolves once /harness-config.json is read (the page and the pane start loading meanwhile). */
  config: Promise<HarnessConfig>;
  /** The Office theme the pane should see (the harness's theme switch). */
  theme(): HarnessTheme;
  /** Show a runtime error of the pane in the harness's error panel. */
  reportError(e: unknown): void;
  /** What a round trip to the simulated Excel costs now (the harness's "Excel" selector; dev/excel/latency.ts). */
  latency(): LatencyProfile;
}

const LATENCY_KEY = "harness.latency";
/** `?latency=` (tests), else the stored choice, else Excel on the web: a person trying the harness feels what a web user feels. */
function startLatency(): LatencyProfile {
  const fromUrl = new URLSearchParams(location.search).get("latency");
  if (isLatencyProfile(fromUrl)) return fromUrl;
  const stored = localStorage.getItem(LATENCY_KEY);
  return isLatencyProfile(stored) ? stored : "web";
}

const THEME_KEY = "harness.theme";
function storedTheme(): HarnessTheme {
  const t = localStorage.getItem(THEME_KEY);
  return t === "dark" || t === "light" ? t : matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

const STORAGE_KEY = "harness.workbook";
const DEFAULT_URL = "https://files.example.com/Q3 numbers.xlsx";

function openWorkbook(): DevWorkbook {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved) {
    try {
      return DevWorkbook.restore(JSON.parse(saved));
    } catch {
      localStorage.removeItem(STORAGE_KEY); // an unreadable snapshot: start afresh
    }
  }
  return new DevWorkbook(DEFAULT_URL, "Q3 numbers.xlsx");
}

function persist(wb: DevWorkbook): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(wb.snapshot()));
  } catch {
    // Over the storage quota (a very large placement): the harness keeps working, unsaved.
  }
}

/** ?embedUser=&embedTenant= on the harness URL: sign the comments pane in as another embed viewer. */
function withViewerFromUrl(config: HarnessConfig): HarnessConfig {
  const q = new URLSearchParams(location.search);
  const externalId = q.get("embedUser");
  if (!externalId) return config;
  const embedTenantName = q.get("embedTenant") ?? config.embedViewer?.embedTenantName;
  return { ...config, embedViewer: { externalId, ...(embedTenantName ? { embedTenantName } : {}) } };
}

async function main(): Promise<void> {
  const style = document.createElement("style");
  style.textContent = HARNESS_CSS;
  document.head.append(style);
  const config = fetch(CONFIG_PATH, { cache: "no-store" }).then(async (res) => {
    if (!res.ok) throw new Error(`${CONFIG_PATH} answered ${res.status}`);
    return withViewerFromUrl(parseHarnessConfig(await res.json()));
  });

  const host = document.getElementById("harness")!;
  host.textContent = ""; // the "Loading the harness…" line goes once the harness draws
  const errors = installErrorPanel(document);
  errors.watch(window);
  let paneKey = 0;
  let latency = startLatency();
  const onLatency = (l: LatencyProfile) => {
    latency = l;
    localStorage.setItem(LATENCY_KEY, l);
    draw(); // the pane's dev/excel reads it at every sync: no reload
  };
  let theme = storedTheme();
  document.documentElement.dataset.theme = theme;
  const onTheme = (t: HarnessTheme) => {
    theme = t;
    localStorage.setItem(THEME_KEY, t);
    document.documentElement.dataset.theme = t;
    paneKey++; // the pane reads Office's theme when it starts: reopen it, as Office does after a theme change
    draw();
  };
  const draw = () =>
    render(
      <Harness
        key={paneKey}
        book={book}
        paneSrc={`harness-taskpane.html`}
        onReset={reset}
        theme={theme}
        onTheme={onTheme}
        latency={latency}
        onLatency={onLatency}
        config={config}
      />,
      host,
    );
  const book = new DevExcelBook(openWorkbook(), () => {
    paneKey++; // Save as copy: the copy opens, with a fresh pane on it
    draw();
  });
  const reset = () => {
    localStorage.removeItem(STORAGE_KEY);
    location.reload();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  book.subscribe(() => {
    clearTimeout(timer);
    timer = setTimeout(() => persist(book.wb), 300);
  });
  const global: HarnessGlobal = {
    workbook: () => book.wb,
    config,
    theme: () => theme,
    latency: () => latency,
    reportError: (e: unknown) => errors.show(e),
  };
  (window as unknown as { cellboundHarness: HarnessGlobal }).cellboundHarness = global;
  draw();

  const paneReady = () => {
    const doc = (document.getElementById("taskpane") as HTMLIFrameElement | null)?.contentDocument;
    return !!doc?.querySelector(".cb-app, .cb-not-in-office");
  };
  const poll = () => (paneReady() ? (document.body.dataset.ready = "true") : requestAnimationFrame(poll));
  poll();
  await config; // a bad config is reported on the page, below
}

main().catch((e: unknown) => {
  const host = document.getElementById("harness")!;
  host.textContent = `The harness could not start: ${e instanceof Error ? e.message : String(e)}`;
});
