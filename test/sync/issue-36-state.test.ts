// Issue 36 item 13: a Cellbound that rewrites the placements store keeps the fields it does not know
// (a newer version's, e.g. the journal's `partial` before it existed), in a record and at the store's
// top level, while it still validates the fields it knows.
import { describe, expect, it } from "vitest";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { SyncEngine } from "../../src/sync/index.ts";
import { addPlacement, loadPlacements, STATE_KEY, updatePlacement } from "../../src/sync/state.ts";
import { at, byStatus, memoryWorkbook, placed, placementRecord, useEnv } from "./support.ts";

/** X as a newer version stored it: a field of its own in the record and in its journal. */
const newer = () => ({
  ...placementRecord("X"),
  laterField: { kept: true },
  pending: { checksum: { v: 1, chunks: [] }, shape: { rows: 1, cols: 1 }, at: "2026-01-01T00:00:00Z", phase: "writing", partialFuture: 7 },
});
const store = () => ({ v: 1, placements: [newer(), placementRecord("A", "C1")], writtenBy: "Cellbound 9" });
const raw = async (port: MemoryPort) => (await port.getData(STATE_KEY)) as { writtenBy?: unknown; placements: Record<string, unknown>[] };

describe("issue 36 item 13: unknown fields in stored records", () => {
  it("issue 36 item 13: an unknown field of a record, of its journal and of the store survive an update of that record", async () => {
    const port = new MemoryPort(new MemoryWorkbook("https://files.example/state-36-1.xlsx", "S.xlsx"));
    await port.setData(STATE_KEY, store());
    await updatePlacement(port, "X", (p) => ({
      ...p,
      editsKept: true,
      pending: p.pending && { ...p.pending, inFlight: { from: 0, to: 0 } },
    }));
    const after = await raw(port);
    expect(after.writtenBy).toBe("Cellbound 9");
    expect(after.placements[0]).toMatchObject({ key: "X", editsKept: true, laterField: { kept: true } });
    expect(after.placements[0]!["pending"]).toMatchObject({ partialFuture: 7, inFlight: { from: 0, to: 0 } });
  });

  it("issue 36 item 13: they survive an update of another record, and a new record added", async () => {
    const port = new MemoryPort(new MemoryWorkbook("https://files.example/state-36-2.xlsx", "S.xlsx"));
    await port.setData(STATE_KEY, store());
    await updatePlacement(port, "A", (p) => ({ ...p, sheetName: "Renamed" }));
    await addPlacement(port, placementRecord("B", "E1"));
    const after = await raw(port);
    expect(after.writtenBy).toBe("Cellbound 9");
    expect(after.placements.map((p) => p["key"])).toEqual(["X", "A", "B"]);
    expect(after.placements[0]).toEqual(newer());
    expect(after.placements[1]).toMatchObject({ sheetName: "Renamed" });
  });

  it("issue 36 item 13: what is known is still validated: a known field of the wrong type is refused", async () => {
    const port = new MemoryPort(new MemoryWorkbook("https://files.example/state-36-3.xlsx", "S.xlsx"));
    await port.setData(STATE_KEY, { ...store(), placements: [{ ...newer(), editsKept: "yes" }] });
    await expect(loadPlacements(port)).rejects.toThrow(/unreadable/);
    await port.setData(STATE_KEY, store());
    await expect(updatePlacement(port, "X", (p) => ({ ...p, shape: { rows: 0, cols: 1 } }))).rejects.toThrow();
  });

  describe("through the engine (its session)", () => {
    const env = useEnv();
    it("issue 36 item 13: a refresh of one placement keeps another's unknown fields and the store's", async () => {
      const wb = memoryWorkbook("https://files.example/state-36-4.xlsx");
      const engine: SyncEngine = env().engine(wb);
      const mine = await placed(engine, await env().createReport(byStatus(2)), at(wb, 0, 0));
      const stored = (await wb.port.getData(STATE_KEY)) as { v: 1; placements: Record<string, unknown>[] };
      const other = { ...placementRecord("Z", "H1"), laterField: "keep me" };
      await wb.port.setData(STATE_KEY, { ...stored, placements: [...stored.placements, other], writtenBy: "Cellbound 9" });
      await env().client().updateReport(env().deploymentId, mine.reportId, byStatus(3));
      expect(await engine.refresh(mine.key, "ask")).toMatchObject({ kind: "refreshed" });
      const after = (await wb.port.getData(STATE_KEY)) as { writtenBy?: unknown; placements: Record<string, unknown>[] };
      expect(after.writtenBy).toBe("Cellbound 9");
      expect(after.placements.find((p) => p["key"] === "Z")).toEqual(other);
    });
  });
});
