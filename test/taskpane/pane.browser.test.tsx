// The pane's views in Chromium over a scripted backend: Connect (secrets in add-in storage, Sign out
// clears them), workbook home (grouping, badges, DENIED read-only), hand-edit banner and diff,
// Refresh all progress and Stop, 422 message, stable accessible names, 320 px, theme.
import { render } from "preact";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme, officeThemeName } from "../../src/taskpane/theme/theme";
import { placement, scriptedBackend } from "./scripted";
import type { RefreshAllProgress } from "../../src/taskpane/home/types";

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

function button(root: HTMLElement, name: string, within: Element = root): HTMLButtonElement {
  const found = [...within.querySelectorAll("button")].filter((b) => (b.getAttribute("aria-label") ?? b.textContent ?? "").trim() === name);
  if (found.length === 0) throw new Error(`no button named ${name}`);
  return found[0]!;
}

function type(input: HTMLInputElement, value: string) {
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

const HOME = {
  workbookName: "Q3 numbers.xlsx",
  copied: false,
  placements: [
    placement({
      id: "a",
      sheetName: "Sales",
      range: "A1:D1200",
      reportName: "Sales by month",
      status: "editedByHand",
      editedRows: [{ from: 1001, to: 2000 }],
    }),
    placement({ id: "b", sheetName: "Sales", range: "F1:G40", reportName: "Top customers", status: "outOfDate" }),
    placement({
      id: "c",
      sheetName: "Ops",
      range: "B2:C5",
      reportName: null,
      status: "noAccess",
      owner: { name: "Olga Outsider", email: "olga@example.com" },
      deploymentId: 2,
    }),
  ],
};

describe("task pane views", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("Connect signs in, keeps the secret in add-in storage only, and Sign out clears every secret", async () => {
    const kv = memoryStore();
    const { backend, calls } = scriptedBackend({ home: HOME });
    const store = new PaneStore(backend, new SecretStore(kv));
    const root = mount(store);
    type(root.querySelector<HTMLInputElement>("#cb-base-url")!, "http://127.0.0.1:9999");
    type(root.querySelector<HTMLInputElement>("#cb-credential")!, "bad-key");
    button(root, "Sign in").click();
    await until(() => root.textContent!.includes("Your sign-in was not accepted"));
    // Advice fits the view: on Connect there is nothing to sign out of.
    expect(root.querySelector("[role=alert]")!.textContent).toContain("Check the API key or access token and sign in again");
    expect(root.querySelector("[role=alert]")!.textContent).not.toContain("Sign out");
    expect(await kv.keys()).toEqual([]);

    type(root.querySelector<HTMLInputElement>("#cb-credential")!, "good-key");
    button(root, "Sign in").click();
    await until(() => root.textContent!.includes("Q3 numbers.xlsx"));
    expect(calls).toContain("signIn http://127.0.0.1:9999");
    const stored = await kv.getItem("cellbound.connection");
    expect(JSON.parse(stored!)).toMatchObject({ baseUrl: "http://127.0.0.1:9999", credential: "good-key", deploymentId: 1 });
    await kv.setItem("cellbound.token-cache", "jwt");
    expect(document.body.innerHTML).not.toContain("good-key");
    expect(location.href).not.toContain("good-key");

    button(root, "Sign out").click();
    await until(() => root.textContent!.includes("Signed out"));
    expect(await kv.keys()).toEqual([]);
    expect(root.querySelector("#cb-credential")).not.toBeNull();
    expect(calls).toContain("close");
  });

  it("a stored connection reconnects on start", async () => {
    const kv = memoryStore();
    await kv.setItem(
      "cellbound.connection",
      JSON.stringify({ baseUrl: "http://127.0.0.1:1", dataUrl: null, credential: "good-key", deploymentId: 1 }),
    );
    const { backend } = scriptedBackend({ home: HOME });
    const store = new PaneStore(backend, new SecretStore(kv));
    const root = mount(store);
    await store.restore();
    await until(() => root.textContent!.includes("Q3 numbers.xlsx"));
  });

  it("Disconnect asks first (Escape keeps it); notices name the deployment, successes fade, errors stay", async () => {
    const { backend, calls } = scriptedBackend({ home: HOME });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length === 3);
    const a = () => root.querySelector('[data-placement="a"]')!;
    button(root, "Disconnect", a()).click();
    await until(() => a().querySelector("[role=group]") !== null);
    expect(a().querySelector("[role=group]")!.textContent).toMatch(/Stop refreshing “.+” at .+\? The cells stay/);
    expect(calls.some((c) => c.startsWith("disconnect"))).toBe(false); // nothing yet
    await until(() => document.activeElement?.textContent === "Keep it"); // focus moves into the question, on the safe choice
    a()
      .querySelector("[role=group]")!
      .dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await until(() => a().querySelector("[role=group]") === null);
    expect(calls.some((c) => c.startsWith("disconnect"))).toBe(false);
    button(root, "Disconnect", a()).click();
    await until(() => a().querySelector("[role=group]") !== null);
    button(root, "Confirm disconnect", a()).click();
    await until(() => calls.includes("disconnect a"));

    // An error names the deployment instead of "this deployment", and stays until dismissed.
    store.notice.value = {
      tone: "error",
      title: "You do not have access",
      detail: "Your account is not allowed to do this in this deployment.",
    };
    await until(() => root.querySelector("[role=alert]") !== null);
    const deployment = store.workspace.value!.deployment.name;
    expect(root.querySelector("[role=alert]")!.textContent).toContain(`in the deployment “${deployment}”`);
    button(root, "Dismiss").click();
    await until(() => store.notice.value === null);
  });

  it("Reports: each report shows its folder; Values only is passed on when placing", async () => {
    const reports = [
      {
        id: 6,
        publicId: "DemoReport06",
        name: "Revenue by month",
        title: "Revenue by month",
        updatedAt: null,
        ownerName: "Ana",
        folder: "Sales",
      },
    ];
    const { backend, calls } = scriptedBackend({ home: HOME, reports });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    store.navigate("reports");
    await until(() => root.textContent!.includes("Revenue by month"));
    expect(root.querySelector(".cb-card")!.textContent).toContain("Sales ·");
    button(root, "Place report Revenue by month").click();
    await until(() => calls.includes("place 6") && store.route.value === "home"); // placing ends on the home
    store.navigate("reports");
    await until(() => root.querySelector('[aria-label="Place report Revenue by month"]') !== null);
    root.querySelector<HTMLInputElement>(".cb-check input")!.click();
    await until(() => root.querySelector<HTMLInputElement>(".cb-check input")!.checked);
    button(root, "Place report Revenue by month").click();
    await until(() => calls.includes("place 6 valuesOnly"));
  });

  it("workbook home groups by sheet, shows badges, and DENIED placements with owner and no actions", async () => {
    const { backend } = scriptedBackend({ home: HOME });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length === 3);
    const groups = [...root.querySelectorAll(".cb-sheet h3")].map((h) => h.textContent);
    expect(groups).toEqual(["Sales", "Ops"]);
    const a = root.querySelector('[data-placement="a"]')!;
    expect(a.textContent).toContain("Edited by hand");
    expect(a.textContent).toContain("Rows 1001–2000 edited by hand");
    expect(a.textContent).toContain("refreshed 5 min. ago");
    for (const n of ["Refresh", "Locate", "Disconnect"]) button(root, n, a);
    expect(root.querySelector('[data-placement="b"]')!.textContent).toContain("Out of date");
    const c = root.querySelector('[data-placement="c"]')!;
    expect(c.textContent).toContain("No access");
    expect(c.textContent).toContain("Olga Outsider (olga@example.com)");
    expect(c.querySelectorAll("button")).toHaveLength(0);
    expect(root.scrollWidth).toBeLessThanOrEqual(320);
  });

  it("a view-only placement (a viewer's) is shown read-only: the reason names the owner, no Refresh or Disconnect, Refresh all not offered", async () => {
    const viewOnly = "You can view this report but not refresh it — ask Ana Analyst (ana@example.com) or an admin.";
    const home = {
      workbookName: "Q3 numbers.xlsx",
      copied: false,
      placements: [
        placement({ id: "v", reportName: "Revenue by month", facts: { ...placement({ id: "x" }).facts, viewOnly } }),
        placement({ id: "w", reportName: "Top customers", facts: { ...placement({ id: "x" }).facts, edit: "interrupted", viewOnly } }),
      ],
    };
    const { backend, calls } = scriptedBackend({ home });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length === 2);
    for (const id of ["v", "w"]) {
      const card = root.querySelector(`[data-placement="${id}"]`)!;
      expect(card.getAttribute("data-status")).toBe("viewOnly");
      expect(card.querySelector(".cb-badge")!.textContent).toBe("View only");
      expect(card.textContent).toContain(viewOnly);
      expect(card.textContent).not.toContain("Interrupted");
      expect([...card.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Locate"]);
    }
    expect(button(root, "Refresh all").disabled).toBe(true);
    expect(calls.filter((c) => c.startsWith("refresh"))).toEqual([]);
  });

  it("issue 31 item 5: Connect says where an API key comes from in the command line's words", () => {
    const { backend } = scriptedBackend({ home: HOME });
    const root = mount(new PaneStore(backend, new SecretStore(memoryStore())));
    const hint = root.querySelector("#cb-credential")!.closest(".cb-field")!.querySelector(".cb-hint")!;
    expect(hint.textContent).toBe(
      "Paste an API key or an OAuth access token (ask an admin of your platform for an API key: only admins can create them).",
    );
  });

  it("issue 31 item 3: a viewer is told the role's rule before acting: beside the disabled Refresh all and the disabled Place buttons", async () => {
    const rule =
      "You are a viewer in Production: you can open its reports but not place, refresh or save them — ask an admin for the editor role.";
    const viewOnly = "You can view this report but not refresh it — ask Ana Analyst (ana@example.com) or an admin.";
    const home = {
      workbookName: "Q3 numbers.xlsx",
      copied: false,
      placements: [placement({ id: "v", reportName: "Revenue by month", facts: { ...placement({ id: "x" }).facts, viewOnly } })],
    };
    const reports = [
      {
        id: 6,
        publicId: "R6",
        name: "Revenue by month",
        title: "Revenue by month",
        folder: "Sales",
        ownerName: "Ana",
        updatedAt: new Date().toISOString(),
      },
    ];
    const { backend, calls } = scriptedBackend({ home, reports, roleLimit: rule });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length === 1);
    const refreshAll = button(root, "Refresh all");
    expect(refreshAll.disabled).toBe(true);
    expect(root.querySelector(`#${refreshAll.getAttribute("aria-describedby")}`)?.textContent).toBe(rule);
    store.navigate("reports");
    await until(() => root.querySelector('button[aria-label="Place report Revenue by month"]') !== null);
    const place = button(root, "Place report Revenue by month");
    expect(place.disabled).toBe(true);
    expect(root.querySelector(`#${place.getAttribute("aria-describedby")}`)?.textContent).toBe(rule);
    place.click();
    expect(calls.filter((c) => c.startsWith("place"))).toEqual([]);
  });

  it("Refresh asks first on hand edits: the banner names rows, Locate and Show changes work, Keep and Overwrite pass the choice", async () => {
    const { backend, calls } = scriptedBackend({
      home: HOME,
      refresh: async (_id, choice) =>
        choice === "ask"
          ? {
              kind: "handEdited",
              reportName: "Sales by month",
              editedRows: [{ from: 1001, to: 2000 }],
              diff: [{ cell: "B1002", lastWritten: 10, now: 15294788.18, incoming: 12, format: "$#,##0.00" }],
              editedCells: 1,
            }
          : choice === "keep"
            ? { kind: "kept", editedRows: [{ from: 1001, to: 2000 }] }
            : { kind: "refreshed", cellsWritten: 4, summary: "4 cells changed" },
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root, "Refresh", root.querySelector('[data-placement="a"]')!).click();
    await until(() => root.textContent!.includes("Rows 1001–2000 of Sales by month were edited by hand"));
    const banner = root.querySelector("#cb-edit-title")!.closest("section")!;
    button(root, "Locate", banner).click();
    await until(() => calls.includes("locate a 1001-2000"));
    button(root, "Show changes", banner).click();
    await until(() => banner.querySelector("table") !== null);
    const cells = [...banner.querySelectorAll("tbody tr > *")].map((td) => td.textContent);
    expect(cells).toEqual(["B1002", "$10.00", "$15,294,788.18", "$12.00"]); // as the sheet shows them (issue 25 §4)
    expect([...banner.querySelectorAll("thead th")].map((t) => t.textContent)).toEqual(["Cell", "Last written", "Now", "Incoming"]);

    button(root, "Keep my edits", banner).click();
    await until(() => root.textContent!.includes("Refreshed, your edits kept"));
    expect(calls).toContain("refresh a keep");
    await until(() => store.rowStates.value.a?.state === "done");

    button(root, "Refresh", root.querySelector('[data-placement="a"]')!).click();
    await until(() => root.querySelector("#cb-edit-title") !== null);
    const again = root.querySelector("#cb-edit-title")!.closest("section")!;
    // Destructive is never primary: Keep my edits is; Overwrite my edits is a secondary danger button.
    expect(button(root, "Keep my edits", again).className).toContain("cb-primary");
    expect(button(root, "Overwrite my edits", again).className).toContain("cb-danger");
    expect(button(root, "Overwrite my edits", again).className).not.toContain("cb-primary");
    button(root, "Overwrite my edits", again).click();
    await until(() => calls.includes("refresh a overwrite") && store.rowStates.value.a?.state === "done");

    button(root, "Refresh", root.querySelector('[data-placement="a"]')!).click();
    await until(() => root.querySelector("#cb-edit-title") !== null);
    button(root, "Cancel", root.querySelector("#cb-edit-title")!.closest("section")!).click();
    await until(() => root.querySelector("#cb-edit-title") === null);
    expect(calls.filter((c) => c.startsWith("refresh a")).length).toBe(5);
  });

  it("Refresh all shows N of M with Stop, per-row status, and Stop aborts", async () => {
    let stopped = false;
    const { backend } = scriptedBackend({
      home: HOME,
      refreshAll: ({ onProgress, signal }) =>
        new Promise<RefreshAllProgress>((resolve) => {
          const p: RefreshAllProgress = {
            done: 1,
            total: 2,
            rows: { a: { state: "done", summary: "2 rows added" }, b: { state: "refreshing" } },
          };
          onProgress(p);
          signal.addEventListener("abort", () => {
            stopped = true;
            resolve({
              done: 1,
              total: 2,
              rows: { a: { state: "done", summary: "2 rows added" }, b: { state: "skipped", reason: "Stopped before writing." } },
            });
          });
        }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root, "Refresh all").click();
    await until(() => root.textContent!.includes("Refreshing 1 of 2"));
    expect(root.querySelector('[data-placement="b"]')!.textContent).toContain("Refreshing…");
    expect(root.querySelector('[data-placement="a"]')!.textContent).toContain("Last refresh: 2 rows added");
    button(root, "Stop").click();
    await until(() => root.textContent!.includes("Not refreshed: Stopped before writing."));
    expect(stopped).toBe(true);
  });

  it("a change in the workbook re-checks the home (debounced)", async () => {
    const script = { home: HOME };
    const { backend, watchers } = scriptedBackend(script);
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    script.home = { ...HOME, placements: [placement({ id: "b", sheetName: "Renamed", range: "F3:G42", reportName: "Top customers" })] };
    expect(watchers).toHaveLength(1);
    watchers[0]!();
    await until(() => root.querySelector(".cb-sheet h3")?.textContent === "Renamed");
    expect(root.querySelector('[data-placement="b"]')!.textContent).toContain("F3:G42");
    await store.signOut();
    expect(watchers).toHaveLength(0);
  });

  it("a large home renders its first cards, says how many there are, and shows the rest on demand", async () => {
    // Without IntersectionObserver the list grows only on "Show more" (deterministic here).
    const io = window.IntersectionObserver;
    (window as { IntersectionObserver?: unknown }).IntersectionObserver = undefined;
    onTestFinished(() => void (window.IntersectionObserver = io));
    const many = Array.from({ length: 130 }, (_, i) => placement({ id: `p${i}`, sheetName: `S${i % 3}`, reportName: `R${i}` }));
    const { backend } = scriptedBackend({ home: { workbookName: "Big.xlsx", copied: false, placements: many } });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length > 0);
    expect(root.querySelectorAll("[data-placement]").length).toBe(60);
    expect(root.textContent).toContain("130 placements on 3 sheets");
    button(root, "Show more (70 more)").click();
    await until(() => root.querySelectorAll("[data-placement]").length === 130);
    expect(root.textContent).not.toContain("Show more");
  });

  it("a copied workbook offers to become a separate workbook", async () => {
    const { backend, calls } = scriptedBackend({ home: { ...HOME, copied: true } });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.textContent!.includes("This looks like a copy of another workbook"));
    button(root, "Make this a separate workbook").click();
    await until(() => root.textContent!.includes("2 placements were connected to it"));
    expect(calls).toContain("fork");
  });

  it("a workbook whose address changed can be kept as the same file (renamed or moved): never forked without asking", async () => {
    const { backend, calls } = scriptedBackend({ home: { ...HOME, copied: true } });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.textContent!.includes("This looks like a copy of another workbook"));
    expect(calls).not.toContain("fork");
    button(root, "It is the same file, renamed or moved").click();
    await until(() => root.textContent!.includes("Recorded: this is the same workbook"));
    expect(calls).toContain("keepIdentity");
    expect(calls).not.toContain("fork");
  });

  it("one notification area: a bad URL on Connect replaces the sign-in error, with advice fitted to Connect", async () => {
    const { backend } = scriptedBackend({ home: HOME });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    type(root.querySelector<HTMLInputElement>("#cb-base-url")!, "http://127.0.0.1:9999");
    type(root.querySelector<HTMLInputElement>("#cb-credential")!, "bad-key");
    button(root, "Sign in").click();
    await until(() => root.textContent!.includes("Your sign-in was not accepted"));
    expect(root.querySelectorAll(".cb-message")).toHaveLength(1);
    expect(root.querySelector(".cb-message")!.textContent).not.toContain("Sign out");
    // A new message replaces the last one: never two boxes at once.
    type(root.querySelector<HTMLInputElement>("#cb-base-url")!, "http://127.0.0.1:9999/app");
    button(root, "Sign in").click();
    await until(() => root.textContent!.includes("without a path"));
    expect(root.querySelectorAll(".cb-message, [role=alert]")).toHaveLength(1);
    expect(root.textContent).not.toContain("Your sign-in was not accepted");
    expect(root.querySelector("#cb-base-url")!.getAttribute("aria-invalid")).toBe("true");
    // An error stays until dismissed.
    button(root, "Dismiss", root.querySelector(".cb-message")!).click();
    await until(() => root.querySelector(".cb-message") === null);
    expect(root.querySelector("#cb-base-url")!.hasAttribute("aria-invalid")).toBe(false);
  });

  it("one notification area: a failed reports listing is said there (dismissible), replacing the last message; a good search withdraws it", async () => {
    let fail = true;
    let release: () => void = () => {};
    const { backend } = scriptedBackend({
      home: HOME,
      reports: async () => {
        if (!fail) return { items: [], next: null };
        await new Promise<void>((r) => (release = r));
        throw Object.assign(new Error("401"), { kind: "unauthorized", status: 401 });
      },
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    button(root, "Reports").click();
    await until(() => root.textContent!.includes("Loading reports…"));
    store.notice.value = { tone: "success", title: "Report placed" };
    await until(() => root.textContent!.includes("Report placed"));
    release();
    await until(() => root.textContent!.includes("Your sign-in was not accepted"));
    expect(root.querySelectorAll(".cb-message")).toHaveLength(1);
    expect(root.textContent).not.toContain("Report placed");
    expect(root.textContent).not.toContain("No reports match.");
    const box = root.querySelector(".cb-message")!;
    expect(box.getAttribute("role")).toBe("alert");
    button(root, "Dismiss", box); // an error stays until dismissed: it has its ✕
    // The cause gone (a good search), the message is withdrawn.
    fail = false;
    button(root, "Search").click();
    await until(() => root.textContent!.includes("No reports match."));
    expect(root.querySelector(".cb-message")).toBeNull();
  });

  it("a 422 gets its own clear message", async () => {
    const { backend, ws } = scriptedBackend({ home: HOME });
    ws.home = async () => {
      throw Object.assign(new Error("422"), { kind: "placement-limit", status: 422 });
    };
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.textContent!.includes("This workbook holds too many placements"));
    expect(root.textContent).toContain("500 placed reports or 2,000 placements");
  });

  it("issue 36 item 6: a workbook over the platform's limits shows its own cards, each marked, under a message that says what to do", async () => {
    const problem =
      "The platform lists none of this workbook's placements: it records at most 2,000 placements and 500 placed reports for one workbook, and it holds more for this one.";
    const unlisted = {
      ...HOME.placements[1]!,
      facts: { ...HOME.placements[1]!.facts, access: "UNLISTED" as const, syncStatus: "UNKNOWN" as const },
    };
    const { backend } = scriptedBackend({ home: { ...HOME, placements: [unlisted], platformProblem: problem } });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.textContent!.includes("The platform does not list this workbook's placements"));
    expect(root.textContent).toContain(problem);
    const card = root.querySelector<HTMLElement>('[data-placement="b"]')!;
    expect(card.textContent).toContain("Top customers");
    expect(card.textContent).toContain("Not checked");
    expect(card.textContent).toContain("Its state on the platform is unknown");
  });

  it("theme follows Office's body colour, else the system", () => {
    expect(officeThemeName({ context: { officeTheme: { bodyBackgroundColor: "#262626" } } })).toBe("dark");
    expect(officeThemeName({ context: { officeTheme: { bodyBackgroundColor: "#ffffff" } } })).toBe("light");
    expect(officeThemeName(undefined)).toBeNull();
    const name = installTheme(document, { context: { officeTheme: { bodyBackgroundColor: "#1f1f1f" } } });
    expect(name).toBe("dark");
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(getComputedStyle(document.body).backgroundColor).toBe("rgb(41, 41, 41)");
  });
});

