// Issue 25 §4: stale notices are withdrawn. "No platform API answers at …" goes once the URL is
// edited; an earlier refresh's notice does not stay above a later Refresh all; "Resolved threads are
// hidden" goes once the thread filter changes. Progress counts with thousands separators.
import { render } from "preact";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import { placement, scriptedBackend } from "./scripted";
import { ProgressLine } from "../../src/taskpane/ui/Notice";

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

describe("stale notices are withdrawn (issue 25 §4)", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
  });

  it("a URL no platform answers at: the message goes once the URL is edited", async () => {
    const { backend } = scriptedBackend({ home: { workbookName: "Q3.xlsx", copied: false, placements: [] } });
    backend.signIn = async (input) => {
      throw Object.assign(new Error(`No platform API answers at ${input.baseUrl} (404).`), { kind: "platform-url", status: 404 });
    };
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://127.0.0.1:9", dataUrl: null, credential: "k" });
    await until(() => root.textContent!.includes("No platform API answers at"));
    const url = root.querySelector<HTMLInputElement>("#cb-base-url")!;
    url.value = "http://127.0.0.1:3001";
    url.dispatchEvent(new Event("input", { bubbles: true }));
    await until(() => !root.textContent!.includes("No platform API answers at"));
  });

  it("Refresh all replaces an earlier refresh's notice", async () => {
    const { backend } = scriptedBackend({
      home: { workbookName: "Q3.xlsx", copied: false, placements: [placement({ id: "a" })] },
      refreshAll: async () => ({ done: 1, total: 1, rows: { a: { state: "done", summary: "No change" } } }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    store.notice.value = { tone: "info", title: "Refreshed, your edits kept", detail: "The rows you edited were left as they are." };
    await until(() => root.textContent!.includes("Refreshed, your edits kept"));
    await store.refreshEverything();
    await until(() => root.textContent!.includes("Refreshed 1 of 1"));
    expect(root.textContent).not.toContain("Refreshed, your edits kept");
  });

  it("progress counts carry thousands separators", async () => {
    const root = document.createElement("div");
    document.body.append(root);
    render(<ProgressLine label="Writing rows" done={20001} total={20001} />, root);
    await until(() => root.textContent === "Writing rows 20,001 of 20,001");
  });
});
