// Mounts the real task-pane shell in Chromium.
import { render } from "preact";
import { Shell } from "../../src/taskpane/shell/Shell";
import { waitForOffice } from "../../src/taskpane/office-host";

function mount(node: preact.ComponentChild): HTMLElement {
  const root = document.createElement("div");
  document.body.append(root);
  render(node, root);
  return root;
}

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("task-pane shell", () => {
  it("outside Office (no Office global) shows a clear message, not a blank page", async () => {
    const root = mount(<Shell ready={waitForOffice(1000, {})}>{() => <p>app</p>}</Shell>);
    await until(() => root.textContent!.includes("Cellbound runs inside Excel"));
    expect(root.querySelector("h1")?.textContent).toBe("Cellbound runs inside Excel");
    expect(root.textContent).toContain("npm start");
    expect(root.textContent).not.toContain("app");
  });

  it("when Office.onReady resolves with host null, shows the same message", async () => {
    const fakeOffice = { onReady: () => Promise.resolve({ host: null, platform: null }) };
    const root = mount(<Shell ready={waitForOffice(1000, { Office: fakeOffice })}>{() => <p>app</p>}</Shell>);
    await until(() => root.textContent!.includes("Cellbound runs inside Excel"));
  });

  it("inside Excel renders the app with the host info", async () => {
    const fakeOffice = { onReady: () => Promise.resolve({ host: "Excel", platform: "OfficeOnline" }) };
    const root = mount(<Shell ready={waitForOffice(1000, { Office: fakeOffice })}>{(h) => <p id="app">app on {h.platform}</p>}</Shell>);
    await until(() => root.querySelector("#app") !== null);
    expect(root.querySelector("#app")?.textContent).toBe("app on OfficeOnline");
  });
});
