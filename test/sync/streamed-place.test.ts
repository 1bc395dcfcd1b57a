// First rows early (issue 20 §2): a large flat report is written page by page while the rest arrive,
// journalled so that an interruption between pages reads "Interrupted — finish", never a hand edit.
// Run on the memory port and on the Office.js adapter over dev/excel, against the platform stand-in,
// with pages of 1,500 rows (the data client's 50,000 in production) and a report of 4,200 rows.
import { describe, expect, it } from "vitest";
import type { DataClient } from "../../src/api/index.ts";
import type { SheetPort } from "../../src/host/port.ts";
import { check } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { at, devExcelWorkbook, externalPlacements, flakyPort, memoryWorkbook, useEnv, type WorkbookKind } from "./support.ts";

const ROWS = 4200;
const orders = {
  jsonQuery: JSON.stringify({
    measures: ["orders.total_quantity"],
    dimensions: ["orders.id", "orders.status"],
    filters: [{ member: "orders.id", operator: "lte", values: [String(ROWS)] }],
  }),
};
const PAGES = { pageRows: 1500 };

for (const [label, kind] of [
  ["memory port", memoryWorkbook],
  ["Office.js adapter on dev/excel", devExcelWorkbook],
] as Array<[string, WorkbookKind]>) {
  describe(`a large placement writes its first rows while the rest arrive (${label})`, () => {
    const env = useEnv();
    let n = 0;
    const newBook = () => kind(`https://files.example/streamed-${++n}.xlsx`);

    /** The analyst's data client, logging each /v1/load request and answer in `log`. */
    const logged = (log: string[]): DataClient => {
      const inner = env().dataClient();
      let k = 0;
      return {
        ...inner,
        async fetchLoad(q, s) {
          const i = ++k;
          log.push(`ask ${i}`);
          const r = await inner.fetchLoad(q, s);
          log.push(`answer ${i}`);
          return r;
        },
      };
    };
    /** A port logging its commits in `log`. */
    const logging = (port: SheetPort, log: string[]): SheetPort => {
      const p = Object.create(port) as SheetPort;
      p.commit = async (commands, o) => {
        if (commands.some((c) => c.kind === "write")) log.push("write");
        return port.commit(commands, o);
      };
      return p;
    };

    it("writes the first page before the last is asked for, and ends as a whole placement would", async () => {
      const report = await env().createReport(orders);
      const log: string[] = [];
      const wb = newBook();
      const engine = env().engine({ ...wb, port: logging(wb.port, log) }, "analyst", { data: logged(log), filterDefaults: PAGES });
      const progress: string[] = [];
      const out = await engine.place(report, {
        at: at(wb, 0, 0),
        onProgress: (done, total, known) => progress.push(`${done}/${total}${known ? "" : "+"}`),
      });
      expect(out.kind).toBe("placed");
      if (out.kind !== "placed") return;
      expect(out.range).toBe(`A1:C${ROWS + 1}`);
      // Requests: the query's own answer (a full page), then ordered pages 1–3 (each asked when the one before arrived).
      expect(log.filter((e) => e.startsWith("ask"))).toHaveLength(4);
      expect(log.indexOf("write")).toBeGreaterThan(-1);
      expect(log.indexOf("write")).toBeLessThan(log.indexOf("ask 4"));
      expect(log.filter((e) => e === "write").length).toBeGreaterThanOrEqual(3);
      // Progress: rows written of the rows known, marked "+" until the height is known.
      expect(progress[0]).toBe("1000/1501+");
      expect(progress.at(-1)).toBe(`${ROWS + 1}/${ROWS + 1}`);

      // The same cells a placement of the whole grid writes.
      const whole = newBook();
      const wholeOut = await env()
        .engine(whole, "analyst", { filterDefaults: { pageRows: 50_000 } })
        .place(report, { at: at(whole, 0, 0) });
      expect(wholeOut.kind).toBe("placed");
      for (const r of [0, 1, 999, 1000, 1500, 2999, 3000, 4000, ROWS])
        for (const c of [0, 1, 2])
          expect(wb.user.cell(wb.user.firstSheetId(), r, c)).toEqual(whole.user.cell(whole.user.firstSheetId(), r, c));
      // Recorded in full: a refresh right after writes nothing, and the platform knows the placement.
      const local = (await loadPlacements(wb.port))[0]!;
      expect(local.pending).toBeNull();
      expect(local.shape).toEqual({ rows: ROWS + 1, cols: 3 });
      const again = await env().engine(wb, "analyst", { filterDefaults: PAGES }).refresh(local.key, "ask");
      expect(again).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0 } });
      expect(await externalPlacements(env().client(), (await wb.port.identity()).workbookId)).toHaveLength(1);
    });

    it("content below the first page: waits for every row, then asks before overwriting it (nothing written)", async () => {
      const report = await env().createReport(orders);
      const wb = newBook();
      const sheet = wb.user.firstSheetId();
      wb.user.edit(sheet, 3500, 1, "mine");
      const out = await env()
        .engine(wb, "analyst", { filterDefaults: PAGES })
        .place(report, { at: at(wb, 0, 0) });
      expect(out).toMatchObject({ kind: "wouldOverwrite", count: 1, addresses: ["B3501"] });
      expect(wb.user.cell(sheet, 0, 0)).toBe("");
      expect(wb.user.cell(sheet, 3500, 1)).toBe("mine");
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("another placement below the first page: placed whole, beside it nothing collides", async () => {
      const report = await env().createReport(orders);
      const small = await env().createReport({
        jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], limit: 3 }),
      });
      const wb = newBook();
      const engine = env().engine(wb, "analyst", { filterDefaults: PAGES });
      expect((await engine.place(small, { at: at(wb, 6000, 0) })).kind).toBe("placed");
      const out = await engine.place(report, { at: at(wb, 0, 0) });
      expect(out.kind).toBe("placed"); // 4,201 rows end above row 6,001: no collision once the height is known
      expect(await loadPlacements(wb.port)).toHaveLength(2);
    });

    it("the connection drops before the last page: the error is what the pane shows, the rows written read Interrupted, a refresh finishes", async () => {
      const report = await env().createReport(orders);
      const wb = newBook();
      const inner = env().dataClient();
      let k = 0;
      const dropping: DataClient = {
        ...inner,
        async fetchLoad(q, s) {
          if (++k === 4) throw new TypeError("fetch failed: the connection was reset"); // the third ordered page
          return inner.fetchLoad(q, s);
        },
      };
      const engine = env().engine(wb, "analyst", { data: dropping, filterDefaults: PAGES });
      await expect(engine.place(report, { at: at(wb, 0, 0) })).rejects.toThrow(/connection was reset/);
      const local = (await loadPlacements(wb.port))[0]!;
      // Every row written so far landed, but they are not the whole result: Interrupted, never recorded as they stand.
      expect(local).toMatchObject({ placementId: null, shape: { rows: 3000, cols: 3 }, pending: { phase: "writing", partial: true } });
      const fresh = env().engine(wb, "analyst", { filterDefaults: PAGES });
      expect((await check(fresh)).placements[0]).toMatchObject({ edit: "interrupted", missing: false, range: "A1:C3000" });
      expect(await externalPlacements(env().client(), (await wb.port.identity()).workbookId)).toHaveLength(0);
      expect(await fresh.refresh(local.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect((await check(fresh)).placements[0]).toMatchObject({ edit: "clean", range: `A1:C${ROWS + 1}` });
      expect((await loadPlacements(wb.port))[0]!.pending).toBeNull();
    });

    it("a SQL answer: its first rows are written before the rest are decoded; interrupted after them, finished by a refresh", async () => {
      const sql = await env().createReport({ sqlQuery: "SELECT id, status, quantity FROM orders WHERE id <= 4500 ORDER BY id" });
      const wb = newBook();
      const broken = env().engine({ ...wb, port: flakyPort(wb.port, { failWrite: 2 }) }, "analyst", {
        filterDefaults: { sqlStreamBytes: 1 },
      });
      const progress: string[] = [];
      await expect(
        broken.place(sql, { at: at(wb, 0, 0), onProgress: (done, total, known) => progress.push(`${done}/${total}${known ? "" : "+"}`) }),
      ).rejects.toThrow(/pane closed/);
      // The first 2,000 rows landed before the others were decoded (the header's chunk waits for the rest).
      expect(progress.at(-1)).toBe("2000/2001+");
      // The journal of the second write landed before its cells: its rows are in flight, not edited.
      const local = (await loadPlacements(wb.port))[0]!;
      expect(local.shape).toEqual({ rows: 4000, cols: 3 });
      expect(local.pending).toMatchObject({ phase: "writing", inFlight: { from: 2000, to: 3999 } });
      const engine = env().engine(wb);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "interrupted", missing: false });
      expect(await engine.refresh(local.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: "A1:C4501" });
      const sheet = wb.user.firstSheetId();
      expect([wb.user.cell(sheet, 1, 0), wb.user.cell(sheet, 4500, 0), wb.user.cell(sheet, 4501, 0)]).toEqual([1, 4500, ""]);
    });

    for (const failWrite of [1, 2, 4])
      it(`interrupted at write ${failWrite} (half its rows landed): "Interrupted", then finished by a refresh`, async () => {
        const report = await env().createReport(orders);
        const wb = newBook();
        const broken = env().engine({ ...wb, port: flakyPort(wb.port, { failWrite, halfWrite: true }) }, "analyst", {
          filterDefaults: PAGES,
        });
        await expect(broken.place(report, { at: at(wb, 2, 1) })).rejects.toThrow(/pane closed/);
        const local = (await loadPlacements(wb.port))[0]!;
        expect(local.placementId).toBeNull();
        expect(local.pending?.phase).toBe("writing");
        const engine = env().engine(wb, "analyst", { filterDefaults: PAGES });
        expect((await check(engine)).placements[0]).toMatchObject({ edit: "interrupted", missing: false });
        expect(await engine.refresh(local.key, "ask")).toMatchObject({ kind: "refreshed" });
        const after = (await loadPlacements(wb.port))[0]!;
        expect(after.pending).toBeNull();
        expect(after.shape).toEqual({ rows: ROWS + 1, cols: 3 });
        expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", missing: false, range: `B3:D${ROWS + 3}` });
        expect(typeof wb.user.cell(wb.user.firstSheetId(), ROWS + 2, 1)).toBe("number"); // the last row, written
        expect(wb.user.cell(wb.user.firstSheetId(), ROWS + 3, 1)).toBe("");
      });
  });
}
