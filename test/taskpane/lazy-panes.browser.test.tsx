// Panes that load when they are opened (issue 34), in Chromium over a scripted backend: while a pane's
// chunk (its view and its live service) comes, the pane shows its loading line; when it cannot be
// loaded (offline), the pane says so and what to do, and opening the pane again loads it. The live
// backend, loaded at the first sign-in, says the same in the Connect view and loads at the next try.
import { render } from "preact";
import { App } from "../../src/taskpane/app/App";
import { backendOnDemand } from "../../src/taskpane/app/backend-on-demand";
import type { ServicePane } from "../../src/taskpane/app/model";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import { scriptedBackend } from "./scripted";

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What webpack throws when a chunk does not arrive (offline). */
function chunkLoadError(file: string): Error {
  return Object.assign(new Error(`Loading chunk 377 failed.\n(error: https://cellbound.example.com/${file})`), {
    name: "ChunkLoadError",
    type: "error",
    request: `https://cellbound.example.com/${file}`,
  });
}

const HOME = { workbookName: "Book.xlsx", copied: false, placements: [] };
const text = (root: HTMLElement) => root.textContent ?? "";
const tab = (root: HTMLElement, name: string) =>
  [...root.querySelectorAll<HTMLButtonElement>("nav button")].find((b) => b.textContent?.trim() === name)!;

function mount(store: PaneStore): HTMLElement {
  installTheme(document, undefined);
  const root = document.createElement("div");
  root.style.width = "320px";
  document.body.append(root);
  render(<App store={store} />, root);
  return root;
}

describe("panes that load when they are opened (issue 34)", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
  });

  it("issue 34: a pane whose chunk does not arrive says so with what to do; opening it again loads it", async () => {
    const { backend, ws } = scriptedBackend({ home: HOME });
    const asked: ServicePane[] = [];
    let answer: (ok: boolean) => void = () => undefined;
    ws.openPane = (pane) => {
      asked.push(pane);
      return new Promise<void>((resolve, reject) => {
        answer = (ok) => (ok ? resolve() : reject(chunkLoadError("chat.de031e15.js")));
      });
    };
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    await store.signIn({ baseUrl: "http://127.0.0.1:1", dataUrl: null, credential: "good-key" });
    const root = mount(store);
    await until(() => tab(root, "Chat") !== undefined);

    tab(root, "Chat").click();
    // While the chunk comes: the pane's loading line, nothing else of it.
    await until(() => text(root).includes("Loading the chat…"));
    expect(asked).toEqual(["chat"]);
    answer(false);
    await until(() => text(root).includes("The Chat pane could not be loaded"));
    const alert = root.querySelector<HTMLElement>("main [role=alert]")!;
    // The words say what happened and what to do; webpack's own message only behind Details.
    const said = [...alert.querySelectorAll(":scope > strong, :scope > p")].map((e) => e.textContent);
    expect(said).toEqual([
      "The Chat pane could not be loaded",
      "Cellbound downloads this part when it is first needed, and the download failed: the connection may be down.",
      "Check the connection and open it again.",
    ]);
    expect(alert.querySelector("details")?.textContent).toContain("chat.de031e15.js");

    // Opening the pane again (its tab) tries again, and this time the chunk comes.
    tab(root, "Chat").click();
    await until(() => asked.length === 2);
    answer(true);
    // The chat's own view: this scripted workspace offers no chat service.
    await until(() => text(root).includes("Chat is not available here"));
    expect(text(root)).not.toContain("could not be loaded");
    expect(asked).toEqual(["chat", "chat"]);
  });

  it("issue 34: the live backend loads at the first sign-in; offline, Connect says so, and signing in again loads it", async () => {
    const { backend } = scriptedBackend({ home: HOME });
    let loads = 0;
    const onDemand = backendOnDemand(async () => {
      loads++;
      if (loads === 1) throw chunkLoadError("backend.99a44487.js");
      return backend;
    });
    const store = new PaneStore(onDemand, new SecretStore(memoryStore()));
    const root = mount(store);
    expect(loads).toBe(0);
    const input = { baseUrl: "http://127.0.0.1:1", dataUrl: null, credential: "good-key" };
    expect(await store.signIn(input)).toBe(false);
    await until(() => text(root).includes("Part of Cellbound could not be loaded"));
    expect(text(root)).toContain("Check the connection and try again.");
    expect(await store.signIn(input)).toBe(true);
    expect(loads).toBe(2);
    await until(() => tab(root, "Workbook") !== undefined);
    // Loaded once: the next calls use it.
    await store.signIn(input);
    expect(loads).toBe(2);
  });
});
