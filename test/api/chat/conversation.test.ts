// Frames → conversation: merged by id in sort order, sentinels never rendered, the final answer by
// the seed's rule, tool-call strings parsed into explicit states, chart specs checked.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { applyFrame, chartSpec, EMPTY_CONVERSATION, isFinalAnswer, toolPart, turnsOf } from "../../../src/api/chat/conversation";
import { decodeChunks } from "../../../src/api/chat/ndjson";
import { ChatFrame, type ChatFrame as Frame } from "../../../src/api/chat/schemas";

const run = (fs: Frame[]) => fs.reduce(applyFrame, EMPTY_CONVERSATION);
const RECORDED = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "recorded-stream.ndjson"));
const recorded = decodeChunks([RECORDED])
  .map((i) => (i.ok ? ChatFrame.parse(i.value) : null))
  .filter((f): f is Frame => f !== null);

describe("applyFrame", () => {
  it("merges deltas by id, replaces on a full frame, and orders by sort (ties by arrival)", () => {
    const c = run([
      { id: "b", role: "assistant", content: "wor", isDelta: false, sort: 3 },
      { id: "a", role: "user", content: "hi", sort: 1 },
      { id: "b", role: "assistant", content: "ld", isDelta: true, sort: 3 },
      { id: "c", role: "assistant", thinking: "hm", sort: 2 },
      { id: "d", role: "assistant", content: "x", sort: 2 },
    ]);
    expect(c.messages.map((m) => [m.id, m.content || m.thinking])).toEqual([
      ["a", "hi"],
      ["c", "hm"],
      ["d", "x"],
      ["b", "world"],
    ]);
    const again = applyFrame(c, { id: "b", role: "assistant", content: "world!", isDelta: false });
    expect(again.messages.find((m) => m.id === "b")!.content).toBe("world!");
    expect(c.messages.find((m) => m.id === "b")!.content).toBe("world"); // immutable
  });

  it("never renders sentinels: __cutoff__ sets chatId, __state__ the state, __usage__ the turn's usage", () => {
    const usage = { models: ["m"], llmCalls: 1, inputTokens: 2, outputTokens: 3, cacheWriteTokens: 0, cacheReadTokens: 0, totalTokens: 5 };
    const c = run([
      { id: "1-message", role: "user", content: "q", sort: 1 },
      { id: "__cutoff__", state: { chatId: "T" } },
      { id: "__state__", state: { chatId: "T", status: "idle" } },
      { id: "__usage__", type: "usage", usage },
      { error: "boom" },
    ]);
    expect(c.messages.map((m) => m.id)).toEqual(["1-message"]);
    expect(c.chatId).toBe("T");
    expect(c.state).toEqual({ chatId: "T", status: "idle" });
    expect(turnsOf(c)[0]!.usage).toEqual(usage);
    expect(c.errors).toEqual(["boom"]);
  });

  it("the final answer: assistant, graphPath[0] final, graphPath length ≤ 2", () => {
    expect(isFinalAnswer({ role: "assistant", graphPath: ["final"] })).toBe(true);
    expect(isFinalAnswer({ role: "assistant", graphPath: ["final", "svc_data_analyst_agent"] })).toBe(true);
    expect(isFinalAnswer({ role: "assistant", graphPath: ["final", "a", "b"] })).toBe(false);
    expect(isFinalAnswer({ role: "assistant", graphPath: ["svc_data_analyst_agent", "final"] })).toBe(false);
    expect(isFinalAnswer({ role: "user", graphPath: ["final"] })).toBe(false);
  });

  it("a recorded stream becomes one turn: steps (thinking, svcMeta, svcSqlApi) and one final answer", () => {
    const [turn, ...rest] = turnsOf(run(recorded));
    expect(rest).toEqual([]);
    expect(turn!.user!.content).toMatch(/📈/);
    expect(turn!.steps.map((s) => s.toolCall?.name ?? "thinking")).toEqual(["thinking", "svcMeta", "svcSqlApi"]);
    expect(turn!.steps.every((s) => s.toolCall === null || s.toolCall.state === "done")).toBe(true);
    expect(turn!.answer).toHaveLength(1);
    expect(turn!.answer[0]!.content).toMatch(/Revenue by month/);
    expect(turn!.inProcess).toBe(false);
    expect(turn!.usage?.totalTokens).toBeGreaterThan(0);
  });
});

describe("toolPart", () => {
  it("running (no result), done, failed (error in result), failed (result not JSON)", () => {
    expect(toolPart({ name: "svcMeta", input: '{"searchQuery":"x"}' })).toMatchObject({ state: "running", input: { searchQuery: "x" } });
    expect(toolPart({ name: "svcSqlApi", input: '{"sqlQuery":"SELECT 1"}' })).toMatchObject({ state: "running", sql: "SELECT 1" });
    expect(toolPart({ name: "svcSqlApi", input: "{}", result: '{"sqlQuery":"S","error":"no such column"}' })).toMatchObject({
      state: "failed",
      error: "no such column",
    });
    expect(toolPart({ name: "svcMeta", input: "{}", result: "{not json" })).toMatchObject({ state: "failed" });
    const ok = toolPart({
      name: "svcSqlApi",
      input: "{}",
      result: JSON.stringify({ sqlQuery: "S", schema: [{ name: "a", column_type: "INTEGER" }], data: [[1]], totalRows: 1, uuid: "u" }),
    });
    expect(ok).toMatchObject({ state: "done", sql: "S", sqlResult: { totalRows: 1 } });
  });
});

