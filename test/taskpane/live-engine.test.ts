// The live workbook operations (src/taskpane/home/live.ts) over the engine, the memory port and the
// platform stand-in: several deployments in one workbook (named, refreshed with their own data token,
// No access with a reason otherwise), what a refresh changed, and Place at the cell chosen when pressed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDataClient, createDeploymentTokenManager } from "../../src/api/index.ts";
import { openWorkbookOps } from "../../src/taskpane/home/live.ts";
import { statusOfView } from "../../src/taskpane/home/live-status.ts";
import { describeError } from "../../src/taskpane/errors.ts";
import { unlistedLine } from "../../src/sync/status.ts";
import { PlaceInterrupted, PlacementGone } from "../../src/taskpane/home/live.ts";
import { byStatus, devExcelWorkbook, memoryWorkbook, startEnv, type Env } from "../sync/support.ts";

describe("live workbook operations", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it("a workbook with placements of two deployments: each named, each refreshed with its own data; without access it says why", async () => {
    const [d1, d2] = env.platform.info.deployments;
    if (!d1 || !d2) throw new Error("the stand-in lists two deployments");
    const wb = memoryWorkbook("https://files.example/live-1.xlsx");
    const client = env.client();
    const dataFor = (id: number) =>
      createDataClient({ dataUrl: env.platform.info.dataUrl, token: createDeploymentTokenManager({ client, deploymentId: id }) });
    const names = new Map([
      [d1.id, d1.name],
      [d2.id, d2.name],
    ]);
    const inD1 = await openWorkbookOps({ client, data: dataFor(d1.id), deploymentId: d1.id, deployments: names, dataFor, port: wb.port });
    const report = await env.createReport(byStatus(2));
    await wb.port.select({ sheetId: wb.user.firstSheetId(), row: 1, col: 1, rows: 1, cols: 1 });
    const placed = await inD1.place(report.id, { confirmed: false });
    expect(placed).toMatchObject({ kind: "placed", range: expect.stringMatching(/^B2:/) });
    await env.client().updateReport(env.deploymentId, report.id, byStatus(3));

    // Signed in to the other deployment: the card names d1, and Refresh uses d1's data token.
    const inD2 = await openWorkbookOps({ client, data: dataFor(d2.id), deploymentId: d2.id, deployments: names, dataFor, port: wb.port });
    const home = await inD2.home();
    const card = home.placements.find((p) => p.id === (placed.kind === "placed" ? placed.placementId : ""))!;
    expect(card.deploymentName).toBe(d1.name);
    expect(statusOfView(card, undefined)).toMatchObject({ kind: "outOfDate", canRefresh: true });
    const out = await inD2.refresh(card.id, "ask");
    expect(out).toMatchObject({ kind: "refreshed", summary: "1 row added, 2 cells changed" });

    // A sign-in that cannot use d1: No access, with the reason; Refresh all does not count it.
    const only2 = new Map([[d2.id, d2.name]]);
    const blind = await openWorkbookOps({ client, data: dataFor(d2.id), deploymentId: d2.id, deployments: only2, dataFor, port: wb.port });
    const seen = (await blind.home()).placements.find((p) => p.id === card.id)!;
    const st = statusOfView(seen, undefined);
    expect(st).toMatchObject({ kind: "noAccess", label: "No access", canRefresh: false });
    expect(st.lines.join(" ")).toMatch(/you cannot use with this sign-in/);
    const all = await blind.refreshAll({ signal: new AbortController().signal, onProgress: () => {} });
    expect(all.done).toBe(0);
    expect(statusOfView(seen, all.rows[card.id])).toMatchObject({ kind: "noAccess" });
  });

  it("issue 36 item 6: a workbook over the platform's limits: the home lists its own cards with their state from the workbook, and Place is refused in words", async () => {
    const wb = memoryWorkbook("https://files.example/live-over.xlsx");
    (wb.port as unknown as { wb: { workbookId: string | null } }).wb.workbookId = env.platform.info.externalWorkbooks.oversized;
    const ops = await openWorkbookOps({ client: env.client(), data: env.dataClient(), deploymentId: env.deploymentId, port: wb.port });
    const sheetId = wb.user.firstSheetId();
    await wb.port.select({ sheetId, row: 0, col: 0, rows: 1, cols: 1 });
    const placed = await ops.place((await env.createReport(byStatus(2))).id, { confirmed: false });
    if (placed.kind !== "placed") throw new Error(JSON.stringify(placed));
    wb.user.edit(sheetId, 1, 0, "typed");

    const home = await ops.home();
    expect(home.platformProblem).toMatch(
      /^The platform lists none of this workbook's placements: .* Disconnect placements you no longer need/,
    );
    expect(home.placements.map((p) => [p.id, p.range])).toEqual([[placed.placementId, placed.range]]);
    const st = statusOfView(home.placements[0]!, undefined);
    expect(st).toMatchObject({ kind: "editedByHand", canRefresh: true, canDisconnect: true });
    expect(st.lines).toEqual(["Row 2 edited by hand", unlistedLine]);

    await wb.port.select({ sheetId, row: 0, col: 6, rows: 1, cols: 1 });
    const err = await ops.place((await env.createReport(byStatus(2))).id, { confirmed: false }).catch((e: unknown) => e);
    expect(describeError(err)).toMatchObject({
      title: "Not placed: this workbook is at the platform's limit",
      detail: expect.stringMatching(/holds more than the platform records for one workbook/),
    });
    expect(wb.user.cell(sheetId, 0, 6)).toBe("");
  });

  it("a viewer's card is View only, naming the owner: no Refresh, no Disconnect, and Refresh all skips it without counting it", async () => {
    const [d1] = env.platform.info.deployments;
    if (!d1) throw new Error("the stand-in lists a deployment");
    const wb = memoryWorkbook("https://files.example/live-viewer.xlsx");
    const dataOf = (persona: "analyst" | "viewer") => {
      const client = env.client(persona);
      return createDataClient({ dataUrl: env.platform.info.dataUrl, token: createDeploymentTokenManager({ client, deploymentId: d1.id }) });
    };
    let shared: { id: number } | undefined;
    for await (const r of env.client("viewer").iterateReports(d1.id)) if (r.jsonQuery && !shared) shared = r;
    const analyst = await openWorkbookOps({ client: env.client("analyst"), data: dataOf("analyst"), deploymentId: d1.id, port: wb.port });
    await wb.port.select({ sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 1, cols: 1 });
    const placed = await analyst.place(shared!.id, { confirmed: false });
    if (placed.kind !== "placed") throw new Error(JSON.stringify(placed));

    const viewer = await openWorkbookOps({
      client: env.client("viewer"),
      data: dataOf("viewer"),
      deploymentId: d1.id,
      deployments: new Map([[d1.id, d1.name]]),
      roles: new Map([[d1.id, "viewer" as const]]),
      port: wb.port,
    });
    const card = (await viewer.home()).placements.find((p) => p.id === placed.placementId)!;
    const st = statusOfView(card, undefined);
    expect(st).toMatchObject({ kind: "viewOnly", label: "View only", canRefresh: false, canDisconnect: false });
    expect(st.lines).toEqual([
      expect.stringMatching(/^You can view this report but not refresh it — ask .+ \(.+@cellbound\.test\) or an admin\.$/),
    ]);
    const all = await viewer.refreshAll({ signal: new AbortController().signal, onProgress: () => {} });
    expect(all).toMatchObject({ done: 0, total: 0 });
    expect(statusOfView(card, all.rows[card.id])).toMatchObject({ kind: "viewOnly" });
    const after = (await viewer.home()).placements.find((p) => p.id === placed.placementId)!;
    expect(statusOfView(after, undefined).kind).toBe("viewOnly"); // never Interrupted
    expect(after.facts.edit).toBe("clean");
  });

  it("the hand-edit diff carries each cell's number format, so it shows values as the sheet does (issue 25 §4)", async () => {
    const wb = memoryWorkbook("https://files.example/live-diff.xlsx");
    const client = env.client();
    const data = createDataClient({ dataUrl: env.platform.info.dataUrl, token: createDeploymentTokenManager({ client, deploymentId: 1 }) });
    const ops = await openWorkbookOps({ client, data, deploymentId: 1, port: wb.port });
    const report = await env.createReport({
      jsonQuery: JSON.stringify({ measures: ["orders.total_amount"], dimensions: ["orders.status"], order: [["orders.status", "asc"]] }),
    });
    await wb.port.select({ sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 1, cols: 1 });
    const placed = await ops.place(report.id, { confirmed: false });
    if (placed.kind !== "placed") throw new Error(JSON.stringify(placed));
    wb.user.edit(wb.user.firstSheetId(), 1, 1, 1);
    const out = await ops.refresh(placed.placementId, "ask");
    if (out.kind !== "handEdited") throw new Error(JSON.stringify(out));
    expect(out.diff[0]).toMatchObject({ cell: "B2", format: expect.stringMatching(/\$|0\.00/) });
  });

  it("confirming an overwrite places the report where it was asked about, not where the selection is now", async () => {
    const wb = memoryWorkbook("https://files.example/live-2.xlsx");
    const s = wb.user.firstSheetId();
    const client = env.client();
    const ops = await openWorkbookOps({ client, data: env.dataClient(), deploymentId: env.deploymentId, port: wb.port });
    const report = await env.createReport(byStatus(2));
    wb.user.edit(s, 2, 1, "mine");
    await wb.port.select({ sheetId: s, row: 1, col: 1, rows: 1, cols: 1 }); // B2
    const first = await ops.place(report.id, { confirmed: false });
    expect(first).toMatchObject({ kind: "wouldOverwrite", count: 1, at: { sheetId: s, row: 1, col: 1 } });
    await wb.port.select({ sheetId: s, row: 20, col: 5, rows: 1, cols: 1 }); // the user clicks F21 before confirming
    const done = await ops.place(report.id, { confirmed: true, ...(first.kind === "wouldOverwrite" && first.at ? { at: first.at } : {}) });
    expect(done).toMatchObject({ kind: "placed", range: expect.stringMatching(/^B2:/) });
    expect(wb.user.cell(s, 1, 1)).toBe("Status");
  });

  for (const [kind, workbook] of [
    ["memory port", memoryWorkbook],
    ["Office.js adapter on dev/excel", devExcelWorkbook],
  ] as const) {
    it(`issue 36 item 19: a refresh whose placement is disconnected while its query runs says so in words, never its key (${kind})`, async () => {
      const wb = workbook(`https://files.example/live-gone-${kind.length}.xlsx`);
      const ops = await openWorkbookOps({ client: env.client(), data: env.dataClient(), deploymentId: env.deploymentId, port: wb.port });
      const report = await env.createReport({ ...byStatus(2), name: `Orders by status, ${kind}` });
      await wb.port.select({ sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 1, cols: 1 });
      const placed = await ops.place(report.id, { confirmed: false });
      if (placed.kind !== "placed") throw new Error(JSON.stringify(placed));
      env.platform.setSlowQueryMs(1_500);
      try {
        const refresh = ops.refresh(placed.placementId, "ask").catch((e: unknown) => e);
        await new Promise((r) => setTimeout(r, 300)); // the refresh waits for its query
        await ops.disconnect(placed.placementId);
        const e = await refresh;
        expect((e as Error).message).toBe(`“Orders by status, ${kind}” is no longer in this workbook (it was disconnected).`);
        expect(e).toBeInstanceOf(PlacementGone);
        expect((e as Error).message).not.toContain(placed.placementId);
      } finally {
        env.platform.setSlowQueryMs(0);
      }
    });

    it(`issue 36 item 20: a large placement cancelled part way says which rows stay and where, for the pane to say how to finish it (${kind})`, async () => {
      const wb = workbook(`https://files.example/live-cut-${kind.length}.xlsx`);
      const ops = await openWorkbookOps({ client: env.client(), data: env.dataClient(), deploymentId: env.deploymentId, port: wb.port });
      const report = await env.createReport({
        name: `All orders, ${kind}`,
        sqlQuery: "SELECT id, status, amount FROM orders WHERE id <= 100000 ORDER BY id",
      });
      await wb.port.select({ sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 1, cols: 1 });
      const stop = new AbortController();
      const e = await ops
        .place(report.id, { confirmed: false, signal: stop.signal, onProgress: () => stop.abort() }) // leaves the tab at the first rows
        .catch((x: unknown) => x);
      expect((e as Error).name).toBe("PlaceInterrupted");
      expect(e).toBeInstanceOf(PlaceInterrupted);
      const cut = e as PlaceInterrupted;
      expect(cut.rows).toBeGreaterThan(0);
      expect(cut.rows).toBeLessThan(100_000); // the first rows only: a large SQL answer streams
      expect(cut.where).toBe(`Sheet1!A1:C${cut.rows + 1}`);
      expect(cut.message).toBe(
        `${cut.rows.toLocaleString("en-US")} rows of “All orders, ${kind}” were written to ${cut.where} before it stopped: they stay there, as a placement not finished.`,
      );
      // It is what the home shows as Interrupted, and a refresh finishes it.
      const card = (await ops.home()).placements.find((p) => p.reportName === `All orders, ${kind}`)!;
      expect(statusOfView(card, undefined).kind).toBe("interrupted");
      expect(await ops.refresh(card.id, "ask")).toMatchObject({ kind: "refreshed" });
      expect(wb.user.cell(wb.user.firstSheetId(), 100_000, 0)).toBe(100_000);
    });
  }
});