describe("error messages", () => {
  it("every API error kind gets a title and a next step; retries that ran out name the cause", async () => {
    const { describeError } = await import("../../src/taskpane/errors");
    const kinds = [
      "network",
      "server",
      "invalid-response",
      "unauthorized",
      "forbidden",
      "not-found",
      "public-id-taken",
      "public-id-other-deployment",
      "upsert-branch-changed",
      "ambiguous-legacy-id",
      "public-id-immutable",
      "placeholder-public-id",
      "too-long",
      "bad-request",
      "placement-limit",
      "conflict",
      "data-query",
      "http",
    ];
    const titles = new Set<string>();
    for (const kind of kinds) {
      const h = describeError(Object.assign(new Error(`x ${kind}`), { kind }));
      expect(h.title.length, kind).toBeGreaterThan(0);
      expect(h.next.length, kind).toBeGreaterThan(0);
      titles.add(h.title);
    }
    expect(titles.size).toBeGreaterThanOrEqual(kinds.length - 2);
    const cause = Object.assign(new Error("fetch failed"), { kind: "network" });
    const exhausted = Object.assign(new Error("gave up", { cause }), { kind: "retry-exhausted" });
    expect(describeError(exhausted).title).toBe("Cannot reach the platform");
    expect(describeError("weird").title).toBe("Something went wrong");
  });
});

