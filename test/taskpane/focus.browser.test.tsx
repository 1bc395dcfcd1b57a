// Issue 25 §3: keyboard focus. A question takes focus on its safe choice (Cancel / Keep it), Escape
// closes it, and focus returns to what opened it; after sign-in focus lands on the home heading,
// after a placement on the new card (in view, with the notice still visible).
import { render } from "preact";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
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
  root.style.width = "320px";
  document.body.append(root);
  render(<App store={store} />, root);
  return root;
}

function button(within: Element, name: string): HTMLButtonElement {
  const found = [...within.querySelectorAll("button")].find((b) => (b.getAttribute("aria-label") ?? b.textContent ?? "").trim() === name);
  if (!found) throw new Error(`no button named ${name}`);
  return found;
}

const focused = () => document.activeElement as HTMLElement | null;
const label = (el: Element | null) => (el?.getAttribute("aria-label") ?? el?.textContent ?? "").trim();
const escape = (el: Element) => el.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));

const REPORT = { id: 6, publicId: "DemoReport06", name: "Revenue by month", title: "Revenue by month", updatedAt: null, ownerName: "Ana" };
const many = Array.from({ length: 30 }, (_, i) =>
  placement({ id: `p${i}`, reportName: `Report ${i}`, range: `A${i * 20 + 1}:C${i * 20 + 10}` }),
);

describe("keyboard focus (issue 25 §3)", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
    window.scrollTo(0, 0);
  });

  it("after sign-in focus is on the home heading, not <body>", async () => {
    const { backend } = scriptedBackend({ home: { workbookName: "Q3.xlsx", copied: false, placements: [] } });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    const input = root.querySelector<HTMLInputElement>("input[type=password], input")!;
    input.focus();
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => focused()?.id === "cb-home-title");
    expect(focused()!.textContent).toBe("Q3.xlsx");
  });

  it("the overwrite question focuses Cancel, Escape closes it and focus returns to Place; after placing, the new card has focus below the notice", async () => {
    const home = { workbookName: "Q3.xlsx", copied: false, placements: many };
    const { backend, calls } = scriptedBackend({
      home,
      reports: [REPORT],
      place: (_id, confirmed) =>
        confirmed
          ? { kind: "placed", placementId: "p29", range: "A581:C590", sheetName: "Sheet1" }
          : { kind: "wouldOverwrite", count: 1, addresses: ["B3"], target: "Sheet1!A1:C10" },
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    store.navigate("reports");
    await until(() => root.textContent!.includes("Revenue by month"));
    const place = button(root, "Place report Revenue by month");
    place.focus();
    place.click();
    await until(() => root.querySelector("[role=alertdialog]") !== null);
    const question = root.querySelector("[role=alertdialog]")!;
    await until(() => label(focused()) === "Cancel" && question.contains(focused()));
    escape(focused()!);
    await until(() => root.querySelector("[role=alertdialog]") === null);
    await until(() => label(focused()) === "Place report Revenue by month");
    expect(calls.filter((c) => c.startsWith("place"))).toEqual(["place 6"]);

    // Again, and Overwrite: the home opens with the new card focused and in view, the notice visible.
    button(root, "Place report Revenue by month").click();
    await until(() => root.querySelector("[role=alertdialog]") !== null);
    button(root, "Overwrite").click();
    await until(() => focused()?.getAttribute("data-placement") === "p29");
    const card = focused()!.getBoundingClientRect();
    const notice = root.querySelector(".cb-notice")!.getBoundingClientRect();
    expect(root.querySelector(".cb-notice")!.textContent).toContain("Report placed");
    expect(notice.top).toBeGreaterThanOrEqual(0);
    expect(notice.bottom).toBeLessThanOrEqual(card.top);
    expect(card.bottom).toBeLessThanOrEqual(window.innerHeight);
  });

  it("the hand-edit banner focuses Cancel, Escape closes it, and focus returns to the card's Refresh", async () => {
    const { backend, calls } = scriptedBackend({
      home: {
        workbookName: "Q3.xlsx",
        copied: false,
        placements: [placement({ id: "a", status: "editedByHand", editedRows: [{ from: 4, to: 4 }] })],
      },
      refresh: async () => ({
        kind: "handEdited",
        reportName: "Sales by month",
        editedRows: [{ from: 4, to: 4 }],
        diff: [{ cell: "B4", lastWritten: 1, now: 2, incoming: 3 }],
        editedCells: 1,
      }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="a"]') !== null && focused()?.id === "cb-home-title");
    const refresh = button(root.querySelector('[data-placement="a"]')!, "Refresh");
    refresh.focus();
    refresh.click();
    await until(() => root.querySelector("#cb-edit-title") !== null);
    const banner = root.querySelector("#cb-edit-title")!.closest("section")!;
    await until(() => label(focused()) === "Cancel" && banner.contains(focused())).catch((e) => {
      throw new Error(`focus on ${focused()?.outerHTML}`, { cause: e });
    });
    escape(focused()!);
    await until(() => root.querySelector("#cb-edit-title") === null).catch((e) => {
      throw new Error(`prompt ${JSON.stringify(store.editPrompt.value)} focus ${focused()?.outerHTML}`, { cause: e });
    });
    await until(() => label(focused()) === "Refresh" && root.querySelector('[data-placement="a"]')!.contains(focused())).catch((e) => {
      throw new Error(`focus ${focused()?.outerHTML}`, { cause: e });
    });
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual(["refresh a ask"]); // nothing overwritten
  });

  it("the Disconnect question focuses Keep it (Enter twice never disconnects) and gives focus back", async () => {
    const { backend, calls } = scriptedBackend({ home: { workbookName: "Q3.xlsx", copied: false, placements: [placement({ id: "a" })] } });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="a"]') !== null && focused()?.id === "cb-home-title");
    const card = () => root.querySelector('[data-placement="a"]')!;
    button(card(), "Disconnect").focus();
    button(card(), "Disconnect").click();
    await until(() => label(focused()) === "Keep it");
    focused()!.click(); // what a second Enter does
    await until(() => card().querySelector("[role=group]") === null);
    await until(() => label(focused()) === "Disconnect");
    expect(calls.some((c) => c.startsWith("disconnect"))).toBe(false);
  });
});
