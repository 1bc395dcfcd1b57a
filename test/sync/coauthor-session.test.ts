// Co-authors between an operation's read and its write (issue 22, item 5) in the batched shape: the
// engine reads the workbook once (a Session's snapshot) and writes once (commit). A co-author's
// Cellbound that saves the placements part in between must not lose its record, nor make us lose ours:
// the data command carries `ifUnchanged`, the port checks it before sending anything of the commit, and
// the session re-applies its changes to a fresh read and sends the commit again.
import { describe, expect, it } from "vitest";
import { createDevExcel, DevExcelFaults } from "../../dev/excel/index.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";
import { DATA_NS, dataXml, parseDataXml } from "../../src/host/excel/storage.ts";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { DataChangedError, type SheetPort } from "../../src/host/port.ts";
import { Session } from "../../src/sync/session.ts";
import { addPlacement, loadPlacements, MAX_STATE_ATTEMPTS, STATE_KEY, updatePlacement, type LocalPlacement } from "../../src/sync/state.ts";
import { at, byStatus, placed, placementRecord, useEnv, wrapDevExcel } from "./support.ts";

const record = (key: string) => placementRecord(key, "Z1");

let saves = 0;
/** The co-author's Cellbound saves its placement record (a new version of it each time) into the placements. */
function withCoauthor(placements: readonly LocalPlacement[], key = "A"): { v: 1; placements: LocalPlacement[] } {
  return { v: 1, placements: [...placements.filter((p) => p.key !== key), { ...record(key), sheetName: `Saved ${++saves}` }] };
}
function withCoauthorRecord(xml: string, key = "A"): string {
  const d = parseDataXml(xml);
  const state = d ? (JSON.parse(d.json) as { v: 1; placements: LocalPlacement[] }) : { v: 1 as const, placements: [] };
  return dataXml(STATE_KEY, JSON.stringify(withCoauthor(state.placements, key)));
}

interface Book {
  port: SheetPort;
  /**
   * A co-author saves its record `times` times: dev/excel, right after each of the add-in's next reads
   * of the part (call it before the snapshot); memory, just before each of the next commits.
   */
  coauthorAfterNextRead(times?: number): void;
  /** Cell A1 of the first sheet, as the workbook holds it. */
  a1(): unknown;
  sheetId: string;
}

function devExcelBook(): Book {
  const faults = new DevExcelFaults();
  const dx = createDevExcel({ faults, platform: "OfficeOnline" });
  const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
  const sheet = dx.workbook.sheets[0]!;
  return {
    port,
    coauthorAfterNextRead: (times = 1) => faults.coauthorRewritesPart(DATA_NS, (xml) => withCoauthorRecord(xml), times),
    a1: () => dx.workbook.readCell(sheet, 0, 0),
    sheetId: sheet.id,
  };
}

/** The memory port: the co-author's save lands just before each of the next `times` commits. */
function memoryBook(): Book {
  const wb = new MemoryWorkbook("https://files.example/coauthor.xlsx", "Sales.xlsx");
  const inner = new MemoryPort(wb);
  let saves = 0;
  const port = Object.create(inner) as SheetPort;
  port.commit = async (commands, options) => {
    if (saves > 0) {
      saves--;
      const now = (await inner.getData(STATE_KEY)) as { placements: LocalPlacement[] } | undefined;
      await inner.setData(STATE_KEY, withCoauthor(now?.placements ?? []));
    }
    return inner.commit(commands, options);
  };
  return {
    port,
    coauthorAfterNextRead: (times = 1) => (saves += times),
    a1: () => wb.cell(wb.sheets[0]!.id, 0, 0).value,
    sheetId: wb.sheets[0]!.id,
  };
}

