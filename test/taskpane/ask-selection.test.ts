// Ask about the selection (issue 23): the context read from the sheet (only readable cells, inside the
// placement, at most 50, dates as ISO), the prompt's wording, and the free area Place beside picks.
import { describe, expect, it } from "vitest";
import {
  freeAreaBeside,
  readSelectionContext,
  selectionState,
  serialToIso,
  type SelectionDeps,
} from "../../src/taskpane/chat/live-selection";
import { selectionPrompt, splitPrompt, describeFilter, CONTEXT_MARK } from "../../src/taskpane/chat/ask-selection";
import type { Area, SheetPort, SheetValue } from "../../src/host/port";
import type { SyncEngine } from "../../src/sync";

const SHEET = { id: "s1", name: "Sheet1" };

/** A sheet as a sparse grid, with tracked placements; only what the selection reader uses. */
function fakePort(cells: Record<string, SheetValue>, selection: Area, tracked: { name: string; area: Area }[]) {
  const reads: Area[] = [];
  const port = {
    selection: async () => ({ sheet: SHEET, area: selection }),
    tracked: async () => tracked.map((t) => ({ ...t, sheet: SHEET })),
    async *read(a: Area) {
      reads.push(a);
      const out: SheetValue[][] = [];
      for (let r = 0; r < a.rows; r++) out.push([...Array(a.cols).keys()].map((c) => cells[`${a.row + r},${a.col + c}`] ?? ""));
      yield out;
    },
  };
  return { port: port as unknown as SheetPort, reads };
}

// "Revenue by month" placed at B2: header row 2, months in B, revenue in C, orders in D.
const area: Area = { sheetId: "s1", row: 1, col: 1, rows: 4, cols: 3 };
const grid: Record<string, SheetValue> = {
  "1,1": "Created at",
  "1,2": "Total Amount",
  "1,3": "Count",
  "2,1": 44927,
  "2,2": 100.5,
  "2,3": 10,
  "3,1": 44958,
  "3,2": 90,
  "3,3": 9,
  "4,1": 44986,
  "4,2": 40,
  "4,3": 4,
  "9,9": "secret elsewhere",
};
const report = {
  id: 6,
  name: "Revenue by month",
  title: "Revenue by month",
  jsonQuery: JSON.stringify({
    measures: ["orders.total_amount", "orders.count"],
    timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2023-01-01", "2023-03-31"] }],
    filters: [{ member: "orders.status", operator: "equals", values: ["completed"] }],
  }),
};

function deps(selection: Area, o: { deploymentId?: number; unreadable?: boolean; cells?: Record<string, SheetValue> } = {}) {
  const { port, reads } = fakePort(o.cells ?? grid, selection, [{ name: "CB_p1", area }]);
  const engine = {
    placements: async () => [{ key: "p1", name: "CB_p1", deploymentId: o.deploymentId ?? 1, reportId: 6, reportName: "Revenue by month" }],
    report: async () => {
      if (o.unreadable) throw Object.assign(new Error("404"), { kind: "not-found" });
      return report;
    },
  } as unknown as SyncEngine;
  const d: SelectionDeps = {
    port,
    engine,
    deploymentId: 1,
    deploymentName: "Sales Analytics",
    deploymentNames: new Map([[2, "Finance Sandbox"]]),
  };
  return { d, reads };
}
const sel = (row: number, col: number, rows = 1, cols = 1): Area => ({ sheetId: "s1", row, col, rows, cols });

