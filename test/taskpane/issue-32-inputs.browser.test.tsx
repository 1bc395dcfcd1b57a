// Issue 32 in the pane, in Chromium over a scripted workspace: a placement's Inputs… panel (bindings, Bind to
// selection, Remove, the switch; a SQL report says why it takes none), the card's "Inputs changed — refresh"
// and an invalid input's words, Refresh when inputs change (debounced; a newer change stops the refresh in
// flight), and the builder's "Use selected cell" placing the report with its inputs.
import { render } from "preact";
import { HomeView } from "../../src/taskpane/home/HomeView";
import { BuilderView } from "../../src/taskpane/builder/BuilderView";
import type { HomeData, InputsDetail, PlacementView } from "../../src/taskpane/home/types";
import type { InputRequest } from "../../src/taskpane/app/model";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import { placement, scriptedBackend } from "./scripted";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met in time; page says: ${document.body.textContent?.slice(0, 600)}`);
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

const homeOf = (...placements: PlacementView[]): HomeData => ({ workbookName: "Regions.xlsx", copied: false, placements });
const sales = (inputs?: PlacementView["inputs"]) =>
  placement({ id: "salesKey0001", reportName: "Sales by region", ...(inputs ? { inputs } : {}) });

async function signedIn(script: Parameters<typeof scriptedBackend>[0]) {
  const s = scriptedBackend(script);
  const store = new PaneStore(s.backend, new SecretStore(memoryStore()));
  await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
  return { ...s, store };
}

const detail = (over: Partial<InputsDetail> = {}): InputsDetail => ({
  inputs: [{ member: "orders.region", title: "Region", where: "Sheet1!B1", values: ["West"], problem: null }],
  bindable: [
    { member: "orders.region", title: "Region", time: false },
    { member: "orders.created_at", title: "Created at", time: true },
  ],
  notBindable: null,
  changed: false,
  autoRefresh: false,
  ...over,
});

describe("issue 32: inputs in the pane", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("issue 32 pane: Inputs… lists the bindings, binds a filter to the selection, removes one and switches auto-refresh", async () => {
    const { store, ws } = await signedIn({ home: homeOf(sales({ count: 1, changed: false, autoRefresh: false, problem: null })) });
    const calls: string[] = [];
    let shown = detail();
    ws.inputs = async () => shown;
    ws.bindSelection = async (id, member) => {
      calls.push(`bind ${id} ${member}`);
      shown = detail({
        inputs: [
          ...shown.inputs,
          { member, title: "Created at", where: "Inputs!B1:B2", values: ["2025-01-01", "2025-03-31"], problem: null },
        ],
      });
      return "Inputs!B1:B2";
    };
    ws.unbindInput = async (id, member) => {
      calls.push(`unbind ${id} ${member}`);
      shown = detail({ inputs: shown.inputs.filter((i) => i.member !== member) });
    };
    ws.setAutoRefresh = async (id, on) => {
      calls.push(`auto ${id} ${on}`);
      shown = { ...shown, autoRefresh: on };
    };
    mount(<HomeView store={store} />);
    await until(() => byText("button", "Inputs…") !== undefined);
    byText("button", "Inputs…")!.click();
    await until(() => document.body.textContent!.includes("Region from Sheet1!B1: West"));
    // Focus goes to the panel's heading (keyboard users land in it).
    expect(document.activeElement?.textContent).toBe("Inputs of Sales by region");
    byText("button", "Bind Created at to selection")!.click();
    await until(() => document.body.textContent!.includes("Created at from Inputs!B1:B2: 2025-01-01, 2025-03-31"));
    byText("button", "Remove input of Region")!.click();
    await until(() => !document.body.textContent!.includes("Region from Sheet1!B1"));
    const sw = document.querySelector<HTMLInputElement>('input[role="switch"]')!;
    expect(sw.closest("label")!.textContent).toContain("Refresh when inputs change");
    sw.click();
    await until(() => calls.includes("auto salesKey0001 true"));
    expect(calls).toEqual(["bind salesKey0001 orders.created_at", "unbind salesKey0001 orders.region", "auto salesKey0001 true"]);
    // Escape closes the panel; focus goes back to its button.
    document.querySelector(".cb-inputs")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await until(() => document.querySelector(".cb-inputs") === null);
    expect(document.activeElement?.textContent).toBe("Inputs…");
  });

  it("issue 32 pane: a SQL report says it cannot take inputs where the choice would be, with no button to bind", async () => {
    const { store, ws } = await signedIn({ home: homeOf(sales()) });
    ws.inputs = async () =>
      detail({ inputs: [], bindable: [], notBindable: "SQL reports cannot take inputs: their filters are in the SQL text." });
    mount(<HomeView store={store} />);
    await until(() => byText("button", "Inputs…") !== undefined);
    byText("button", "Inputs…")!.click();
    await until(() => document.body.textContent!.includes("SQL reports cannot take inputs: their filters are in the SQL text."));
    expect([...document.querySelectorAll("button")].some((b) => /Bind .* to selection/.test(b.getAttribute("aria-label") ?? ""))).toBe(
      false,
    );
    expect(document.querySelector('input[role="switch"]')).toBeNull();
  });

  it("issue 32 pane: a binding refused by the engine (CannotBind) is said in its words in the panel", async () => {
    const { store, ws } = await signedIn({ home: homeOf(sales()) });
    ws.inputs = async () => detail();
    ws.bindSelection = async () => {
      throw Object.assign(
        new Error("Sheet1!B2:E21 is inside “Sales by region” itself: a placement cannot take its inputs from its own cells."),
        {
          name: "CannotBind",
        },
      );
    };
    mount(<HomeView store={store} />);
    await until(() => byText("button", "Inputs…") !== undefined);
    byText("button", "Inputs…")!.click();
    await until(() => byText("button", "Bind Region to selection") !== undefined);
    byText("button", "Bind Region to selection")!.click();
    await until(() => document.body.textContent!.includes("a placement cannot take its inputs from its own cells"));
    expect(document.querySelector('.cb-inputs [role="alert"]')!.textContent).toContain("The filter cannot take its values from there");
  });

  it("issue 32 pane: the card says Inputs changed — refresh, and an invalid input names the cell", async () => {
    const { store } = await signedIn({
      home: homeOf(
        sales({ count: 1, changed: true, autoRefresh: false, problem: null }),
        placement({
          id: "budgetKey001",
          reportName: "Budget by month",
          inputs: {
            count: 1,
            changed: true,
            autoRefresh: true,
            problem: "Inputs!B2 (to) is before Inputs!B1 (from): type an end date after the start.",
          },
        }),
      ),
    });
    mount(<HomeView store={store} />);
    const card = (id: string) => document.querySelector<HTMLElement>(`[data-placement="${id}"]`)!;
    await until(() => card("salesKey0001") !== null);
    expect(card("salesKey0001").textContent).toContain("Inputs changed — refresh");
    // The badge says what the lines say: the cells do not show what the inputs hold (never "Up to date").
    expect(card("salesKey0001").dataset.status).toBe("outOfDate");
    expect(card("salesKey0001").textContent).not.toContain("Up to date");
    expect(card("budgetKey001").textContent).toContain("Inputs!B2 (to) is before Inputs!B1 (from): type an end date after the start.");
    expect(card("budgetKey001").textContent).not.toContain("Inputs changed");
    expect(card("budgetKey001").dataset.status).toBe("outOfDate");
  });

  it("issue 32 pane: Refresh with an invalid input shows its words on the card (the cell named), not a generic failure", async () => {
    const { store } = await signedIn({
      home: homeOf(sales({ count: 1, changed: true, autoRefresh: false, problem: null })),
      refresh: async () => {
        throw Object.assign(new Error("Sheet1!B1 is empty: type a region."), { name: "InvalidInput", where: "Sheet1!B1" });
      },
    });
    mount(<HomeView store={store} />);
    await until(() => byText("button", "Refresh") !== undefined);
    await store.refresh("salesKey0001");
    const card = document.querySelector<HTMLElement>('[data-placement="salesKey0001"]')!;
    await until(() => card.textContent!.includes("Sheet1!B1 is empty: type a region."));
    // Nothing was written: "Not refreshed", not "Refresh failed".
    expect(card.textContent).toContain("Not refreshed: Sheet1!B1 is empty: type a region.");
    expect(card.textContent).not.toContain("Refresh failed");
    expect(store.notice.value?.detail).toBe("Sheet1!B1 is empty: type a region.");
    expect(store.notice.value?.title).toContain("was not refreshed");
  });
});

describe("issue 32: Refresh when inputs change", () => {
  it("issue 32 pane: refreshes once after the changes stop, never on each keystroke; a newer change stops the refresh in flight", async () => {
    let changed = true;
    const on = () => homeOf(sales({ count: 1, changed, autoRefresh: true, problem: null }));
    const signals: AbortSignal[] = [];
    let release: (() => void) | null = null;
    const { store, watchers, calls } = await signedIn({
      home: on(),
      homeLoad: async () => on(),
      refresh: (_id, _choice, signal) => {
        signals.push(signal!);
        return new Promise((resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new DOMException("stopped", "AbortError")));
          release = () => {
            changed = false;
            resolve({ kind: "refreshed", cellsWritten: 3, summary: "3 cells changed" });
          };
        });
      },
    });
    store.autoRefreshMs = 150;
    // Three changes 50 ms apart (typing): nothing refreshes until 150 ms after the last.
    for (let i = 0; i < 3; i++) {
      watchers[0]!();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual([]);
    await until(() => signals.length === 1);
    // A newer change while it runs stops it (quietly), and the refresh after that change follows.
    watchers[0]!();
    await until(() => signals[0]!.aborted);
    await until(() => signals.length === 2, 3000);
    expect(store.notice.value?.title ?? "").not.toMatch(/cancelled/i);
    release!();
    await until(() => store.rowStates.value["salesKey0001"]?.state === "done");
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual(["refresh salesKey0001 ask", "refresh salesKey0001 ask"]);
  });

  it("issue 32 pane: with the switch off, or an input that cannot be used, a change refreshes nothing", async () => {
    let problem: string | null = null;
    let auto = false;
    const { store, watchers, calls } = await signedIn({
      home: homeOf(sales({ count: 1, changed: true, autoRefresh: false, problem: null })),
      homeLoad: async () => homeOf(sales({ count: 1, changed: true, autoRefresh: auto, problem })),
    });
    store.autoRefreshMs = 30;
    watchers[0]!();
    await new Promise((r) => setTimeout(r, 200));
    auto = true;
    problem = "Sheet1!B1 is empty: type a region.";
    await store.loadHome();
    watchers[0]!();
    await new Promise((r) => setTimeout(r, 200));
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual([]);
  });
});

describe("issue 32: the builder", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("issue 32 pane: a filter row takes the selected cell (Use selected cell) and placing passes it as an input", async () => {
    const { store, ws } = await signedIn({ home: homeOf() });
    const placed: (InputRequest[] | undefined)[] = [];
    const queries: string[] = [];
    ws.place = async (what, o) => {
      placed.push(o.inputs);
      if (typeof what !== "number") queries.push(JSON.stringify(what.query.filters));
      return { kind: "placed", placementId: "p", range: "A3:B9", sheetName: "Sheet1" };
    };
    ws.selectionRef = async () => "Sheet1!B1";
    ws.meta = async () => [
      {
        name: "orders",
        title: "Orders",
        measures: [{ name: "orders.count", title: "Count", type: "count" }],
        dimensions: [{ name: "orders.region", title: "Region", type: "string" }],
      },
    ];
    store.route.value = "builder";
    mount(<BuilderView store={store} />);
    await until(() => byText("label", "Count") !== undefined);
    byText("label", "Count")!.querySelector("input")!.click();
    await new Promise((r) => setTimeout(r, 20));
    byText("button", "Add filter")!.click();
    await until(() => byText("button", "Use selected cell for filter 1") !== undefined);
    const member = document.querySelector<HTMLSelectElement>('[aria-label="Filter 1 member"]')!;
    member.value = "orders.region";
    member.dispatchEvent(new Event("change", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 20));
    byText("button", "Use selected cell for filter 1")!.click();
    await until(() => document.body.textContent!.includes("From Sheet1!B1"));
    expect(document.querySelector('[aria-label="Filter 1 values (comma separated)"]')).toBeNull();
    const name = document.querySelector<HTMLInputElement>("#cb-report-name")!;
    name.value = "Orders by region";
    name.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 20));
    byText("button", "Save report")!.click();
    await until(() => placed.length === 1);
    expect(placed[0]).toEqual([{ member: "orders.region", ref: "Sheet1!B1" }]);
    expect(queries[0]).toBe("[]"); // no typed values: the placement adds the filter from the cell
  });

  it("issue 32 pane: the time dimension's date range takes two selected cells (from, to) and placing passes them as an input", async () => {
    const { store, ws } = await signedIn({ home: homeOf() });
    const placed: (InputRequest[] | undefined)[] = [];
    ws.place = async (_what, o) => {
      placed.push(o.inputs);
      return { kind: "placed", placementId: "p", range: "A3:B9", sheetName: "Sheet1" };
    };
    ws.selectionRef = async () => "Inputs!B1:B2";
    ws.meta = async () => [
      {
        name: "orders",
        title: "Orders",
        measures: [{ name: "orders.count", title: "Count", type: "count" }],
        dimensions: [{ name: "orders.created_at", title: "Created at", type: "time" }],
      },
    ];
    store.route.value = "builder";
    mount(<BuilderView store={store} />);
    await until(() => byText("label", "Count") !== undefined);
    byText("label", "Count")!.querySelector("input")!.click();
    const time = document.querySelector<HTMLSelectElement>("#cb-time")!;
    time.value = "orders.created_at";
    time.dispatchEvent(new Event("change", { bubbles: true }));
    await until(() => byText("button", "Use selected cells for the date range") !== undefined);
    byText("button", "Use selected cells for the date range")!.click();
    await until(() => document.querySelector<HTMLInputElement>("#cb-range")!.value === "From Inputs!B1:B2 (from, to)");
    expect(document.querySelector<HTMLInputElement>("#cb-range")!.disabled).toBe(true);
    const name = document.querySelector<HTMLInputElement>("#cb-report-name")!;
    name.value = "Orders by month";
    name.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 20));
    byText("button", "Save report")!.click();
    await until(() => placed.length === 1);
    expect(placed[0]).toEqual([{ member: "orders.created_at", ref: "Inputs!B1:B2" }]);
  });
});
