// "Last written" survives a reload of the pane: a new engine over the same session storage still
// knows what Cellbound wrote, so the diff shows it instead of "(unknown)".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionLastWritten, MAX_KEPT_CELLS } from "../../src/taskpane/app/last-written.ts";
import { byStatus, memoryWorkbook, startEnv, type Env } from "../sync/support.ts";

class FakeStorage implements Storage {
  private m = new Map<string, string>();
  get length() {
    return this.m.size;
  }
  clear() {
    this.m.clear();
  }
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  key(i: number) {
    return [...this.m.keys()][i] ?? null;
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
}

describe("last written across a pane reload", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it("a new engine over the same session storage still shows the value last written", async () => {
    const storage = new FakeStorage();
    const wb = memoryWorkbook("https://files.example/lw.xlsx");
    const s = wb.user.firstSheetId();
    const first = env.engine(wb, "analyst", { lastWritten: sessionLastWritten(storage) });
    const out = await first.place(await env.createReport(byStatus()), { at: { sheetId: s, row: 0, col: 0 } });
    if (out.kind !== "placed") throw new Error(out.kind);
    const before = wb.user.cell(s, 1, 1);
    wb.user.edit(s, 1, 1, 4242);
    // The pane reloads: a new engine, a new store object, the same session.
    const second = env.engine(wb, "analyst", { lastWritten: sessionLastWritten(storage) });
    const r = await second.refresh(out.key, "ask");
    expect(r.kind).toBe("handEdited");
    if (r.kind === "handEdited") expect(r.edits.cells[0]).toMatchObject({ address: "B2", lastWritten: before, now: 4242 });
    // Without the stored grid it would be unknown (what the engine reported before).
    const forgetful = env.engine(wb, "analyst");
    const u = await forgetful.refresh(out.key, "ask");
    if (u.kind === "handEdited") expect(u.edits.cells[0]!.lastWritten).toBeUndefined();
  });

  it("keeps grids up to its cap, rejects corrupt entries", () => {
    const storage = new FakeStorage();
    const store = sessionLastWritten(storage);
    store.set("k1", [["a", 1, true]]);
    expect(sessionLastWritten(storage).get("k1")).toEqual([["a", 1, true]]);
    store.set(
      "big",
      Array.from({ length: MAX_KEPT_CELLS + 1 }, () => [1]),
    );
    expect(sessionLastWritten(storage).get("big")).toBeUndefined();
    storage.setItem("cellbound.lastWritten.bad", JSON.stringify([[{ x: 1 }]]));
    expect(sessionLastWritten(storage).get("bad")).toBeUndefined();
    expect(storage.getItem("cellbound.lastWritten.bad")).toBeNull();
  });
});
