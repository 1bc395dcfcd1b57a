// The dashboard pane in Chromium over a scripted DashboardService: the linked dashboard is opened,
// embed news become the status line, downloads and a drilldown offer; placing asks before
// overwriting; the cell filter's refusal is explained; the picture shows progress and Cancel stops it.
import { render } from "preact";
import { DashboardPane } from "../../src/taskpane/dashboard/DashboardView";
import type { DashboardService, EmbedNews, PictureProgress } from "../../src/taskpane/dashboard/service";
import type { PlaceOutcome } from "../../src/taskpane/types";
import { installTheme } from "../../src/taskpane/theme/theme";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met in time; page says: ${document.body.textContent?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function scripted(o: { sessionUrl?: string | null; picture?: string; pictureDone?: boolean } = {}) {
  const calls: string[] = [];
  let news: ((n: EmbedNews) => void) | null = null;
  const sent: string[] = [];
  let pictureSignal: AbortSignal | null = null;
  let pictureProgress: ((p: PictureProgress) => void) | null = null;
  const service: DashboardService = {
    sessionUrl: () => (o.sessionUrl === undefined ? "https://broker.example/session" : o.sessionUrl),
    look: () => ({ timezone: "Europe/Paris", scheme: "light", locale: "fr-FR" }),
    pictureOnSheet: async () => o.picture ?? null,
    linkedDashboards: async () => ({
      placement: { reportName: "Company revenue", range: "Sheet1!B2:D6" },
      dashboards: [{ publicId: "SalesDash001", title: "Sales overview" }],
    }),
    dashboard: async (publicId) => ({ publicId, title: "Sales overview" }),
    memberTitles: async () => ({ "orders.count": "Orders Count", "orders.status": "Orders Status" }),
    async open(host, publicId, onNews) {
      calls.push(`open ${publicId}`);
      const frame = document.createElement("div");
      frame.textContent = `embed of ${publicId}`;
      host.replaceChildren(frame);
      news = onNews;
      return {
        setFilter: (m, v) => sent.push(`filter ${m}=${JSON.stringify(v)}`),
        setScheme: (s) => sent.push(`scheme ${s}`),
        setBrandColor: (c) => sent.push(`brand ${c}`),
        setTimezone: (t) => sent.push(`tz ${t}`),
        refresh: () => sent.push("refresh"),
        close: () => calls.push("close"),
      };
    },
    async cellFilter() {
      if (calls.includes("refuse-cell"))
        throw new Error(
          "Sheet1!C4 is in the measure column orders.count of Company revenue (Sheet1!B2:D6): select a cell of a dimension column.",
        );
      return { member: "orders.status", value: "cancelled", label: "orders.status = cancelled (Sheet1!B5)" };
    },
    async placeDrilldown(_id, drill, confirmed): Promise<PlaceOutcome> {
      calls.push(`place ${drill.member} confirmed=${confirmed}`);
      return confirmed
        ? { kind: "placed", placementId: "p1", range: "H2:I3", sheetName: "Sheet1" }
        : { kind: "wouldOverwrite", count: 3, addresses: ["H2"], target: "Sheet1!H2:I3" };
    },
    insertPicture(_id, p) {
      if (o.pictureDone) {
        calls.push(`picture titled ${p.title ?? "-"}`);
        return Promise.resolve({ name: "Dashboard SalesDash001" });
      }
      pictureSignal = p.signal;
      pictureProgress = p.onProgress;
      p.onProgress({ status: "running" });
      return new Promise((_resolve, reject) => p.signal.addEventListener("abort", () => reject(p.signal.reason)));
    },
  };
  return { service, calls, sent, news: (n: EmbedNews) => news?.(n), picture: () => ({ signal: pictureSignal, progress: pictureProgress }) };
}

const byRole = (role: string, name: string) =>
  [...document.querySelectorAll<HTMLElement>(role === "button" ? "button" : `[role="${role}"]`)].find((e) => e.textContent?.includes(name));

describe("dashboard pane", () => {
  let root: HTMLElement;
  beforeEach(() => {
    installTheme();
    root = document.createElement("div");
    document.body.append(root);
  });
  afterEach(() => {
    render(null, root);
    root.remove();
  });

  it("without a session URL explains where to set it", async () => {
    const s = scripted({ sessionUrl: null });
    render(<DashboardPane service={s.service} />, root);
    await until(() => root.textContent!.includes("needs a session URL"));
    expect(s.calls).toEqual([]);
  });

  it("opens the linked dashboard; status follows the embed's news; downloads are listed", async () => {
    const s = scripted();
    render(<DashboardPane service={s.service} />, root);
    await until(() => s.calls.includes("open SalesDash001"));
    expect(root.textContent).toContain("Selection: Company revenue (Sheet1!B2:D6)");
    s.news({ kind: "ready" });
    s.news({ kind: "loaded", widgetCount: 2 });
    await until(() => root.textContent!.includes("Dashboard loaded (2 charts)."));
    s.news({ kind: "download", format: "csv", title: "Orders by status", rowCount: 4 });
    await until(() => root.querySelector('[aria-label="Downloads"]')?.textContent === "CSV — Orders by status — 4 rows");
    s.news({ kind: "renewing", reason: "expired" });
    await until(() => root.textContent!.includes("renewing it"));
    s.news({ kind: "renewed" });
    await until(() => root.textContent!.includes("Session renewed; the dashboard kept its filters."));
    s.news({ kind: "error", message: "The dashboard's session could not be renewed (bad id).", context: "session-renewal" });
    await until(() => byRole("alert", "could not be renewed") !== undefined);
  });

  it("Filter dashboard by this cell pushes the filter, or explains why not", async () => {
    const s = scripted();
    render(<DashboardPane service={s.service} />, root);
    await until(() => byRole("button", "Filter dashboard by this cell") !== undefined);
    await until(() => s.calls.includes("open SalesDash001"));
    await new Promise((r) => setTimeout(r, 20));
    byRole("button", "Filter dashboard by this cell")!.click();
    await until(() => s.sent.includes('filter orders.status=["cancelled"]'));
    expect(root.textContent).toContain("Filtered the dashboard by orders.status = cancelled (Sheet1!B5).");
    s.calls.push("refuse-cell");
    byRole("button", "Filter dashboard by this cell")!.click();
    await until(() => byRole("alert", "measure column") !== undefined);
  });

  it("a drilldown asks before overwriting, then places", async () => {
    const s = scripted();
    render(<DashboardPane service={s.service} />, root);
    await until(() => s.calls.includes("open SalesDash001"));
    s.news({ kind: "drilldown", member: "orders.count", value: { "orders.status": "cancelled" }, widgetId: "w-status" });
    await until(() => byRole("button", "Place this drilldown") !== undefined);
    expect(root.textContent).toContain("Drilled into Orders Count where Orders Status is cancelled."); // titles, not keys
    byRole("button", "Place this drilldown")!.focus(); // as a real click does: the pane has focus
    byRole("button", "Place this drilldown")!.click();
    await until(() => byRole("alert", "would overwrite 3 cells") !== undefined);
    expect(s.calls).toContain("place orders.count confirmed=false");
    await until(() => document.activeElement?.textContent === "Cancel"); // the question takes focus on its safe choice
    byRole("button", "Overwrite")!.click();
    await until(() => root.textContent!.includes("Placed the drilldown Orders Count where Orders Status is cancelled at Sheet1!H2:I3."));
    expect(s.calls).toContain("place orders.count confirmed=true");
  });

  it("a picture of this dashboard already on the sheet can be refreshed", async () => {
    const s = scripted({ picture: "Dashboard SalesDash001" });
    render(<DashboardPane service={s.service} />, root);
    await until(() => byRole("button", "Refresh picture") !== undefined);
    render(null, root);
    const none = scripted();
    render(<DashboardPane service={none.service} />, root);
    await until(() => none.calls.includes("open SalesDash001"));
    await new Promise((r) => setTimeout(r, 30));
    expect(byRole("button", "Refresh picture")).toBeUndefined();
  });

  it("a picture after a filter says it is unfiltered, and names the dashboard by its title (issue 25 §4)", async () => {
    const s = scripted({ pictureDone: true });
    render(<DashboardPane service={s.service} />, root);
    await until(() => s.calls.includes("open SalesDash001") && byRole("button", "Insert dashboard picture") !== undefined);
    await new Promise((r) => setTimeout(r, 20));
    byRole("button", "Filter dashboard by this cell")!.click();
    await until(() => s.sent.includes('filter orders.status=["cancelled"]'));
    byRole("button", "Insert dashboard picture")!.click();
    await until(() => root.textContent!.includes("Inserted the picture of “Sales overview” at the selection."));
    expect(s.calls).toContain("picture titled Sales overview");
    expect(root.textContent).toContain("It shows the dashboard unfiltered");
    expect(root.textContent).toContain("(orders.status = cancelled (Sheet1!B5))");
    expect(root.textContent).not.toContain("Dashboard SalesDash001");
  });

  it("Insert dashboard picture shows progress; Cancel stops it and says nothing was inserted", async () => {
    const s = scripted();
    render(<DashboardPane service={s.service} />, root);
    await until(() => byRole("button", "Insert dashboard picture") !== undefined);
    byRole("button", "Insert dashboard picture")!.click();
    await until(() => root.textContent!.includes("The platform is rendering the dashboard…"));
    expect((byRole("button", "Insert dashboard picture") as HTMLButtonElement).disabled).toBe(true);
    byRole("button", "Cancel")!.click();
    await until(() => root.textContent!.includes("Stopped: no picture was inserted."));
    expect(s.picture().signal?.aborted).toBe(true);
    expect(byRole("alert", "could not be inserted")).toBeUndefined();
  });
});