describe("readSelectionContext", () => {
  it("two cells of a placement: the query, each cell's column and row members, dates as ISO", async () => {
    const { d } = deps(sel(3, 2, 2, 1));
    const r = await readSelectionContext(d);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.context).toMatchObject({
      deployment: { id: 1, name: "Sales Analytics" },
      report: { id: 6, name: "Revenue by month" },
      placementRange: "Sheet1!B2:D5",
      selectionRange: "Sheet1!C4:C5",
      query: {
        measures: ["orders.total_amount", "orders.count"],
        dimensions: [],
        timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2023-01-01", "2023-03-31"] }],
        filters: ["orders.status equals completed"],
      },
      omitted: 0,
    });
    expect(r.context.cells).toEqual([
      {
        address: "C4",
        value: 90,
        column: { key: "orders.total_amount", header: "Total Amount" },
        row: [{ key: "orders.created_at.month", header: "Created at", value: "2023-02-01" }],
      },
      {
        address: "C5",
        value: 40,
        column: { key: "orders.total_amount", header: "Total Amount" },
        row: [{ key: "orders.created_at.month", header: "Created at", value: "2023-03-01" }],
      },
    ]);
  });

  it("a selection reaching outside the placement is clipped to it: nothing outside is read or sent", async () => {
    const { d, reads } = deps(sel(3, 2, 20, 20));
    const r = await readSelectionContext(d);
    if (!r.ok) throw new Error(r.reason);
    expect(r.context.selectionRange).toBe("Sheet1!C4:D5");
    expect(r.context.cells.map((c) => c.address)).toEqual(["C4", "D4", "C5", "D5"]);
    for (const a of reads)
      expect(a.row >= area.row && a.row + a.rows <= area.row + area.rows && a.col === area.col && a.cols === area.cols).toBe(true);
    expect(JSON.stringify(r.context)).not.toContain("secret");
  });

  it("outside a placement, another deployment's placement, an unreadable report, only the header: a reason, no cells", async () => {
    expect(await readSelectionContext(deps(sel(9, 9)).d)).toEqual({ ok: false, reason: expect.stringMatching(/inside a placed report/) });
    expect(await selectionState(deps(sel(9, 9)).d)).toMatchObject({ ok: false });
    expect(await readSelectionContext(deps(sel(2, 2), { deploymentId: 2 }).d)).toEqual({
      ok: false,
      reason: expect.stringMatching(/Finance Sandbox/),
    });
    const unreadable = deps(sel(2, 2), { unreadable: true });
    expect(await readSelectionContext(unreadable.d)).toEqual({ ok: false, reason: expect.stringMatching(/cannot read this report/) });
    expect(unreadable.reads).toHaveLength(0);
    expect(await readSelectionContext(deps(sel(1, 1, 1, 3)).d)).toEqual({
      ok: false,
      reason: expect.stringMatching(/not only its header/),
    });
    expect(await selectionState(deps(sel(2, 2)).d)).toEqual({ ok: true, reportName: "Revenue by month", range: "Sheet1!B2:D5" });
  });

  it("at most 50 cells; the rest are counted as left out", async () => {
    const big: Record<string, SheetValue> = { "1,1": "Created at", "1,2": "Total Amount", "1,3": "Count" };
    for (let r = 2; r < 102; r++) Object.assign(big, { [`${r},1`]: 44927 + r, [`${r},2`]: r, [`${r},3`]: r });
    const { port } = fakePort(big, sel(2, 2, 100, 2), [{ name: "CB_p1", area: { ...area, rows: 101 } }]);
    const { d } = deps(sel(2, 2, 100, 2));
    const r = await readSelectionContext({ ...d, port });
    if (!r.ok) throw new Error(r.reason);
    expect(r.context.cells).toHaveLength(50);
    expect(r.context.omitted).toBe(150);
  });
});

describe("the prompt", () => {
  it("is the question, the mark, then the context lines; splitPrompt gives the question back", async () => {
    const r = await readSelectionContext(deps(sel(3, 2, 2, 1)).d);
    if (!r.ok) throw new Error(r.reason);
    const p = selectionPrompt("  why did this drop in March? ", r.context);
    expect(p).toBe(
      "why did this drop in March?" +
        CONTEXT_MARK +
        [
          "- Deployment: Sales Analytics (id 1)",
          "- Report: “Revenue by month” (report 6), placed at Sheet1!B2:D5",
          "- Measures: orders.total_amount, orders.count",
          "- Dimensions: none",
          "- Time: orders.created_at by month, from 2023-01-01 to 2023-03-31",
          "- Filters: orders.status equals completed",
          "- Selected cells (Sheet1!C4:C5):",
          '  - C4: Total Amount [orders.total_amount] = 90 where orders.created_at.month = "2023-02-01"',
          '  - C5: Total Amount [orders.total_amount] = 40 where orders.created_at.month = "2023-03-01"',
        ].join("\n"),
    );
    expect(splitPrompt(p).question).toBe("why did this drop in March?");
    expect(splitPrompt("plain question")).toEqual({ question: "plain question", context: null });
    expect(
      describeFilter({
        or: [
          { member: "a", operator: "set" },
          { member: "b", operator: "gt", values: [3] },
        ],
      }),
    ).toBe("(a set or b gt 3)");
    expect(serialToIso(44958.5)).toBe("2023-02-01T12:00:00");
  });
});

describe("freeAreaBeside", () => {
  const size = { rows: 3, cols: 2 };
  it("right of the placement (one empty column between) when free", async () => {
    const { port } = fakePort(grid, sel(0, 0), [{ name: "CB_p1", area }]);
    expect(await freeAreaBeside({ port }, area, size)).toEqual({ sheetId: "s1", row: 1, col: 5, free: true });
  });
  it("below (one empty row between) when the right has content or a placement", async () => {
    const { port } = fakePort({ ...grid, "2,6": "x" }, sel(0, 0), [{ name: "CB_p1", area }]);
    expect(await freeAreaBeside({ port }, area, size)).toEqual({ sheetId: "s1", row: 6, col: 1, free: true });
    const other = fakePort(grid, sel(0, 0), [
      { name: "CB_p1", area },
      { name: "CB_p2", area: { sheetId: "s1", row: 0, col: 6, rows: 2, cols: 1 } },
    ]);
    expect(await freeAreaBeside({ port: other.port }, area, size)).toMatchObject({ row: 6, col: 1, free: true });
  });
  it("neither free: the right, marked not free (placing there asks before overwriting)", async () => {
    const { port } = fakePort({ ...grid, "2,6": "x", "7,1": "y" }, sel(0, 0), [{ name: "CB_p1", area }]);
    expect(await freeAreaBeside({ port }, area, size)).toEqual({ sheetId: "s1", row: 1, col: 5, free: false });
  });
});
