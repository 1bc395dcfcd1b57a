// Issue 25 §2 (refresh): a frozen platform. The pane says early and plainly that it is still
// waiting (with Cancel); the refresh ends with one message in words naming the report (the request
// paths behind Details) that the failed home re-check does not replace; and the other cards are not
// called "Up to date" while the platform cannot be reached (Not checked, "not checked since …").
import { render } from "preact";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import { placement, scriptedBackend } from "./scripted";

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const TECHNICAL = "POST /v1/load: not done within 180 s (last: POST /cubejs-api/v1/load: no answer within 59.9 s)";
const timeout = () => Object.assign(new Error(TECHNICAL), { name: "TimeoutError", kind: "timeout", status: 0 });

describe("a frozen platform during a refresh (issue 25 §2)", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
  });

  it("says it is still waiting, ends in words naming the report, keeps that message, and calls no other card Up to date", async () => {
    let release: (() => void) | null = null;
    let frozen = false;
    const { backend } = scriptedBackend({
      home: {
        workbookName: "Q3.xlsx",
        copied: false,
        placements: [
          placement({ id: "a", reportName: "Revenue by month", range: "A1:C13" }),
          placement({ id: "b", reportName: "Top customers", range: "E1:F11" }),
        ],
      },
      refresh: () =>
        new Promise((_, reject) => {
          frozen = true;
          release = () => reject(timeout());
        }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    store.slowAfterMs = 300;
    installTheme(document, undefined);
    const root = document.createElement("div");
    root.style.width = "320px";
    document.body.append(root);
    render(<App store={store} />, root);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length === 2);
    const card = (id: string) => root.querySelector(`[data-placement="${id}"]`)!;
    expect(card("b").getAttribute("data-status")).toBe("upToDate");

    // The home re-check after the failure cannot reach the platform either (a message naming a workbook id).
    const ws = store.workspace.value!;
    const goodHome = ws.home;
    ws.home = async (signal) =>
      frozen
        ? Promise.reject(new Error("GET /api/v1/external-documents/2b7c1f0e-9d9e-4c55-a3c0-3f2a0e0c7d11/placements: 503"))
        : goodHome(signal);

    [...card("a").querySelectorAll("button")].find((b) => b.textContent === "Refresh")!.click();
    await until(() => root.querySelector(".cb-waiting") !== null);
    expect(root.querySelector(".cb-waiting")!.textContent).toMatch(/^Still waiting for the platform — \d+ s\. Cancel stops waiting\.$/);
    expect([...root.querySelectorAll("button")].some((b) => b.textContent === "Cancel")).toBe(true);

    release!();
    await until(() => store.busy.value === null && !store.homeLoading.value && store.homeStale.value !== null);
    await new Promise((r) => setTimeout(r, 50));
    const notice = root.querySelector(".cb-notice")!;
    expect(notice.querySelector("strong")!.textContent).toBe("“Revenue by month” was not refreshed: the platform did not answer in time");
    const visible = [...notice.children]
      .filter((c) => c.tagName !== "DETAILS")
      .map((c) => c.textContent)
      .join(" ");
    expect(visible).not.toMatch(/POST|\/v1\/|cubejs|2b7c1f0e/);
    const details = notice.querySelector("details")!;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain(TECHNICAL);

    // The other card is not "Up to date": the platform could not be asked.
    expect(card("b").getAttribute("data-status")).toBe("unknown");
    expect(card("b").textContent).toMatch(/Not checked since \d\d:\d\d: the platform did not answer\./);
    expect(root.textContent).not.toContain("Up to date");

    // The platform answers again: the next check makes the cards current.
    frozen = false;
    await store.loadHome();
    await until(() => card("b").getAttribute("data-status") === "upToDate");
    expect(store.homeStale.value).toBeNull();
  });
});
