// Issue 33: the harness draws Excel tables after their built-in style and charts from their series' values
// (dev/harness/sheet-objects.tsx). The e2e (test/e2e/issue-33-tables.test.ts) shows them in the page; these
// check the rules cell by cell and bar by bar.
import type { VNode } from "preact";
import type { BookChart, BookTable } from "../../dev/harness/book.ts";
import { ChartView, tableLook } from "../../dev/harness/sheet-objects.tsx";

const table = (o: Partial<BookTable> = {}): BookTable => ({
  name: "Sales",
  row: 1,
  col: 1,
  rows: 4,
  cols: 2,
  style: "TableStyleMedium2",
  showHeaders: true,
  showFilterButton: true,
  ...o,
});

/** Every element of a rendered tree with this class. */
function withClass(node: unknown, cls: string): VNode[] {
  if (Array.isArray(node)) return node.flatMap((n) => withClass(n, cls));
  if (!node || typeof node !== "object" || !("props" in node)) return [];
  const v = node as VNode<{ class?: string; children?: unknown }>;
  if (typeof v.type === "function") return withClass((v.type as (p: unknown) => unknown)(v.props), cls);
  return [...(v.props.class?.split(" ").includes(cls) ? [v] : []), ...withClass(v.props.children, cls)];
}

describe("issue 33: the harness's tables and charts", () => {
  it("issue 33: a table's header row has the style's look and filter buttons, its first data row is banded, then every other one", () => {
    const t = [table()];
    expect(tableLook(t, 1, 1)).toEqual({ classes: "hx-t hx-t-medium hx-t-head", accent: "#4472C4", filter: true, table: "Sales" });
    expect(tableLook(t, 2, 2)?.classes).toBe("hx-t hx-t-medium hx-t-band");
    expect(tableLook(t, 3, 2)?.classes).toBe("hx-t hx-t-medium");
    expect(tableLook(t, 4, 1)?.classes).toBe("hx-t hx-t-medium hx-t-band");
    expect(tableLook(t, 5, 1)).toBeNull(); // below the table
    expect(tableLook(t, 1, 3)).toBeNull(); // right of it
    expect(tableLook([table({ showFilterButton: false })], 1, 1)?.filter).toBe(false);
    // No header row: the first row is data, banded.
    expect(tableLook([table({ showHeaders: false })], 1, 1)?.classes).toBe("hx-t hx-t-medium hx-t-band");
    // Each family its way, each style its accent (Light10: accent 2, Dark1: the black/grey one).
    expect(tableLook([table({ style: "TableStyleLight10" })], 1, 1)).toMatchObject({
      classes: "hx-t hx-t-light hx-t-head",
      accent: "#ED7D31",
    });
    expect(tableLook([table({ style: "TableStyleDark1" })], 2, 1)).toMatchObject({
      classes: "hx-t hx-t-dark hx-t-band",
      accent: "#595959",
    });
  });

  it("issue 33: a chart draws one column per value of each series (bars for Bar types, a line per series for Line types)", () => {
    const chart: BookChart = {
      name: "Chart 1",
      chartType: "ColumnClustered",
      left: 0,
      top: 0,
      width: 192,
      height: 180,
      categories: ["France", "Japan", "Kenya"],
      series: [
        { name: "Amount", values: [10, 20, 30] },
        { name: "With tax", values: [12, 24, 36] },
      ],
    };
    const bars = withClass(ChartView({ chart, w: 400, h: 300 }), "hx-chart-bar");
    expect(bars).toHaveLength(6);
    // Taller for a larger value, standing on the same axis.
    const [a, b] = bars.map((x) => x.props as unknown as { y: number; height: number });
    expect(b!.height).toBeGreaterThan(a!.height);
    expect(a!.y + a!.height).toBeCloseTo(b!.y + b!.height, 6);
    const across = withClass(ChartView({ chart: { ...chart, chartType: "BarClustered" }, w: 400, h: 300 }), "hx-chart-bar");
    expect(across).toHaveLength(6);
    const [c, d] = across.map((x) => x.props as unknown as { x: number; width: number });
    expect(d!.width).toBeGreaterThan(c!.width); // longer for a larger value, from the same axis
    expect(c!.x).toBeCloseTo(d!.x, 6);
    expect(withClass(ChartView({ chart: { ...chart, chartType: "Line" }, w: 400, h: 300 }), "hx-chart-line")).toHaveLength(2);
  });
});