describe.each([
  ["memory port", memoryBook],
  ["Office.js adapter on dev/excel", devExcelBook],
])("a co-author saves Cellbound's state between a session's snapshot and its commit (%s)", (_label, book) => {
  it("a data command with ifUnchanged that meets a change reports what it replaced (read in the same round trip)", async () => {
    const b = book();
    await b.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    b.coauthorAfterNextRead();
    const snap = await b.port.snapshot({});
    const sent = await b.port.commit(
      [
        {
          kind: "data",
          key: STATE_KEY,
          value: { v: 1, placements: [record("X"), record("B")] },
          ifUnchanged: { value: snap.data.get(STATE_KEY) },
        },
        { kind: "write", at: { sheetId: b.sheetId, row: 0, col: 0 }, grid: [["ours"]] },
      ],
      { basis: snap },
    );
    expect(sent.syncs).toBe(1); // the check is no round trip of its own
    expect(b.a1()).toBe("ours");
    // What the co-author had saved is reported, for the caller to merge (a Session does: below).
    expect(sent.conflicts?.map((c) => [c.key, (c.found?.value as { placements: LocalPlacement[] }).placements.map((p) => p.key)])).toEqual([
      [STATE_KEY, ["X", "A"]],
    ]);
    // Unchanged since the snapshot: nothing to report.
    const again = await b.port.snapshot({});
    const quiet = await b.port.commit(
      [{ kind: "data", key: STATE_KEY, value: { v: 1, placements: [record("X")] }, ifUnchanged: { value: again.data.get(STATE_KEY) } }],
      { basis: again },
    );
    expect(quiet.conflicts ?? []).toEqual([]);
  });

  it("placing while a co-author places: the session re-applies its change, both records survive", async () => {
    const b = book();
    await b.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    b.coauthorAfterNextRead();
    const s = await Session.open(b.port);
    await addPlacement(s, record("B"));
    await s.write({ sheetId: b.sheetId, row: 0, col: 0 }, [["ours"]]);
    await s.flush();
    expect((await loadPlacements(b.port)).map((p) => p.key).sort()).toEqual(["A", "B", "X"]);
    expect(b.a1()).toBe("ours");
    // The session's own view is the merged one too.
    expect((await loadPlacements(s)).map((p) => p.key).sort()).toEqual(["A", "B", "X"]);
  });

  it("journalling one placement while a co-author adds another: both changes survive", async () => {
    const b = book();
    await b.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    b.coauthorAfterNextRead();
    const s = await Session.open(b.port);
    await updatePlacement(s, "X", (p) => ({ ...p, editsKept: true }));
    await s.flush();
    const after = await loadPlacements(b.port);
    expect(after.map((p) => p.key).sort()).toEqual(["A", "X"]);
    expect(after.find((p) => p.key === "X")?.editsKept).toBe(true);
  });

  it("gives up after MAX_STATE_ATTEMPTS merges that all meet a change, saying the cells were written", async () => {
    const b = book();
    await b.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    b.coauthorAfterNextRead(4 * MAX_STATE_ATTEMPTS); // a co-author who saves after every read
    const s = await Session.open(b.port);
    await addPlacement(s, record("B"));
    await s.write({ sheetId: b.sheetId, row: 0, col: 0 }, [["ours"]]);
    const failed = await s.flush().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DataChangedError);
    expect((failed as DataChangedError).cellsWritten).toBe(true);
    expect(b.a1()).toBe("ours");
    // Every merge kept the co-author's record and ours: whatever the last save, both are there.
    expect((await loadPlacements(b.port)).map((p) => p.key).sort()).toEqual(["A", "B", "X"]);
  });

  it("a plain data write (no read-modify-write) is sent as before, without a check", async () => {
    const b = book();
    await b.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    const s = await Session.open(b.port);
    await s.setData("cellbound.other", { a: 1 });
    const sent = await s.flush();
    expect(await b.port.getData("cellbound.other")).toEqual({ a: 1 });
    expect(sent.syncs).toBe(1);
  });
});

