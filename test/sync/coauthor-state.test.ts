// Co-authors overwrite each other's Cellbound state (issue 22, item 5): every placement lives in one
// custom XML part updated read-modify-write. dev/excel models a co-author's save landing between
// Cellbound's read and write (DevExcelFaults.coauthorRewritesPart); the state store detects the change
// (setData with ifUnchanged) and re-applies its change per placement, so neither record is lost.
import { describe, expect, it } from "vitest";
import { createDevExcel, DevExcelFaults } from "../../dev/excel/index.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";
import { DATA_NS, dataXml } from "../../src/host/excel/storage.ts";
import { DataChangedError } from "../../src/host/port.ts";
import { addPlacement, loadPlacements, STATE_KEY, updatePlacement, type LocalPlacement } from "../../src/sync/state.ts";
import { placementRecord } from "./support.ts";

const record = (key: string) => placementRecord(key, "A1");

function setup() {
  const faults = new DevExcelFaults();
  const dx = createDevExcel({ faults });
  const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
  /** The co-author's Cellbound saves these placements right after our next read of the data. */
  const coauthorSaves = (placements: LocalPlacement[]) =>
    faults.coauthorRewritesPart(DATA_NS, () => dataXml(STATE_KEY, JSON.stringify({ v: 1, placements })));
  return { dx, faults, port, coauthorSaves };
}

describe("co-authors and Cellbound's state part", () => {
  it("dev/excel: a co-author's save lands right after the add-in read the part", async () => {
    const { port, faults, coauthorSaves } = setup();
    await port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    coauthorSaves([record("X"), record("A")]);
    expect(await loadPlacements(port)).toEqual([record("X")]); // what we read, stale at once
    expect(faults.partRewritesDone()).toBe(1);
    expect((await loadPlacements(port)).map((p) => p.key)).toEqual(["X", "A"]);
  });

  it("setData with ifUnchanged refuses to overwrite data changed since it was read", async () => {
    const { port, coauthorSaves } = setup();
    await port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    coauthorSaves([record("X"), record("A")]);
    const read = await port.getData(STATE_KEY); // the co-author's save lands right after this read
    await expect(port.setData(STATE_KEY, { v: 1, placements: [] }, { ifUnchanged: { value: read } })).rejects.toBeInstanceOf(
      DataChangedError,
    );
    expect((await loadPlacements(port)).map((p) => p.key)).toEqual(["X", "A"]);
  });

  it("placing while a co-author places: both placements' records survive", async () => {
    const { port, coauthorSaves } = setup();
    await port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    coauthorSaves([record("X"), record("A")]);
    await addPlacement(port, record("B"));
    expect((await loadPlacements(port)).map((p) => p.key).sort()).toEqual(["A", "B", "X"]);
  });

  it("journalling one placement while a co-author changes another: both changes survive", async () => {
    const { port, coauthorSaves } = setup();
    await port.setData(STATE_KEY, { v: 1, placements: [record("X"), record("A")] });
    coauthorSaves([record("X"), { ...record("A"), sheetName: "Renamed by co-author" }]);
    await updatePlacement(port, "X", (p) => ({ ...p, editsKept: true }));
    const after = await loadPlacements(port);
    expect(after.find((p) => p.key === "X")?.editsKept).toBe(true);
    expect(after.find((p) => p.key === "A")?.sheetName).toBe("Renamed by co-author");
  });
});
