// Benchmark page (built with the harness): renders the real workbook home with 2,000 placements and
// publishes timings on window.__homeBench for bench/ui.bench.ts. Each run mounts the view from scratch
// and forces layout, so the figure is render + style + layout of the whole list.
import { render } from "preact";
import { FIRST_CARDS, HomeView } from "../../src/taskpane/home/HomeView";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import type { Backend } from "../../src/taskpane/app/model";
import type { PlacementView } from "../../src/taskpane/home/types";
import { factsFor } from "../../src/taskpane/home/live-status";

const STATUSES = ["upToDate", "outOfDate", "editedByHand", "missing", "noAccess"] as const;

export function placements(n: number): PlacementView[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const status = STATUSES[i % STATUSES.length]!;
    return {
      id: `p${i}`,
      sheetName: `Sheet${(i % 40) + 1}`,
      range: `A${i * 30 + 1}:F${i * 30 + 25}`,
      reportId: i,
      reportName: status === "noAccess" ? null : `Report ${i}`,
      refreshedAt: new Date(now - i * 60_000).toISOString(),
      facts: factsFor(status, status === "editedByHand" ? [{ from: 3, to: 7 }] : []),
      owner: status === "noAccess" ? { name: "Olga Outsider", email: "olga@example.com" } : null,
      deploymentId: 1,
      deploymentName: "Production",
    };
  });
}

const unused = (): never => {
  throw new Error("not used by the benchmark");
};
const backend: Backend = { signIn: unused, open: unused };

async function run(n: number, runs: number): Promise<number[]> {
  installTheme();
  const host = document.getElementById("root")!;
  host.style.width = "350px";
  const store = new PaneStore(backend, new SecretStore(memoryStore()));
  store.home.value = { workbookName: "Bench.xlsx", copied: false, placements: placements(n) };
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    render(null, host);
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    render(<HomeView store={store} />, host);
    void host.offsetHeight; // force style + layout
    samples.push(performance.now() - t0);
    const count = host.querySelectorAll("[data-placement]").length;
    if (count !== Math.min(n, FIRST_CARDS)) throw new Error(`rendered ${count} placements, expected ${Math.min(n, FIRST_CARDS)}`);
    if (n > FIRST_CARDS && !host.textContent!.includes(`${n} placements on`))
      throw new Error("the home does not say how many placements there are");
  }
  return samples;
}

/** Time to have every card in the DOM: first render, then "Show more" until none is left. */
async function runAll(n: number): Promise<number> {
  installTheme();
  const host = document.getElementById("root")!;
  const store = new PaneStore(backend, new SecretStore(memoryStore()));
  store.home.value = { workbookName: "Bench.xlsx", copied: false, placements: placements(n) };
  render(null, host);
  const t0 = performance.now();
  render(<HomeView store={store} />, host);
  for (;;) {
    const more = [...host.querySelectorAll("button")].find((b) => b.textContent!.startsWith("Show more"));
    if (!more) break;
    more.click();
    await new Promise((r) => setTimeout(r, 0));
  }
  void host.offsetHeight;
  const ms = performance.now() - t0;
  if (host.querySelectorAll("[data-placement]").length !== n) throw new Error("not every placement was rendered");
  return ms;
}

(window as { __homeBench?: unknown }).__homeBench = run;
(window as { __homeBenchAll?: unknown }).__homeBenchAll = runAll;
document.body.dataset.ready = "true";
