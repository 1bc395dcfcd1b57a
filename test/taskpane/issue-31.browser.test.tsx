// Issue 31 items 1, 2, 4 and 7 where their logic lives, in Chromium over scripted services: the
// builder saves nothing before the overwrite question is answered (and Cancel keeps the form); Find
// for selection shows (and filters) the dashboard its button names; Refresh all's summary goes when
// the home's placements change; back on the Workbook tab, a check under way is replaced by a new one.
import { render } from "preact";
import { BuilderView } from "../../src/taskpane/builder/BuilderView";
import { OverwritePrompt } from "../../src/taskpane/app/OverwritePrompt";
import { DashboardPane } from "../../src/taskpane/dashboard/DashboardView";
import type { DashboardService } from "../../src/taskpane/dashboard/service";
import type { HomeData } from "../../src/taskpane/home/types";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import { placement, scriptedBackend } from "./scripted";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met in time; page says: ${document.body.textContent?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const byText = (selector: string, text: string) =>
  [...document.querySelectorAll<HTMLElement>(selector)].find(
    (e) => e.textContent?.trim() === text || e.getAttribute("aria-label") === text,
  );

function mount(node: preact.ComponentChild): HTMLElement {
  installTheme(document, undefined);
  const root = document.createElement("div");
  document.body.append(root);
  render(node, root);
  return root;
}

const home = (ids: string[]): HomeData => ({
  workbookName: "Q3 numbers.xlsx",
  copied: false,
  placements: ids.map((id) => placement({ id, reportName: `Report ${id}` })),
});

async function signedIn(script: Parameters<typeof scriptedBackend>[0]) {
  const s = scriptedBackend(script);
  const store = new PaneStore(s.backend, new SecretStore(memoryStore()));
  await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
  return { ...s, store };
}

describe("issue 31", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("issue 31 item 1: Save asks before overwriting with nothing saved; Cancel keeps the form; Overwrite saves and places it", async () => {
    const { store, ws } = await signedIn({ home: home([]) });
    const calls: string[] = [];
    ws.place = async (what, o) => {
      calls.push(`place ${typeof what === "number" ? what : what.name}${o.confirmed ? " confirmed" : ""}`);
      return o.confirmed
        ? { kind: "placed", placementId: "p", range: "F20:G25", sheetName: "Sheet1" }
        : { kind: "wouldOverwrite", count: 15, addresses: ["B3"], target: "Sheet1!B2:C6", at: { sheetId: "s1", row: 1, col: 1 } };
    };
    let saved = 0;
    ws.saveReport = async () => {
      saved++;
      return {
        id: 9,
        publicId: "abcdefghijkl",
        name: "Revenue by status",
        title: "Revenue by status",
        updatedAt: "",
        ownerName: "Ana",
        folder: null,
      };
    };
    ws.meta = async () => [
      {
        name: "orders",
        title: "Orders",
        measures: [{ name: "orders.count", title: "Count", type: "count" }],
        dimensions: [{ name: "orders.status", title: "Status", type: "string" }],
      },
    ];
    store.route.value = "builder";
    mount(
      <>
        <OverwritePrompt store={store} />
        <BuilderView store={store} />
      </>,
    );
    await until(() => byText("label", "Count") !== undefined);
    byText("label", "Count")!.querySelector("input")!.click();
    const name = document.querySelector<HTMLInputElement>("#cb-report-name")!;
    name.value = "Revenue by status";
    name.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 50)); // as a person would: the choices are rendered before Save
    byText("button", "Save report")!.click();
    await until(() => document.body.textContent!.includes("15 cells would be overwritten"));
    expect(saved).toBe(0);
    expect(calls.filter((c) => c.startsWith("place"))).toEqual(["place Revenue by status"]);
    byText("button", "Cancel")!.click();
    await until(() => !document.body.textContent!.includes("would be overwritten"));
    expect(saved).toBe(0);
    expect(document.querySelector<HTMLInputElement>("#cb-report-name")!.value).toBe("Revenue by status");
    expect(byText("label", "Count")!.querySelector("input")!.checked).toBe(true);
    // Asked again, Overwrite places it: the report is saved then, with the place (one call).
    byText("button", "Save report")!.click();
    await until(() => document.body.textContent!.includes("15 cells would be overwritten"));
    byText("button", "Overwrite")!.click();
    await until(() => calls.includes("place Revenue by status confirmed"));
    expect(saved).toBe(0);
  });

  it("issue 31 item 2: after Find for selection, the dashboard the button names is the one shown and filtered", async () => {
    const opened: string[] = [];
    const filtered: string[] = [];
    let finds = 0;
    const service: DashboardService = {
      sessionUrl: () => "https://broker.example/session",
      look: () => ({ timezone: "Europe/Paris", scheme: "light", locale: null }),
      pictureOnSheet: async () => null,
      linkedDashboards: async () =>
        ++finds === 1
          ? {
              placement: { reportName: "Revenue by month", range: "Sheet1!B2:C14" },
              dashboards: [{ publicId: "SalesDash001", title: "Sales overview" }],
            }
          : {
              placement: { reportName: "Top customers", range: "Sheet1!J2:K12" },
              dashboards: [{ publicId: "CustDash0004", title: "Customer overview" }],
            },
      dashboard: async (publicId) => ({ publicId, title: publicId }),
      async open(host, publicId) {
        opened.push(publicId);
        host.replaceChildren(Object.assign(document.createElement("div"), { textContent: `embed of ${publicId}` }));
        return {
          setFilter: (m, v) => filtered.push(`${publicId}: ${m}=${JSON.stringify(v)}`),
          setScheme: () => undefined,
          setBrandColor: () => undefined,
          setTimezone: () => undefined,
          refresh: () => undefined,
          close: () => undefined,
        };
      },
      cellFilter: async () => ({ member: "customers.segment", value: "Retail", label: "Segment is Retail (Sheet1!J4)" }),
      placeDrilldown: async () => ({ kind: "placed", placementId: "p", range: "A1:B2", sheetName: "Sheet1" }),
      insertPicture: async () => ({ name: "x" }),
    };
    mount(<DashboardPane service={service} />);
    await until(() => opened.includes("SalesDash001"));
    byText("button", "Find for selection")!.click();
    await until(() => byText("button", "Customer overview") !== undefined);
    await until(() => opened.at(-1) === "CustDash0004");
    expect(byText("button", "Customer overview")!.getAttribute("aria-pressed")).toBe("true");
    expect(document.body.textContent).toContain("embed of CustDash0004");
    await new Promise((r) => setTimeout(r, 20)); // the embed's handle is in
    byText("button", "Filter dashboard by this cell")!.click();
    await until(() => filtered.length === 1);
    expect(filtered).toEqual(['CustDash0004: customers.segment=["Retail"]']);
  });

  it("issue 31 item 4: Refresh all's summary goes when placements are added; a check of the same placements keeps it", async () => {
    let shown = home(["a", "b", "c"]);
    const { store } = await signedIn({
      home: shown,
      homeLoad: async () => shown,
      refreshAll: async () => ({
        done: 2,
        total: 3,
        rows: { a: { state: "done" }, b: { state: "done" }, c: { state: "failed", reason: "Not refreshed" } },
      }),
    });
    await store.refreshEverything();
    expect(store.refreshAll.value).toMatchObject({ done: 2, total: 3, running: false });
    await store.loadHome(); // the same placements: the summary still describes them
    expect(store.refreshAll.value).toMatchObject({ done: 2, total: 3, running: false });
    shown = home(["a", "b", "c", "d"]);
    await store.loadHome();
    expect(store.refreshAll.value).toBeNull();
  });

  it("issue 31 item 7: back on the Workbook tab, a check left under way is replaced by a new one; the home is current", async () => {
    const answers: HomeData[] = [home(["a"])];
    const loads: number[] = [];
    const { store, watchers } = await signedIn({
      home: home(["a"]),
      homeLoad: (n, signal) => {
        loads.push(n);
        if (n === 2)
          // A slow check (a busy machine): it ends only when stopped.
          return new Promise((_resolve, reject) =>
            signal?.addEventListener("abort", () => reject(new DOMException("stopped", "AbortError"))),
          );
        return Promise.resolve(answers[0]!);
      },
    });
    expect(store.home.value?.placements.map((p) => p.id)).toEqual(["a"]);
    store.navigate("reports");
    answers[0] = home(["a", "b"]); // another user's placement, connected meanwhile
    watchers[0]!(); // the workbook changed: the home is checked shortly after (while on Reports)
    await until(() => loads.includes(2));
    store.navigate("home");
    await until(() => store.home.value?.placements.length === 2, 2000);
    expect(store.homeLoading.value).toBe(false);
    expect(store.notice.value).toBeNull();
  });
});
