// Issue 33 in the pane, in Chromium over a scripted workspace: "Place as an Excel table" on the Reports
// tab passes asTable through store.place to the workspace (and so to the engine), is kept through the
// overwrite question, and a pivot report cannot be placed as a table (its Place says why); a table
// placement's card names its table.
import { render } from "preact";
import { page, userEvent } from "vitest/browser";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import type { Workspace } from "../../src/taskpane/app/model";
import type { ReportSummary } from "../../src/taskpane/types";
import type { Report } from "../../src/api";
import { summarize } from "../../src/taskpane/reports/live";
import { placement, scriptedBackend } from "./scripted";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met in time; page says: ${document.body.textContent?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const report = (id: number, title: string, pivot = false): ReportSummary => ({
  id,
  publicId: `Report0${id}`,
  name: title,
  title,
  updatedAt: null,
  ownerName: "Ana",
  ...(pivot ? { pivot: true } : {}),
});
const REPORTS = [report(6, "Sales by region"), report(7, "Orders pivot", true)];

type PlaceArgs = Parameters<Workspace["place"]>[1];

/** Signed in, on the Reports tab; every place call's options are kept (what the engine is asked). */
async function onReports(placeAnswer?: (o: PlaceArgs) => Awaited<ReturnType<Workspace["place"]>>, office?: unknown) {
  const s = scriptedBackend({ home: { workbookName: "Q3.xlsx", copied: false, placements: [] }, reports: REPORTS });
  const placed: PlaceArgs[] = [];
  s.ws.place = async (_report, o) => {
    placed.push(o);
    return placeAnswer?.(o) ?? { kind: "placed", placementId: "p", range: "A1:B2", sheetName: "Sheet1" };
  };
  const store = new PaneStore(s.backend, new SecretStore(memoryStore()));
  installTheme(document, office as Parameters<typeof installTheme>[1]);
  const root = document.createElement("div");
  root.style.width = "320px";
  document.body.append(root);
  render(<App store={store} />, root);
  await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
  store.navigate("reports");
  await until(() => root.textContent!.includes("Orders pivot"));
  return { store, root, placed };
}

const tableBox = () => page.getByRole("checkbox", { name: "Place as an Excel table" });
const placeButton = (title: string) => page.getByRole("button", { name: `Place report ${title}` });

describe("issue 33: Place as an Excel table", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("issue 33: the checkbox is labelled, keyboard reachable, has its hint, and passes asTable through store.place", async () => {
    const { store, placed } = await onReports();
    const box = tableBox().element() as HTMLInputElement;
    expect(box.checked).toBe(false);
    expect(document.getElementById(box.getAttribute("aria-describedby")!)!.textContent).toBe(
      "Formulas you add in a column beside it fill every row after each refresh.",
    );
    // Without it: a range, as before.
    (placeButton("Sales by region").element() as HTMLButtonElement).click();
    await until(() => placed.length === 1 && store.route.value === "home");
    expect(placed[0]!.asTable).toBeUndefined();
    // By keyboard: focus it and press Space.
    store.navigate("reports");
    await until(() => document.body.textContent!.includes("Orders pivot"));
    const again = tableBox().element() as HTMLInputElement;
    again.focus();
    await userEvent.keyboard(" ");
    await until(() => again.checked);
    (placeButton("Sales by region").element() as HTMLButtonElement).click();
    await until(() => placed.length === 2);
    expect(placed[1]).toMatchObject({ confirmed: false, asTable: true });
  });

  it("issue 33: with the table chosen, a pivot report's Place is disabled and its card says why; the flat one's is not", async () => {
    const { placed } = await onReports();
    const pivot = placeButton("Orders pivot").element() as HTMLButtonElement;
    expect(pivot.disabled).toBe(false);
    expect(document.body.textContent).not.toContain("is a pivot");
    (tableBox().element() as HTMLInputElement).click();
    await until(() => pivot.disabled);
    const why = document.getElementById(pivot.getAttribute("aria-describedby")!)!;
    expect(why.textContent).toBe(
      "“Orders pivot” is a pivot: a pivot is placed as cells, not as an Excel table (a table has one header row). Place it without “as an Excel table”, or make it a flat report.",
    );
    expect(why.closest("li")!.textContent).toContain("Orders pivot");
    expect(window.getComputedStyle(why).display).not.toBe("none");
    expect((placeButton("Sales by region").element() as HTMLButtonElement).disabled).toBe(false);
    pivot.click();
    await new Promise((r) => setTimeout(r, 50));
    expect(placed).toHaveLength(0);
    // Cleared again: the pivot is placed as a range.
    (tableBox().element() as HTMLInputElement).click();
    await until(() => !pivot.disabled);
    pivot.click();
    await until(() => placed.length === 1);
    expect(placed[0]!.asTable).toBeUndefined();
  });

  it("issue 33: in dark mode the hint and a pivot's reason take the theme's tokens, as Values only's words do, and fit 320 px", async () => {
    const { root } = await onReports(undefined, { context: { officeTheme: { bodyBackgroundColor: "#1f1f1f" } } });
    expect(document.documentElement.dataset.theme).toBe("dark");
    (tableBox().element() as HTMLInputElement).click();
    const pivot = placeButton("Orders pivot").element() as HTMLButtonElement;
    await until(() => pivot.disabled);
    const colour = (e: Element) => getComputedStyle(e).color;
    const valuesOnlyWords = root.querySelector(".cb-check .cb-meta")!;
    const hint = document.getElementById("cb-table-hint")!;
    const why = document.getElementById(pivot.getAttribute("aria-describedby")!)!;
    expect(colour(hint)).toBe(colour(valuesOnlyWords));
    expect(colour(why)).toBe(colour(valuesOnlyWords));
    expect(colour(hint)).not.toBe(getComputedStyle(document.body).backgroundColor);
    expect(root.scrollWidth).toBeLessThanOrEqual(320);
  });

  it("issue 33: a confirmed overwrite keeps the choice: Overwrite places as a table at the cell asked about", async () => {
    const at = { sheetId: "s1", row: 4, col: 2 };
    const { placed } = await onReports((o) =>
      o.confirmed
        ? { kind: "placed", placementId: "p", range: "C5:D9", sheetName: "Sheet1" }
        : { kind: "wouldOverwrite", count: 2, addresses: ["C5", "D5"], target: "Sheet1!C5", at },
    );
    (tableBox().element() as HTMLInputElement).click();
    (placeButton("Sales by region").element() as HTMLButtonElement).click();
    await until(() => document.querySelector("[role=alertdialog]") !== null);
    (page.getByRole("button", { name: "Overwrite" }).element() as HTMLButtonElement).click();
    await until(() => placed.length === 2);
    expect(placed[0]).toMatchObject({ confirmed: false, asTable: true });
    expect(placed[1]).toMatchObject({ confirmed: true, asTable: true, at });
  });

  it("issue 33: the reports list knows a pivot report by its pivot settings (isPivot), and a flat one with row settings is not one", () => {
    const listed = (pivotItems?: Report["pivotItems"]) =>
      summarize({
        id: 1,
        publicId: "R1",
        name: "r",
        title: "R",
        updatedAt: null,
        user: { firstName: "Ana", email: "ana@example.com" },
        ...(pivotItems ? { pivotItems } : {}),
      } as unknown as Report).pivot;
    expect(listed({ rows: ["orders.status"], columns: ["customers.country"], measures: ["orders.count"], filters: [] })).toBe(true);
    expect(listed({ rows: ["orders.status"], columns: [], measures: ["orders.count"], filters: [], measuresAxis: "rows" })).toBe(true);
    expect(listed({ rows: ["orders.status"], columns: [], measures: ["orders.count"], filters: [] })).toBeUndefined();
    expect(listed()).toBeUndefined();
  });

  it("issue 33: a table placement's card names its table; a range's does not", async () => {
    const s = scriptedBackend({
      home: {
        workbookName: "Q3.xlsx",
        copied: false,
        placements: [
          placement({ id: "t", reportName: "Sales by region", tableName: "Sales_by_region" }),
          placement({ id: "r", reportName: "Orders", sheetName: "Sheet2" }),
        ],
      },
    });
    const store = new PaneStore(s.backend, new SecretStore(memoryStore()));
    installTheme(document, undefined);
    const root = document.createElement("div");
    document.body.append(root);
    render(<App store={store} />, root);
    await store.signIn({ baseUrl: "http://x", dataUrl: null, credential: "good-key" });
    await until(() => root.querySelectorAll("[data-placement]").length === 2);
    expect(root.querySelector('[data-placement="t"] .cb-meta')!.textContent).toContain("A1:C10 · Excel table Sales_by_region");
    expect(root.querySelector('[data-placement="r"]')!.textContent).not.toContain("Excel table");
  });
});
