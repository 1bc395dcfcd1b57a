// Issue 36 items 18–20: two things at once in the pane, at the store and the views over a scripted
// backend (the same interleavings run end to end in Chromium in test/e2e/two-at-once.test.ts).
import { render } from "preact";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import type { RefreshAllProgress } from "../../src/taskpane/home/types";
import { placement, scriptedBackend } from "./scripted";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function mount(store: PaneStore): HTMLElement {
  installTheme(document, undefined);
  const root = document.createElement("div");
  document.body.append(root);
  render(<App store={store} />, root);
  return root;
}

function button(root: Element, name: string): HTMLButtonElement {
  const found = [...root.querySelectorAll("button")].filter((b) => (b.getAttribute("aria-label") ?? b.textContent ?? "").trim() === name);
  if (found.length === 0) throw new Error(`no button named ${name}`);
  return found[0]!;
}

const HOME = {
  workbookName: "Q3 numbers.xlsx",
  copied: false,
  placements: [
    placement({ id: "a", range: "A1:C10", reportName: "Sales by month" }),
    placement({ id: "b", range: "F1:G40", reportName: "Top customers" }),
  ],
};

const KEY = { baseUrl: "http://x", dataUrl: null, credential: "good-key" } as const;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A promise and its resolve. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe("two things at once in the pane (issue 36)", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
  });

  it("issue 36 item 18: Sign out during Refresh all waits for the write under way, then clears; nothing of it shows in the next session", async () => {
    const write = gate();
    const kv = memoryStore();
    const { backend, calls } = scriptedBackend({
      home: HOME,
      refreshAll: async ({ onProgress, signal }) => {
        const running: RefreshAllProgress = {
          done: 1,
          total: 2,
          rows: { a: { state: "done", summary: "No change" }, b: { state: "refreshing" } },
        };
        onProgress(running);
        // Stop acts between placements: b's write has begun, so it is finished (with its record) first.
        await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
        await write.opened;
        return {
          done: 2,
          total: 2,
          rows: { a: { state: "done", summary: "No change" }, b: { state: "done", summary: "2 cells changed" } },
        };
      },
    });
    const store = new PaneStore(backend, new SecretStore(kv));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    button(root, "Refresh all").click();
    await until(() => root.textContent!.includes("Refreshing 1 of 2"));

    button(root, "Sign out").click();
    await pause(100);
    // Nothing is cleared while the write under way finishes: the key is still stored, the workspace open.
    expect(root.textContent).not.toContain("Signed out");
    expect(await kv.keys()).not.toEqual([]);
    expect(calls).not.toContain("close");
    expect(root.textContent).toContain("Signing out — stopping the refresh…");
    expect(button(root, "Sign out").disabled).toBe(true);

    write.open();
    await until(() => root.textContent!.includes("Signed out"));
    expect(await kv.keys()).toEqual([]);
    expect(calls).toContain("close");
    expect(store.refreshAll.value).toBeNull();
    expect(store.rowStates.value).toEqual({});

    // The next session (another person, say) sees nothing of the last one's Refresh all.
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    await pause(50);
    expect(root.querySelector("footer.cb-footer")).toBeNull();
    expect(root.textContent).not.toMatch(/Refreshed 2 of 2|Last refresh|2 cells changed/);
  });

  it("issue 36 item 18: Sign out during a single refresh says Signed out, never Refresh cancelled", async () => {
    const { backend } = scriptedBackend({
      home: HOME,
      refresh: (_id, _choice, signal) =>
        new Promise((_, reject) =>
          signal?.addEventListener("abort", () => setTimeout(() => reject(new DOMException("aborted", "AbortError")), 30)),
        ),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root.querySelector('[data-placement="a"]')!, "Refresh").click();
    await until(() => root.textContent!.includes("Refreshing Sales by month…"));
    const labels: string[] = [];
    store.busy.subscribe((b) => b && labels.push(b.label));
    button(root, "Sign out").click();
    await until(() => root.textContent!.includes("Signed out"));
    await pause(200);
    expect(store.notice.value?.title).toBe("Signed out");
    expect(root.textContent).not.toContain("Refresh cancelled");
    expect(labels).toContain("Signing out — stopping the refresh…");
  });

  it("issue 36 item 19: while a placement's Disconnect question is open or it is being disconnected, nothing else starts on it, and Refresh all says why", async () => {
    const disconnected = gate();
    const { backend, calls } = scriptedBackend({
      home: HOME,
      disconnect: async () => disconnected.opened,
      refreshAll: async () => ({ done: 2, total: 2, rows: {} }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    const a = () => root.querySelector('[data-placement="a"]')!;
    const why = () => root.querySelector("#cb-refresh-all-why")?.textContent ?? null;

    button(a(), "Disconnect").click();
    await until(() => a().querySelector("[role=group]") !== null);
    expect(button(a(), "Refresh").disabled).toBe(true);
    expect(button(a(), "Refresh").title).toBe("Refresh can start once you answer the question about disconnecting “Sales by month”.");
    expect(button(root, "Refresh all").disabled).toBe(true);
    expect(why()).toBe("Refresh all can start once you answer the question about disconnecting “Sales by month”.");
    expect(button(root, "Refresh all").getAttribute("aria-describedby")).toBe("cb-refresh-all-why");
    // The other card is not held.
    expect(button(root.querySelector('[data-placement="b"]')!, "Refresh").disabled).toBe(false);
    await store.refresh("a"); // nothing starts on it (a script or a stale click)
    await store.refreshEverything();
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual([]);

    button(a(), "Keep it").click();
    await until(() => a().querySelector("[role=group]") === null);
    expect(button(a(), "Refresh").disabled).toBe(false);
    expect(button(root, "Refresh all").disabled).toBe(false);
    expect(why()).toBeNull();

    button(a(), "Disconnect").click();
    await until(() => a().querySelector("[role=group]") !== null);
    button(a(), "Confirm disconnect").click();
    await until(() => calls.includes("disconnect a"));
    expect(button(a(), "Refresh").disabled).toBe(true);
    expect(why()).toBe("Refresh all can start once “Sales by month” is disconnected.");
    disconnected.open();
    await until(() => root.textContent!.includes("Disconnected"));
    await until(() => why() === null);
  });

  it("issue 36 item 19: a refresh that fails naming the placement's key or tracking name says its report's title instead", async () => {
    const key = "iBVYHgrsk783";
    const { backend } = scriptedBackend({
      home: { ...HOME, placements: [placement({ id: key, reportName: "Report" })] },
      refresh: async () => {
        throw new Error(`No placement ${key} is tracked in this workbook (CB_${key}).`);
      },
      refreshAll: async () => ({
        done: 0,
        total: 1,
        rows: { [key]: { state: "failed", reason: `No placement ${key} is tracked in this workbook.` } },
      }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector("[data-placement]") !== null);
    await store.refresh(key);
    await until(() => root.textContent!.includes("was not refreshed"));
    expect(root.textContent).not.toContain(key);
    expect(store.notice.value?.detail).toBe("No placement “Report” is tracked in this workbook (“Report”).");
    await store.refreshEverything();
    await until(() => root.textContent!.includes("is no longer in this workbook"));
    expect(root.textContent).toContain("“Report” is no longer in this workbook (it was disconnected).");
    expect(root.textContent).not.toContain(key);
  });

  it("issue 36 item 20: a placement cancelled part way says which rows stay and how to finish it", async () => {
    const { backend, ws } = scriptedBackend({ home: HOME });
    ws.place = (_id, o) =>
      new Promise((_, reject) =>
        o.signal?.addEventListener("abort", () =>
          reject(
            Object.assign(
              new Error(
                "100,000 rows of “All orders” were written to Sheet1!A1:C100001 before it stopped: they stay there, as a placement not finished.",
              ),
              { name: "PlaceInterrupted" },
            ),
          ),
        ),
      );
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    store.navigate("reports");
    const placing = store.place(7);
    await until(() => root.textContent!.includes("Placing report…"));
    button(root, "Workbook").click(); // the person switches tabs
    expect(await placing).toBe(false);
    await until(() => store.notice.value !== null);
    expect(store.notice.value).toMatchObject({
      tone: "warning",
      title: "Placing the report was cancelled part way",
      detail:
        "100,000 rows of “All orders” were written to Sheet1!A1:C100001 before it stopped: they stay there, as a placement not finished.",
      next: "On the Workbook tab it shows as “Interrupted — finish refresh”: press its Refresh to finish placing it, or Disconnect it and delete those rows if you do not want it.",
    });
    expect(root.textContent).not.toContain("Placing the report cancelled");
  });

  it("issue 36 item 20: leaving Reports while its list loads says nothing on the Workbook tab; the person's Cancel still does", async () => {
    const { backend } = scriptedBackend({
      home: HOME,
      reports: (signal) =>
        new Promise((_, reject) =>
          signal?.addEventListener("abort", () => setTimeout(() => reject(new DOMException("aborted", "AbortError")), 20)),
        ),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root, "Reports").click();
    await until(() => root.textContent!.includes("Loading reports…"));
    button(root, "Workbook").click();
    await pause(150);
    expect(root.textContent).not.toContain("Loading reports was cancelled");
    expect(store.notice.value).toBeNull();
    // A notice of the Reports view never shows on another tab.
    store.notice.value = { tone: "info", title: "Loading reports was cancelled", kind: "reports-load", view: "reports" };
    await pause(20);
    expect(root.textContent).not.toContain("Loading reports was cancelled");

    button(root, "Reports").click();
    await until(() => root.textContent!.includes("Loading reports…"));
    button(root, "Cancel loading reports").click();
    await until(() => root.textContent!.includes("Loading reports was cancelled"));
  });

  it("issue 36 item 20: switching deployment takes the last Refresh all's footer and card states with it", async () => {
    const { backend } = scriptedBackend({
      home: HOME,
      refreshAll: async () => ({
        done: 2,
        total: 2,
        rows: { a: { state: "done", summary: "No change" }, b: { state: "done", summary: "No change" } },
      }),
    });
    const signIn = backend.signIn;
    backend.signIn = async (input, signal) => ({
      ...(await signIn(input, signal)),
      deployments: [
        { id: 1, name: "Production" },
        { id: 2, name: "Staging" },
      ],
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await store.chooseDeployment({ id: 1, name: "Production" });
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root, "Refresh all").click();
    await until(() => root.textContent!.includes("Refreshed 2 of 2"));
    await store.chooseDeployment({ id: 2, name: "Staging" }, { focusHome: false });
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    expect(root.querySelector("footer.cb-footer")).toBeNull();
    expect(root.textContent).not.toContain("Last refresh");
  });

  it("issue 36 item 20: a refresh's summary and its notices read as sentences", async () => {
    const { backend } = scriptedBackend({
      home: HOME,
      refresh: async () => ({
        kind: "refreshed",
        cellsWritten: 243_510,
        summary: "243,510 cells changed",
        notices: ["An earlier refresh of this placement was interrupted after writing; it is now complete."],
      }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    mount(store);
    await store.signIn(KEY);
    await store.refresh("a");
    expect(store.notice.value?.detail).toBe(
      "Sales by month: 243,510 cells changed. An earlier refresh of this placement was interrupted after writing; it is now complete.",
    );
  });

  it("issue 36 item 20: the placement's progress line and its Cancel end as “Report placed” shows", async () => {
    let loads = 0;
    const { backend } = scriptedBackend({
      home: HOME,
      homeLoad: async (n) => {
        loads = n;
        if (n > 1) await pause(400); // the check after the placement takes a while
        return HOME;
      },
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    store.navigate("reports");
    const placing = store.place(7);
    await until(() => root.textContent!.includes("Report placed"));
    expect(loads).toBeGreaterThan(1); // the check is under way…
    expect(store.busy.value).toBeNull(); // …and the progress line is gone
    expect(root.textContent).not.toContain("Placing report…");
    expect(root.querySelector('button[aria-label="Cancel placing report"]')).toBeNull();
    await placing;
  });

  it("issue 36 item 20: Refresh all does not start while a placement is refreshed on its own, and says why", async () => {
    const refreshed = gate();
    const { backend, calls } = scriptedBackend({
      home: HOME,
      refresh: async () => {
        await refreshed.opened;
        return { kind: "refreshed", cellsWritten: 0, summary: "No change" };
      },
      refreshAll: async () => ({ done: 2, total: 2, rows: {} }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn(KEY);
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root.querySelector('[data-placement="a"]')!, "Refresh").click();
    await until(() => root.textContent!.includes("Refreshing Sales by month…"));
    expect(button(root, "Refresh all").disabled).toBe(true);
    expect(root.querySelector("#cb-refresh-all-why")?.textContent).toBe("Refresh all can start once “Sales by month” is refreshed.");
    await store.refreshEverything();
    await store.refresh("a");
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual(["refresh a ask"]);
    refreshed.open();
    await until(() => !button(root, "Refresh all").disabled);
    expect(root.querySelector("#cb-refresh-all-why")).toBeNull();
  });
});