describe("task pane: Cancel, one status, several deployments (issue 12)", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  /** A scripted action that never answers until its signal aborts. */
  const hang = (seen: { aborted: boolean }) => (signal?: AbortSignal) =>
    new Promise<never>((_, reject) => {
      signal?.addEventListener("abort", () => {
        seen.aborted = true;
        reject(new DOMException("aborted", "AbortError"));
      });
    });

  it("Refresh shows Cancel; Cancel aborts the request in flight and the card never claims it refreshed", async () => {
    const seen = { aborted: false };
    const { backend } = scriptedBackend({ home: HOME, refresh: (_id, _c, signal) => hang(seen)(signal) });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    button(root, "Refresh", root.querySelector('[data-placement="b"]')!).click();
    await until(() => root.textContent!.includes("Refreshing Top customers…"));
    expect(root.querySelector('[data-placement="b"]')!.getAttribute("data-status")).toBe("refreshing");
    button(root, "Cancel refreshing top customers").click();
    await until(() => root.textContent!.includes("Refresh cancelled"));
    expect(seen.aborted).toBe(true);
    const b = root.querySelector('[data-placement="b"]')!;
    expect(b.getAttribute("data-status")).toBe("outOfDate");
    expect(b.textContent).not.toContain("Up to date");
    expect(button(root, "Refresh", b).disabled).toBe(false);
  });

  it("a placement cut at the maximum says so, and the warning stays until dismissed", async () => {
    const cut = "Only the first 1,000,000 rows were placed: add filters or a limit to the report's query.";
    const { backend } = scriptedBackend({ home: HOME, placeNotices: [cut] });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    expect(await store.place(7)).toBe(true);
    await until(() => root.textContent!.includes("Report placed, with a warning"));
    expect(root.textContent).toContain(cut);
    await new Promise((r) => setTimeout(r, 9_000)); // successes fade after 8 s; a warning does not
    expect(root.textContent).toContain(cut);
  });

  it("Disconnect has Cancel too, and leaving the view aborts what is in flight", async () => {
    const seen = { aborted: false };
    const { backend } = scriptedBackend({ home: HOME, disconnect: (_id, signal) => hang(seen)(signal) });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    const b = () => root.querySelector('[data-placement="b"]')!;
    button(root, "Disconnect", b()).click();
    await until(() => b().querySelector("[role=group]") !== null);
    button(root, "Confirm disconnect", b()).click();
    await until(() => root.textContent!.includes("Disconnecting…"));
    button(root, "Reports").click(); // navigate
    await until(() => seen.aborted);
    await until(() => store.busy.value === null);
  });

  it("leaving the Workbook tab stops its check quietly; the person's Cancel says so", async () => {
    const aborted: number[] = [];
    const { backend } = scriptedBackend({
      home: HOME,
      homeLoad: (n, signal) =>
        n === 1
          ? Promise.resolve(HOME)
          : new Promise((_, reject) =>
              signal?.addEventListener("abort", () => {
                aborted.push(n);
                reject(new DOMException("aborted", "AbortError"));
              }),
            ),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    void store.loadHome(); // a check under way (it hangs)…
    button(root, "Reports").click(); // …and the person goes to Reports
    await until(() => aborted.includes(2));
    await new Promise((r) => setTimeout(r, 50));
    expect(root.textContent).not.toContain("Checking the workbook was cancelled");
    expect(store.notice.value).toBeNull();
    button(root, "Workbook").click(); // back: checked again (hangs), and this time the person cancels
    await until(() => store.homeLoading.value);
    store.cancelHome();
    await until(() => root.textContent!.includes("Checking the workbook was cancelled"));
    expect(aborted).toEqual([2, 3]);
  });

  it("the reports list has Cancel, which aborts the listing in flight", async () => {
    const seen = { aborted: false };
    const { backend } = scriptedBackend({ home: HOME, reports: (signal) => hang(seen)(signal) });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="b"]') !== null);
    button(root, "Reports").click();
    await until(() => root.textContent!.includes("Loading reports…"));
    button(root, "Cancel loading reports").click();
    await until(() => root.textContent!.includes("Loading reports was cancelled"));
    expect(seen.aborted).toBe(true);
  });

  it("the card and the banner name the same exact rows", async () => {
    const { backend } = scriptedBackend({
      home: {
        ...HOME,
        placements: [
          placement({
            id: "a",
            sheetName: "Sales",
            range: "A1:D1200",
            reportName: "Sales by month",
            status: "editedByHand",
            editedRows: [{ from: 2, to: 1001 }],
          }),
        ],
      },
      refresh: async () => ({
        kind: "handEdited",
        reportName: "Sales by month",
        editedRows: [{ from: 5, to: 5 }],
        diff: [{ cell: "B5", lastWritten: 1, now: 2, incoming: 1 }],
        editedCells: 1,
      }),
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelector('[data-placement="a"]') !== null);
    button(root, "Refresh", root.querySelector('[data-placement="a"]')!).click();
    await until(() => root.querySelector("#cb-edit-title") !== null);
    expect(root.querySelector("#cb-edit-title")!.textContent).toContain("Row 5 of Sales by month was edited by hand");
    const card = root.querySelector('[data-placement="a"]')!;
    expect(card.textContent).toContain("Row 5 edited by hand");
    expect(card.textContent).not.toContain("Rows 2–1001");
  });

  it("interrupted, no access with a reason, and the deployment named on the card; the deployment can be switched without signing out", async () => {
    const home = {
      workbookName: "Mixed.xlsx",
      copied: false,
      placements: [
        placement({ id: "i", sheetName: "S", range: "A1:B5", reportName: "Pipeline", status: "interrupted" }),
        placement({
          id: "o",
          sheetName: "S",
          range: "D1:E5",
          reportName: "EU revenue",
          deploymentId: 2,
          deploymentName: "Europe",
          facts: { ...placement({ id: "x" }).facts, noAccess: "It belongs to deployment Europe, which you cannot use with this sign-in." },
        }),
      ],
    };
    const { backend, calls } = scriptedBackend({ home });
    backend.signIn = async () => ({
      user: { name: "Ana", email: "ana@example.com" },
      deployments: [
        { id: 1, name: "Production" },
        { id: 2, name: "Europe" },
      ],
    });
    const store = new PaneStore(backend, new SecretStore(memoryStore()));
    const root = mount(store);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await store.chooseDeployment({ id: 1, name: "Production" });
    await until(() => root.querySelector('[data-placement="o"]') !== null);
    const i = root.querySelector('[data-placement="i"]')!;
    expect(i.querySelector(".cb-badge")!.textContent).toBe("Interrupted — finish refresh");
    const o = root.querySelector('[data-placement="o"]')!;
    expect(o.querySelector(".cb-badge")!.textContent).toBe("No access");
    expect(o.textContent).toContain("which you cannot use");
    expect(o.textContent).toContain("Europe");
    expect(button(root, "Refresh", o).disabled).toBe(true);
    expect(root.textContent).not.toContain("Up to date");
    const select = root.querySelector<HTMLSelectElement>("select[aria-label=Deployment]")!;
    select.value = "2";
    select.dispatchEvent(new Event("change", { bubbles: true }));
    await until(
      () =>
        store.workspace.value !== null &&
        JSON.stringify(store.deployments.value).includes("Europe") &&
        calls.filter((c) => c === "close").length >= 1,
    );
    expect(store.user.value).not.toBeNull();
  });
});
