// An agent's chart is data, never script (issue #26). What a hostile agent answer (prompt injection,
// a compromised AI endpoint) could send, drawn in Chromium:
// - a spec whose usermeta.embedOptions turns on vega-embed's actions menu and puts a <script> in
//   "View Source": refused by the allow-list, and the renderer ignores usermeta even if handed one;
// - a tooltip over a column holding a URL: vega-tooltip's default turns a field named "image" into
//   <img src=…> (a beacon to any host); the pane's tooltip shows the URL as text and loads nothing.
import { render } from "preact";
import { ChartPart } from "../../src/taskpane/chat/parts";
import { renderChart } from "../../src/taskpane/chat/render-chart";
import type { SqlToolResult } from "../../src/taskpane/chat/live-conversation";

declare global {
  interface Window {
    __cbPwned?: number;
  }
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BEACON = "http://127.0.0.1:9/beacon.png";
const SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";

const HOSTILE_USERMETA = {
  $schema: SCHEMA,
  mark: "bar",
  encoding: { x: { field: "name", type: "nominal" }, y: { field: "v", type: "quantitative" } },
  usermeta: {
    embedOptions: {
      actions: true,
      ast: false,
      sourceHeader: "<script>(window.opener || window).__cbPwned = 1</script>",
      downloadFileName: "x",
    },
  },
};

const TOOLTIP_DATA = {
  $schema: SCHEMA,
  mark: { type: "bar", tooltip: { content: "data" } },
  encoding: { x: { field: "name", type: "nominal" }, y: { field: "v", type: "quantitative" } },
};

function result(spec: object): SqlToolResult {
  return {
    sqlQuery: "SELECT name, v, image FROM t",
    queryTitle: "Hostile",
    schema: [
      { name: "name", column_type: "VARCHAR" },
      { name: "v", column_type: "INTEGER" },
      { name: "image", column_type: "VARCHAR" },
    ],
    data: [
      ["a", 3, BEACON],
      ["b", 5, BEACON],
    ],
    totalRows: 2,
    uuid: crypto.randomUUID(),
    vegaSpec: JSON.stringify(spec),
  } as SqlToolResult;
}

const rows = [
  { name: "a", v: 3, image: BEACON },
  { name: "b", v: 5, image: BEACON },
];

/** Clicks every link of an actions menu, if one exists (what a user might do), then lets any popup run. */
async function clickEveryAction(el: Element): Promise<void> {
  const links = [...el.querySelectorAll<HTMLAnchorElement>(".vega-actions a")];
  for (const a of links) a.click();
  await sleep(links.length ? 1000 : 0);
}

/** Moves the pointer over the first mark the way a user does: vega picks the item from the event's target. */
function hover(target: Element): void {
  const r = target.getBoundingClientRect();
  const at = { bubbles: true, cancelable: true, composed: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  for (const type of ["pointerover", "pointerenter", "pointermove"]) target.dispatchEvent(new PointerEvent(type, at));
  for (const type of ["mouseover", "mousemove"]) target.dispatchEvent(new MouseEvent(type, at));
}

const beaconRequested = () => performance.getEntriesByType("resource").some((e) => e.name.includes("beacon.png"));

describe("an agent's chart cannot run script or load anything", () => {
  let host: HTMLDivElement;
  beforeEach(() => {
    host = document.createElement("div");
    host.style.width = "360px";
    document.body.append(host);
    delete window.__cbPwned;
  });
  afterEach(() => {
    render(null, host);
    document.body.innerHTML = "";
  });

  it("a spec with usermeta.embedOptions is not drawn: no actions menu, no script, and the answer says why", async () => {
    render(<ChartPart r={result(HOSTILE_USERMETA)} />, host);
    await until(() => host.querySelector("svg") !== null || /Chart not shown/.test(host.textContent ?? ""));
    await sleep(300); // an actions menu is added once the view has rendered
    await clickEveryAction(host);
    expect(window.__cbPwned).toBeUndefined();
    expect(host.querySelector(".vega-actions, details")).toBeNull();
    expect(host.querySelector("svg")).toBeNull();
    expect(host.textContent).toMatch(/the agent's chart used features the pane does not draw \(usermeta\); here is the table/i);
  });

  it("the renderer itself ignores usermeta: the caller's options stand (no actions menu, no script)", async () => {
    await renderChart(host, { ...HOSTILE_USERMETA, data: { values: rows } }, false);
    await sleep(300);
    expect(host.querySelector("svg path")).not.toBeNull();
    await clickEveryAction(host);
    expect(window.__cbPwned).toBeUndefined();
    expect(host.querySelector(".vega-actions, details")).toBeNull();
  });

  it("a tooltip whose content is every field of the row is refused, and the answer says why", async () => {
    render(<ChartPart r={result(TOOLTIP_DATA)} />, host);
    await until(() => host.querySelector("svg") !== null || /Chart not shown/.test(host.textContent ?? ""));
    expect(host.querySelector("svg")).toBeNull();
    expect(host.textContent).toMatch(
      /the agent's chart used features the pane does not draw \(mark\.tooltip\.content\); here is the table/i,
    );
  });

  it("a tooltip over a URL column shows the URL as text: no <img>, no request leaves the pane", async () => {
    // Straight to the renderer (past the allow-list): result values are text whatever the spec says.
    await renderChart(host, { ...TOOLTIP_DATA, data: { values: rows } }, false);
    await until(() => host.querySelector("svg path[aria-roledescription='bar'], svg .mark-rect path") !== null);
    const bar = host.querySelector("svg .mark-rect path")!;
    hover(bar);
    // The pane's tooltip (role=tooltip), or vega-tooltip's default element.
    const tip = () => document.querySelector<HTMLElement>("[role=tooltip]:not([hidden]), #vg-tooltip-element.visible");
    await until(() => tip() !== null, 5000);
    await sleep(200);
    expect(document.querySelector("img")).toBeNull();
    expect(tip()!.textContent).toContain(BEACON);
    expect(beaconRequested()).toBe(false);
  });
});
