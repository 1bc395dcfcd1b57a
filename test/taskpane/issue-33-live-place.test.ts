// Issue 33: the pane's live Place (src/taskpane/home/live.ts) hands "Place as an Excel table" to the
// engine as PlaceOptions.asTable, over the memory port and the platform stand-in; without it, no asTable.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openWorkbookOps } from "../../src/taskpane/home/live.ts";
import { SyncEngine, type PlaceOptions } from "../../src/sync/index.ts";
import { byStatus, memoryWorkbook, startEnv, type Env } from "../sync/support.ts";

describe("issue 33: the live Place passes asTable to the engine", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    vi.restoreAllMocks();
  });

  it("issue 33: asTable reaches engine.place when chosen (and the overwrite's confirmation), and is absent otherwise", async () => {
    const asked: PlaceOptions[] = [];
    const place = SyncEngine.prototype.place;
    vi.spyOn(SyncEngine.prototype, "place").mockImplementation(function (this: SyncEngine, report, o) {
      asked.push(o ?? {});
      return place.call(this, report, o);
    });
    const wb = memoryWorkbook("https://files.example/issue-33-live.xlsx");
    const s = wb.user.firstSheetId();
    const ops = await openWorkbookOps({ client: env.client(), data: env.dataClient(), deploymentId: env.deploymentId, port: wb.port });
    await wb.port.select({ sheetId: s, row: 0, col: 0, rows: 1, cols: 1 });
    await ops.place((await env.createReport(byStatus(2))).id, { confirmed: false });
    await wb.port.select({ sheetId: s, row: 0, col: 10, rows: 1, cols: 1 });
    await ops.place((await env.createReport(byStatus(2))).id, { confirmed: true, asTable: true });
    expect(asked).toHaveLength(2);
    expect(asked[0]).not.toHaveProperty("asTable");
    expect(asked[1]).toMatchObject({ confirmed: true, asTable: true, at: { sheetId: s, row: 0, col: 10 } });
    // The home's cards: the table placement names its table, the range does not.
    const cards = (await ops.home()).placements;
    expect(cards.map((c) => c.tableName)).toEqual([undefined, expect.stringMatching(/^Report_\d+$/)]);
  });
});