describe("the adapter's check costs", () => {
  it("no sync of its own: it rides in the sync that writes the data", async () => {
    const b = devExcelBook();
    await b.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    const syncs = async (grid: Array<Array<string | number>>, keepFormats: boolean, checked: boolean) => {
      const snap = await b.port.snapshot({});
      const sent = await b.port.commit(
        [
          {
            kind: "data",
            key: STATE_KEY,
            value: { v: 1, placements: [record("X"), record(`Y${grid.length}${String(keepFormats)}${String(checked)}`)] },
            ...(checked ? { ifUnchanged: { value: snap.data.get(STATE_KEY) } } : {}),
          },
          { kind: "write", at: { sheetId: b.sheetId, row: 0, col: 0 }, grid, options: { keepFormats } },
        ],
        { basis: snap },
      );
      return sent.syncs;
    };
    expect(await syncs([["a"]], false, false)).toBe(1);
    expect(await syncs([["a"]], false, true)).toBe(1);
    expect(await syncs([[1, 2]], true, false)).toBe(2); // the format read, then the write
    expect(await syncs([[1, 2]], true, true)).toBe(2);
  });
});

describe("the engine on a co-authored workbook (Office.js adapter on dev/excel)", () => {
  const env = useEnv();

  function coauthoredBook() {
    const faults = new DevExcelFaults();
    const dx = createDevExcel({ faults, platform: "OfficeOnline" });
    const wb = wrapDevExcel(dx.workbook);
    const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
    return { wb: { ...wb, port }, faults };
  }

  it("place, refresh, Refresh all and disconnect each keep a record a co-author saved between their read and their write", async () => {
    const { wb, faults } = coauthoredBook();
    const engine = env().engine(wb);
    const report = await env().createReport(byStatus(3));
    // Someone placed before (the part exists, so each operation's snapshot reads it); the co-author's save
    // lands right after that read, before the operation's commit.
    await wb.port.setData(STATE_KEY, { v: 1, placements: [record("X")] });
    faults.coauthorRewritesPart(DATA_NS, (xml) => withCoauthorRecord(xml, "A"));
    const one = await placed(engine, report, at(wb, 0, 0));
    expect(faults.partRewritesDone()).toBe(1);
    const keys = async () => (await loadPlacements(wb.port)).map((p) => p.key).sort();
    expect(await keys()).toEqual(["A", "X", one.key].sort());
    expect(wb.user.cell(wb.user.firstSheetId(), 1, 0)).not.toBe("");

    faults.coauthorRewritesPart(DATA_NS, (xml) => withCoauthorRecord(xml, "C"));
    wb.user.edit(wb.user.firstSheetId(), 1, 1, 999); // so the refresh writes
    const r = await engine.refresh(one.key, "overwrite");
    expect(r.kind).toBe("refreshed");
    expect(await keys()).toEqual(["A", "C", "X", one.key].sort());
    const mine = (await loadPlacements(wb.port)).find((p) => p.key === one.key)!;
    expect(mine.pending).toBeNull();
    expect(mine.committed).not.toBeNull();

    faults.coauthorRewritesPart(DATA_NS, (xml) => withCoauthorRecord(xml, "R"));
    await env().client().updateReport(env().deploymentId, one.reportId, byStatus(4)); // so Refresh all writes
    const all = await engine.refreshAll();
    expect(all.items[one.key]).toMatchObject({ state: "done" });
    expect(wb.user.cell(wb.user.firstSheetId(), 4, 0)).not.toBe(""); // it wrote: a fourth row
    expect(await keys()).toEqual(["A", "C", "R", "X", one.key].sort());
    expect((await loadPlacements(wb.port)).find((p) => p.key === one.key)?.pending).toBeNull();

    faults.coauthorRewritesPart(DATA_NS, (xml) => withCoauthorRecord(xml, "D"));
    await engine.disconnect(one.key);
    expect(await keys()).toEqual(["A", "C", "D", "R", "X"]);
  });
});