describe("chartSpec", () => {
  const base = {
    schema: [
      { name: "m", column_type: "TIMESTAMP" },
      { name: "v", column_type: "DOUBLE" },
    ],
    data: [
      ["2024-01-01T00:00:00", 1],
      ["2024-02-01T00:00:00", 2],
    ],
  };
  const SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";
  const spec = (s: object) => ({ ...base, vegaSpec: JSON.stringify({ $schema: SCHEMA, mark: "line", ...s }) });

  it("inlines the result's rows as data.values", () => {
    const c = chartSpec(spec({ encoding: { x: { field: "m", type: "temporal" } } }));
    expect(c).toMatchObject({
      ok: true,
      spec: {
        data: {
          values: [
            { m: "2024-01-01T00:00:00", v: 1 },
            { m: "2024-02-01T00:00:00", v: 2 },
          ],
        },
      },
    });
  });

  it("accepts the subset the pane draws: the stand-in agent's charts, layers, scales, axes, legends, simple transforms", () => {
    const ok = [
      {
        title: "Revenue by month",
        width: "container",
        mark: { type: "line", point: true, tooltip: true },
        encoding: { x: { field: "m", type: "temporal", title: "Month" }, y: { field: "v", type: "quantitative", title: "Revenue" } },
      },
      {
        mark: { type: "bar", tooltip: { content: "encoding" }, color: "#4c78a8" },
        encoding: {
          x: { field: "m", type: "ordinal", timeUnit: "yearmonth", axis: { labelAngle: -45, format: "%b %Y", title: null } },
          y: { field: "v", type: "quantitative", aggregate: "sum", scale: { zero: true, nice: true }, axis: { grid: false } },
          color: { field: "m", type: "nominal", legend: { orient: "bottom" }, scale: { scheme: "tableau10" } },
          tooltip: [
            { field: "m", type: "temporal" },
            { field: "v", type: "quantitative", format: ",.2f" },
          ],
        },
        transform: [{ filter: { field: "v", gt: 0 } }, { fold: ["v"], as: ["k", "val"] }],
        config: { axis: { labelFontSize: 11 }, view: { stroke: null } },
      },
      {
        layer: [
          { mark: "line", encoding: { x: { field: "m", type: "temporal" }, y: { field: "v", type: "quantitative" } } },
          { mark: { type: "text", dy: -8 }, encoding: { text: { field: "v", type: "quantitative", format: "," } } },
        ],
      },
    ];
    for (const s of ok)
      expect(chartSpec({ ...base, vegaSpec: JSON.stringify({ $schema: SCHEMA, ...s }) }), JSON.stringify(s)).toMatchObject({ ok: true });
  });

  it("refuses what is outside the subset and names it: the answer says the pane does not draw it", () => {
    const cases: [object, string][] = [
      [{ usermeta: { embedOptions: { actions: true, sourceHeader: "<script>x()</script>" } } }, "usermeta"],
      [{ mark: { type: "bar", tooltip: { content: "data" } } }, "mark.tooltip.content"],
      [{ data: { url: "https://evil.example/x.csv" } }, "data"],
      [{ datasets: { a: [] } }, "datasets"],
      [{ layer: [{ data: { url: "x" }, mark: "bar" }], mark: undefined }, "layer.0.data"],
      [{ encoding: { href: { field: "v" } } }, "encoding.href"],
      [{ mark: { type: "image" }, encoding: { url: { field: "v" } } }, "encoding.url"],
      [{ params: [{ name: "p", bind: { input: "range" } }] }, "params"],
      [{ encoding: { x: { field: "m", scale: { domain: { param: "p" } } } } }, "encoding.x.scale.domain"],
      [{ encoding: { x: { field: "m", condition: { param: "p", value: 1 } } } }, "encoding.x.condition"],
      [{ transform: [{ calculate: "datum.v * 2", as: "w" }] }, "transform.0.calculate"],
      [{ transform: [{ filter: "datum.v > 1" }] }, "transform.0.filter"],
      [{ config: { background: "red", autosize: "fit" } }, "config.background"],
      [{ encoding: { color: { value: "url(https://evil.example/p.svg#g)" } } }, "encoding.color.value"],
      [{ encoding: { x: { field: "m", formatType: "myFn" } } }, "encoding.x.formatType"],
      [{ facet: { field: "m" }, spec: {} }, "facet"],
    ];
    for (const [s, named] of cases) {
      const c = chartSpec(spec(s));
      expect(c, JSON.stringify(s)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^The agent's chart used features the pane does not draw \(.*\); here is the table\.$/),
      });
      expect((c as { reason: string }).reason, JSON.stringify(s)).toContain(named);
    }
  });

  it("refuses other versions and non-JSON", () => {
    expect(
      chartSpec({ ...base, vegaSpec: JSON.stringify({ $schema: "https://vega.github.io/schema/vega/v5.json", marks: [] }) }),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/not a Vega-Lite v5/) });
    expect(chartSpec({ ...base, vegaSpec: "{oops" })).toMatchObject({ ok: false, reason: expect.stringMatching(/not a JSON object/) });
    expect(chartSpec(base)).toBeNull();
  });
});
