// Issue 30 §1 in the pane's words (and issue 31 item 4's remaining pair): a row inserted inside a placement is
// named in one statement on the card, after Refresh all, in the hand-edit banner and its diff — never "Row 7
// edited by hand" beside "Not refreshed: … (row 5)". Over the live workbook operations (src/taskpane/home/live.ts),
// the engine and the platform stand-in, on both ports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDataClient, createDeploymentTokenManager } from "../../src/api/index.ts";
import { openWorkbookOps } from "../../src/taskpane/home/live.ts";
import { factsFor, statusOfView } from "../../src/taskpane/home/live-status.ts";
import type { PlacementView } from "../../src/taskpane/home/types.ts";
import { devExcelWorkbook, memoryWorkbook, startEnv, type Env, type WorkbookKind } from "../sync/support.ts";

const customers = {
  jsonQuery: JSON.stringify({
    measures: ["orders.count", "orders.total_amount"],
    dimensions: ["customers.id", "customers.name"],
    order: [["customers.id", "asc"]],
    limit: 19,
  }),
};

describe("issue 30 §1: the pane names a row inserted inside a placement in one statement", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  async function placedAtB2(kind: WorkbookKind, url: string) {
    const wb = kind(url);
    const s = wb.user.firstSheetId();
    const client = env.client();
    const data = createDataClient({ dataUrl: env.platform.info.dataUrl, token: createDeploymentTokenManager({ client, deploymentId: 1 }) });
    const ops = await openWorkbookOps({ client, data, deploymentId: 1, port: wb.port });
    const report = await env.createReport(customers);
    await wb.port.select({ sheetId: s, row: 1, col: 1, rows: 1, cols: 1 });
    const placed = await ops.place(report.id, { confirmed: false });
    if (placed.kind !== "placed") throw new Error(JSON.stringify(placed));
    return { wb, s, ops, id: placed.placementId };
  }

  for (const [label, kind] of [
    ["memory port", memoryWorkbook],
    ["Office.js adapter on dev/excel", devExcelWorkbook],
  ] as const) {
    it(`issue 30 §1 / issue 31 item 4: the card, Refresh all and the banner say "1 row inserted by hand at row 8" (${label})`, async () => {
      const { wb, s, ops, id } = await placedAtB2(kind, `https://files.example/words-${label.length}.xlsx`);
      wb.user.insertRows(s, 7, 1);
      const card = (await ops.home()).placements.find((p) => p.id === id)!;
      const st = statusOfView(card, undefined);
      expect(st.kind).toBe("editedByHand");
      expect(st.lines).toEqual(["1 row inserted by hand at row 8"]);

      // Refresh all leaves it, for the same reason in the same words: one statement on the card.
      const all = await ops.refreshAll({ signal: new AbortController().signal, onProgress: () => {} });
      const after = statusOfView(card, all.rows[id]);
      expect(after.kind).toBe("editedByHand");
      expect(after.lines).toEqual(["Not refreshed: 1 row inserted by hand at row 8; refresh it on its own to choose overwrite or keep."]);

      // Refresh on its own: the banner's sentence, and Show changes lists the inserted row as such.
      wb.user.edit(s, 7, 2, "my note");
      const asked = await ops.refresh(id, "ask");
      if (asked.kind !== "handEdited") throw new Error(JSON.stringify(asked));
      expect(asked.line).toBe("1 row inserted by hand at row 8");
      expect(asked.moved).toEqual(["1 row inserted by hand at row 8"]);
      expect(asked.diff).toEqual([expect.objectContaining({ cell: "C8", now: "my note", inserted: true })]);

      // Keep my edits says what was kept.
      const kept = await ops.refresh(id, "keep");
      expect(kept).toMatchObject({ kind: "kept", line: "1 row inserted by hand at row 8" });
      expect(wb.user.cell(s, 7, 2)).toBe("my note");
    });
  }

  it("issue 30 §1: a row deleted and a value changed are named together, the changed row where it is now", async () => {
    const { wb, s, ops, id } = await placedAtB2(memoryWorkbook, "https://files.example/words-deleted.xlsx");
    wb.user.deleteRows(s, 7, 1);
    wb.user.edit(s, 14, 3, 1); // D15
    const card = (await ops.home()).placements.find((p) => p.id === id)!;
    expect(statusOfView(card, undefined).lines).toEqual(["1 row deleted by hand at row 8, row 15 edited by hand"]);
  });
});

describe("issue 30 §1: Refresh all's reason for rows moved inside is a hand edit left alone, not a failure", () => {
  it("issue 30 §1 (journeys seed 30001): '3 rows inserted by hand at rows 4–6; …' leaves the card Edited by hand with that one line", () => {
    const line = "3 rows inserted by hand at rows 4–6";
    const view: PlacementView = {
      id: "p1",
      sheetName: "Sheet1",
      range: "A1:B6",
      reportId: 1,
      reportName: "By status",
      refreshedAt: null,
      facts: { ...factsFor("editedByHand"), handEdits: line },
      owner: null,
      deploymentId: 1,
      deploymentName: null,
    };
    const reason = `${line}; refresh it on its own to choose overwrite or keep.`;
    for (const r of [reason, `1 column deleted by hand at column B; refresh it on its own to choose overwrite or keep.`]) {
      const st = statusOfView(view, { state: "failed", reason: r });
      expect(st.kind).toBe("editedByHand");
      expect(st.lines.some((l) => l.startsWith("Refresh failed"))).toBe(false);
    }
    expect(statusOfView(view, { state: "failed", reason }).lines).toEqual([`Not refreshed: ${reason}`]);
  });
});
