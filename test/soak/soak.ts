// The soak: a seeded run of many operations over several placements in two deployments, through
// the real engine (src/sync) over the Office.js adapter (src/host/excel) on dev/excel, against the
// platform stand-in — with both fault modes on (dev/platform/chaos.ts, dev/excel/faults.ts).
//
// Operations: place (a third of flat reports as Excel tables, issue 33), refresh (ask → overwrite or keep), refresh all with Stop, check, disconnect
// (Cellbound's); edit a cell, insert rows, rename a sheet (the user's); change a report's query on
// the platform (another person's). After every step it asserts the invariants of issue 12 §5:
//   reportOnce        no report created twice
//   checksum          no placement recorded with a checksum its cells do not match, unless a person
//                     edited them (and then it shows as edited)
//   falseEdit         no "edited by hand" without a person's edit
//   outside           no cell outside a placement changed by Cellbound
//   denied            DENIED cells never touched
//   deadline          every action ends (completes, or says why) within its deadline
//   says-why          an action that fails says why (a non-empty message)
//   store             the stand-in's store stays consistent (Store.verify)
//   agree             local and platform records agree once faults stop and the user checked and
//                     refreshed everything (final phase)
//   clobber           a cell a person typed outside every placement while a place or refresh waited on the
//                     network still holds it afterwards (unless the person confirmed placing over it)
// The person also acts while Cellbound waits on the network (issue 36): with a chance per request of a place,
// refresh or Refresh all, they type into a placement, below one, or where a placement may go, insert rows
// above the placements, or rename a sheet.
// Used by test/soak/soak.test.ts (short form in npm test) and test/soak/main.ts (`npm run soak`).
import { startPlatform, type RunningPlatform } from "../../dev/platform/server.ts";
import { seededRandom, type FaultKind } from "../../dev/platform/chaos.ts";
import { createDevExcel, DevExcelFaults, DevWorkbook, type CoauthorEdit, type ExcelFaultKind } from "../../dev/excel/index.ts";
import {
  createDataClient,
  createDeploymentTokenManager,
  createPlatformClient,
  type PlatformClient,
  type Report,
} from "../../src/api/index.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";
import { cellA1, MAX_ROWS, parseAddress } from "../../src/host/a1.ts";
import type { Area } from "../../src/host/port.ts";
import { check, SyncEngine, type LocalPlacement } from "../../src/sync/index.ts";
import { readArea } from "../../src/sync/context.ts";
import { fingerprintGrid } from "../../src/sync/fingerprint.ts";
import { sameGrid } from "../../src/sync/state.ts";

export interface SoakOptions {
  seed: number;
  /** Chance per request, while a place or refresh waits on the network, that the person acts (default MID_OP_RATE). */
  midOpRate?: number;
  /** Run for this long (the step under way finishes). */
  durationMs: number;
  /** Stop after this many steps even if time is left. */
  maxSteps?: number;
  /** An action that has not ended by then is a violation (then it is aborted and hung requests are let go). */
  actionDeadlineMs?: number;
  platformRates?: Partial<Record<FaultKind, number>>;
  excelRates?: Partial<Record<ExcelFaultKind, number>>;
  /** How long an injected hang holds a request (default: past the action deadline). */
  hangMs?: number;
  log?: (line: string) => void;
  /**
   * For the soak's own test only: after every place, Cellbound's port also writes where it must
   * not — a cell outside every placement ("outside"), a DENIED cell ("denied"), or a placement's
   * own cell without recording it ("unrecorded") — so that the invariants are seen to catch it.
   */
  sabotage?: "outside" | "denied" | "unrecorded";
}

export interface Violation {
  step: number;
  op: string;
  invariant: string;
  detail: string;
  /** What the person and co-authors did during that step, in order (to read a violation by). */
  during: string[];
}

export interface SoakResult {
  seed: number;
  steps: number;
  durationMs: number;
  operations: Record<string, number>;
  outcomes: Record<string, number>;
  /** Per action, the first few distinct error messages (what the user was told). */
  errors: Record<string, string[]>;
  faults: {
    platform: Record<FaultKind, number>;
    excel: Record<ExcelFaultKind, number>;
    coauthorEdits: number;
    /** What the person did while a place or refresh waited on the network (issue 36). */
    person: Record<string, number>;
  };
  violations: Violation[];
  /** Per invariant, how many violations (a persisting one counts once). */
  violationCounts: Record<string, number>;
  config: {
    actionDeadlineMs: number;
    platformRates: Partial<Record<FaultKind, number>>;
    excelRates: Partial<Record<ExcelFaultKind, number>>;
  };
}

export const SOAK_PLATFORM_RATES: Partial<Record<FaultKind, number>> = {
  latency: 0.08,
  error5xx: 0.03,
  reset: 0.02,
  truncate: 0.02,
  hang: 0.002,
  upsertRace: 0.05,
  continueWait: 0.1,
  tokenExpiry: 0.01,
};
export const SOAK_EXCEL_RATES: Partial<Record<ExcelFaultKind, number>> = {
  payloadLimit: 0.04,
  syncFailure: 0.04,
  coauthorInside: 0.03,
  coauthorBeside: 0.03,
};

type Op =
  | "place"
  | "refresh"
  | "refreshAllStop"
  | "check"
  | "disconnect"
  | "edit"
  | "insertRows"
  | "insertRowsInside"
  | "deleteRowsInside"
  | "renameSheet"
  | "changeReport";
const OPS: [Op, number][] = [
  ["place", 14],
  ["refresh", 18],
  ["refreshAllStop", 8],
  ["check", 10],
  ["disconnect", 5],
  ["edit", 16],
  ["insertRows", 5],
  // Structural edits inside a placement (issue 30): a whole sheet row inserted or deleted through it.
  ["insertRowsInside", 3],
  ["deleteRowsInside", 2],
  ["renameSheet", 4],
  ["changeReport", 10],
];
/** Operations where Cellbound writes: the cell diff applies to them. */
const CELLBOUND_OPS = new Set<Op>(["place", "refresh", "refreshAllStop", "check", "disconnect"]);

/** Report queries of several sizes: a few rows, a screenful, more than one 1,000-row chunk. */
const customers = (limit: number) =>
  JSON.stringify({ measures: ["orders.count"], dimensions: ["customers.id", "customers.name"], order: [["customers.id", "asc"]], limit });
const statuses = () => JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]] });
const LIMITS = [12, 80, 150, 1_200, 2_100];
/** Without a limit: the engines page at PAGE_ROWS here, so 2,400 rows come in pages and are written as they arrive (issue 20 §2). */
const customersPaged = () =>
  JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.id", "customers.name"],
    filters: [{ member: "customers.id", operator: "lte", values: ["2400"] }],
  });
const PAGE_ROWS = 1_000;

/** Chance per request of a place or refresh that the person does something meanwhile (issue 36). */
export const MID_OP_RATE = 0.06;
type MidOp = "typeInside" | "typeBelow" | "typeAtSlot" | "insertRowsAbove" | "renameSheet";
const MID_OPS: [MidOp, number][] = [
  ["typeInside", 3],
  ["typeBelow", 3],
  ["typeAtSlot", 1],
  ["insertRowsAbove", 2],
  ["renameSheet", 1],
];

const SLOT_COLS = [0, 5, 10, 15];
const SLOT_ROW = 2;
const USER = "outsider"; // editor in both deployments; cannot read the analyst's private reports (DENIED)

/**
 * The request layer's deadlines, scaled down for the soak (the product's are in src/api/deadlines.ts:
 * same shape, longer values). An action's deadline follows from them: the longest chain of requests
 * one action makes in turn — a token mint, a report lookup, the data, the record — each at its full
 * budget, plus time for Excel and the engine's own work.
 */
const SOAK_DEADLINES = { managementAttemptMs: 4_000, dataAttemptMs: 6_000, tokenMintMs: 4_000 } as const;
const SOAK_MANAGEMENT_BUDGET_MS = 8_000;
const SOAK_DATA_BUDGET_MS = 20_000;
const SOAK_LOCAL_WORK_MS = 20_000;
export const SOAK_ACTION_DEADLINE_MS =
  SOAK_DEADLINES.tokenMintMs + 2 * SOAK_MANAGEMENT_BUDGET_MS + SOAK_DATA_BUDGET_MS + SOAK_LOCAL_WORK_MS;

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => {});
  const deadline = o.actionDeadlineMs ?? SOAK_ACTION_DEADLINE_MS;
  const rnd = seededRandom(o.seed ^ 0x5eed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  /** A report query of one of the sizes above; one in six is the paged one. */
  const anyCustomers = () => (rnd() < 1 / 6 ? customersPaged() : customers(pick(LIMITS)));
  const t0 = performance.now();

  const platform: RunningPlatform = await startPlatform({ log: () => {}, continueWaitMs: 150 });
  const violations: Violation[] = [];
  const operations: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  const errors: Record<string, string[]> = {};
  let step = 0;
  let op: Op | "setup" | "final" = "setup";
  const reported = new Set<string>();
  /** The person's actions during the current step, and where the step's co-author edits begin. */
  let stepTrace: string[] = [];
  let coauthorFrom = 0;
  let coauthorTrace = (): string[] => [];
  /** Records a violation; one that persists (the same invariant on the same thing) is recorded once, when first seen. */
  const violate = (invariant: string, detail: string, same: string = detail) => {
    if (reported.has(`${invariant}|${same}`)) return;
    reported.add(`${invariant}|${same}`);
    const during = [...stepTrace, ...coauthorTrace()];
    violations.push({ step, op, invariant, detail, during });
    log(`  ✗ step ${step} ${op}: ${invariant}: ${detail}${during.length ? ` [during the step: ${during.join("; ")}]` : ""}`);
  };

  try {
    // ---- the world: a workbook, clients, engines, reports ---------------------------------------
    const faults = new DevExcelFaults();
    coauthorTrace = () =>
      faults
        .edits()
        .slice(coauthorFrom)
        .map((e) => `co-author "${e.value}" at ${e.sheetId}!${cellA1(e.row, e.col)}`);
    const wb = new DevWorkbook(`https://contoso.sharepoint.example/Soak-${o.seed}.xlsx`, "Soak.xlsx");
    const dx = createDevExcel({ workbook: wb, platform: "OfficeOnline", faults });
    // Small write blocks: every placement of more than a few rows is written in several syncs.
    const port = new ExcelPort({
      Excel: dx.Excel as unknown as typeof Excel,
      Office: dx.Office as unknown as typeof Office,
      writeBlockBytes: 2_000,
    });
    const sheets = [wb.addSheet("Alpha").id, wb.addSheet("Beta").id];
    const shared = wb.addSheet("Shared").id;
    // ---- the person, while Cellbound waits on the network (issue 36) ----------------------------
    const midRnd = seededRandom(o.seed ^ 0x36);
    const midRate = o.midOpRate ?? MID_OP_RATE;
    /** Set while a place or refresh runs: each request it makes is a moment the person may act in. */
    let acting = false;
    /** Where the placements were when the step began (the person aims at what they see). */
    let seen = new Map<string, Area[]>();
    /** Cells the person typed outside every placement during this step: they must survive it. */
    let typedOutside: Array<{ sheetId: string; row: number; col: number; value: string }> = [];
    /** Cells the person typed during this step (any), for `touched`. */
    let typedNow: Array<{ sheetId: string; row: number; col: number }> = [];
    /** Sheets where the person inserted a row at the top during this step (each entry one row). */
    let shiftedNow: string[] = [];
    /**
     * The co-author edits (dev/excel's fault mode) made during this step, where their cells are now:
     * a row the person inserts above later in the same step moves them down as it moves every cell.
     */
    let coauthorNow: CoauthorEdit[] = [];
    let coauthorPulled = 0;
    const pullCoauthor = () => {
      const log = faults.edits();
      for (; coauthorPulled < log.length; coauthorPulled++) coauthorNow.push({ ...log[coauthorPulled]! });
      return coauthorNow;
    };
    const midOps: Record<string, number> = {};
    let midN = 0;
    const actMidOp = () => {
      const total = MID_OPS.reduce((n, [, w]) => n + w, 0);
      let r = midRnd() * total;
      const what = MID_OPS.find(([, w]) => (r -= w) < 0)?.[0] ?? "typeBelow";
      const list = [...seen.values()].map((l) => l[0]!).filter(Boolean);
      const pickArea = () => (list.length ? list[Math.floor(midRnd() * list.length)]! : null);
      const type = (sheetId: string, row: number, col: number, outside: boolean) => {
        if (row >= MAX_ROWS || col >= 16_384 || !wb.sheetById(sheetId)) return false;
        const value = `mid ${++midN}`;
        wb.typeInto(sheetId, cellA1(row, col), value);
        typedNow.push({ sheetId, row, col });
        // The person typing again into a cell replaces what they typed there before.
        typedOutside = typedOutside.filter((t) => t.sheetId !== sheetId || t.row !== row || t.col !== col);
        if (outside && !list.some((a) => inside(a, sheetId, row, col))) typedOutside.push({ sheetId, row, col, value });
        return true;
      };
      let done = false;
      switch (what) {
        case "typeInside": {
          const a = pickArea();
          if (a) done = type(a.sheetId, a.row + Math.floor(midRnd() * a.rows), a.col + Math.floor(midRnd() * a.cols), false);
          break;
        }
        case "typeBelow": {
          const a = pickArea();
          if (a) done = type(a.sheetId, a.row + a.rows + Math.floor(midRnd() * 3), a.col + Math.floor(midRnd() * a.cols), true);
          break;
        }
        case "typeAtSlot": {
          const sheetId = sheets[Math.floor(midRnd() * sheets.length)]!;
          done = type(
            sheetId,
            SLOT_ROW + (insertedAbove.get(sheetId) ?? 0) + Math.floor(midRnd() * 3),
            SLOT_COLS[Math.floor(midRnd() * SLOT_COLS.length)]!,
            true,
          );
          break;
        }
        case "insertRowsAbove": {
          const sheetId = sheets[Math.floor(midRnd() * sheets.length)]!;
          wb.insertRows(sheetId, 0, 1);
          insertedAbove.set(sheetId, (insertedAbove.get(sheetId) ?? 0) + 1);
          shiftedNow.push(sheetId);
          for (const t of [...typedOutside, ...typedNow, ...pullCoauthor()]) if (t.sheetId === sheetId) t.row += 1;
          for (const l of seen.values()) for (const a of l) if (a.sheetId === sheetId) a.row += 1;
          done = true;
          break;
        }
        case "renameSheet": {
          const sheetId = sheets[Math.floor(midRnd() * sheets.length)]!;
          wb.renameSheet(sheetId, `${wb.sheetById(sheetId)!.name.replace(/ \d+$/, "")} ${step}${++midN}`);
          done = true;
          break;
        }
      }
      if (done) midOps[what] = (midOps[what] ?? 0) + 1;
      if (done)
        stepTrace.push(
          `${what}${what === "renameSheet" || what === "insertRowsAbove" ? "" : ` ${typedNow.at(-1)?.sheetId}!${cellA1(typedNow.at(-1)!.row, typedNow.at(-1)!.col)}`}`,
        );
    };
    /** fetch as the clients use it, with the person acting now and then while a place or refresh waits for it. */
    const personFetch: typeof fetch = (input, init) => {
      if (acting && midRnd() < midRate) actMidOp();
      return fetch(input, init);
    };

    const client = (persona: "outsider" | "analyst"): PlatformClient =>
      createPlatformClient({
        baseUrl: platform.info.baseUrl,
        credential: platform.info.apiKeys[persona],
        retry: { baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: SOAK_MANAGEMENT_BUDGET_MS },
        deadlines: SOAK_DEADLINES,
        fetch: personFetch,
      });
    const me = client(USER);
    const engines = new Map<number, SyncEngine>();
    for (const d of [1, 2]) {
      const data = createDataClient({
        dataUrl: platform.info.dataUrl,
        token: createDeploymentTokenManager({ client: me, deploymentId: d, mintDeadlineMs: SOAK_DEADLINES.tokenMintMs }),
        retry: { baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: SOAK_DATA_BUDGET_MS },
        deadlines: SOAK_DEADLINES,
        fetch: personFetch,
      });
      engines.set(
        d,
        new SyncEngine({ port, platform: me, data, deploymentId: d, writeChunksPerCall: 1, filterDefaults: { pageRows: PAGE_ROWS } }),
      );
    }
    const identity = await port.identity();

    const reports: Report[] = [];
    for (const d of [1, 2]) {
      for (let i = 0; i < 4; i++) {
        const jsonQuery = i === 0 ? statuses() : anyCustomers();
        reports.push(await me.createReport(d, { name: `Soak d${d} r${i}`, title: `Soak d${d} r${i}`, jsonQuery }));
      }
    }
    // A DENIED placement in this workbook: the analyst's private report, its cells on "Shared".
    const analyst = client("analyst");
    const privateReport = await analyst.createReport(1, { name: "Analyst private", title: "Analyst private", jsonQuery: statuses() });
    const deniedGrid = [
      ["Status", "Count"],
      ["cancelled", 1],
      ["completed", 2],
      ["processing", 3],
      ["shipped", 4],
    ];
    deniedGrid.forEach((row, r) => row.forEach((v, c) => wb.typeInto(shared, `${"BC"[c]}${r + 3}`, String(v))));
    await analyst.connectWorkbook(1, privateReport.id, {
      externalWorkbookId: identity.workbookId,
      sheetId: shared,
      sheetName: "Shared",
      workbookName: identity.name,
      host: port.host,
      resultChecksum: await fingerprintGrid(deniedGrid),
      anchorCell: "B3",
      endResultCell: "C7",
      resultLocation: "Shared!B3:C7",
    });
    const deniedBefore = sheetCells(wb, shared);

    // ---- faults on ------------------------------------------------------------------------------
    platform.chaos.set({ seed: o.seed, rates: o.platformRates ?? SOAK_PLATFORM_RATES, hangMs: o.hangMs ?? deadline + 15_000 });
    faults.set({ seed: o.seed, rates: o.excelRates ?? SOAK_EXCEL_RATES });

    /** Placements a person edited since Cellbound last wrote them whole (they may show as edited). */
    const touched = new Set<string>();
    let userEdits = 0;
    let coauthorSeen = 0;

    const locals = async () => await engines.get(1)!.placements();
    const areas = async (): Promise<Map<string, Area[]>> => {
      // Every area Cellbound may write for a placement: where its name is, and where its record says.
      const out = new Map<string, Area[]>();
      const tracked = await port.tracked();
      for (const p of await locals()) {
        const list: Area[] = [];
        const t = tracked.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
        const rows = Math.max(p.shape.rows, p.pending?.shape.rows ?? 0),
          cols = Math.max(p.shape.cols, p.pending?.shape.cols ?? 0);
        if (t?.area) list.push({ ...t.area, rows: Math.max(t.area.rows, rows), cols: Math.max(t.area.cols, cols) });
        const a = parseAddress(p.anchorCell);
        list.push({ sheetId: p.sheetId, row: a.row, col: a.col, rows, cols });
        out.set(p.key, list);
      }
      return out;
    };
    /** Each table placement's table where the workbook has it now (by the record's table name). */
    const tableRects = async (): Promise<Map<string, Area>> => {
      const out = new Map<string, Area>();
      for (const p of await locals()) {
        const t = p.table && wb.sheetById(p.sheetId)?.tables?.find((x) => x.name.toLowerCase() === p.table!.name.toLowerCase());
        if (t) out.set(p.key, { sheetId: p.sheetId, ...t.rect });
      }
      return out;
    };
    /**
     * The cells of a placement's table beyond its report's cells that a step may change: the header row (typing just
     * beside a table stretches it, and Excel names the new column "Column<n>" — also when a co-author or the person
     * typed there during the step, and the refresh's resize then left that column outside the table) and the rows the
     * table gained or lost (the person's columns fill or go with them, as table rows do — docs/SYNC.md "Tables").
     */
    const tableSeams = (
      before: Map<string, Area>,
      after: Map<string, Area>,
      typed: readonly { sheetId: string; row: number; col: number }[],
    ): Area[] =>
      [...new Set([...before.keys(), ...after.keys()])].flatMap((k) => {
        const [b, a] = [before.get(k), after.get(k)];
        const seams = [b, a]
          .filter((r): r is Area => !!r)
          .flatMap((r) => [
            { ...r, rows: 1 },
            ...typed
              .filter((e) => e.sheetId === r.sheetId && e.col === r.col + r.cols && e.row > r.row && e.row <= r.row + r.rows)
              .map((e) => ({ ...r, col: e.col, rows: 1, cols: 1 })),
          ]);
        if (b && a && b.sheetId === a.sheetId) {
          const [lo, hi] = b.row + b.rows < a.row + a.rows ? [b, a] : [a, b];
          seams.push({ ...hi, row: lo.row + lo.rows, rows: hi.row + hi.rows - (lo.row + lo.rows) });
        }
        return seams;
      });
    const inside = (a: Area, sheetId: string, row: number, col: number) =>
      a.sheetId === sheetId && row >= a.row && row < a.row + a.rows && col >= a.col && col < a.col + a.cols;
    /**
     * What a person (or a co-author) typed during this step so far, counted before an operation's
     * answer is judged: a cell typed inside a placement while Cellbound waited on the network is an
     * edit by hand the refresh must report.
     */
    const noteEditsSoFar = async () => {
      const edits = [...pullCoauthor(), ...typedNow];
      markTouched(edits, seen);
      markTouched(edits, await areas());
    };
    const markTouched = (edits: readonly { sheetId: string; row: number; col: number }[], byKey: Map<string, Area[]>) => {
      for (const e of edits) for (const [key, list] of byKey) if (list.some((a) => inside(a, e.sheetId, e.row, e.col))) touched.add(key);
    };

    // ---- one step -------------------------------------------------------------------------------
    const runAction = async (name: string, fn: (signal: AbortSignal) => Promise<string>): Promise<void> => {
      const ac = new AbortController();
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        ac.abort(new Error("soak deadline"));
        platform.chaos.release();
      }, deadline);
      const started = performance.now();
      try {
        const outcome = await fn(ac.signal);
        outcomes[`${name}:${outcome}`] = (outcomes[`${name}:${outcome}`] ?? 0) + 1;
        stepTrace.push(`${name} answered ${outcome}`); // a violation of this step says what the action answered
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        stepTrace.push(`${name} failed: ${msg.slice(0, 200)}`);
        outcomes[`${name}:error`] = (outcomes[`${name}:error`] ?? 0) + 1;
        if (!msg.trim()) violate("says-why", `${name} failed without a message (${String(e)})`);
        const seen = (errors[name] ??= []);
        const gist = msg.replace(/\d+/g, "N").slice(0, 200);
        if (seen.length < 8 && !seen.some((m) => m.replace(/\d+/g, "N").slice(0, 200) === gist)) seen.push(msg.slice(0, 300));
        log(`    ${name} failed: ${msg.slice(0, 160)}`);
      } finally {
        clearTimeout(timer);
      }
      if (late)
        violate(
          "deadline",
          `${name} did not end within ${deadline / 1000} s (took ${((performance.now() - started) / 1000).toFixed(1)} s)`,
        );
    };

    const randomPlacement = async (d?: number): Promise<LocalPlacement | undefined> => {
      const ps = (await locals()).filter((p) => d === undefined || p.deploymentId === d);
      return ps.length ? pick(ps) : undefined;
    };

    const doOp = async (what: Op): Promise<void> => {
      const d = rnd() < 0.6 ? 1 : 2;
      const engine = engines.get(d)!;
      switch (what) {
        case "place": {
          const taken = new Set((await locals()).map((p) => `${p.sheetId}|${parseAddress(p.anchorCell).col}`));
          const free = sheets.flatMap((s) => SLOT_COLS.filter((c) => !taken.has(`${s}|${c}`)).map((c) => ({ sheetId: s, col: c })));
          if (!free.length) return;
          const slot = pick(free);
          const report = current(pick(reports.filter((r) => r.deploymentId === d)));
          if (!report) return;
          // The slot's row: below any rows inserted above the original anchors.
          const row = SLOT_ROW + (insertedAbove.get(slot.sheetId) ?? 0);
          await runAction("place", async (signal) => {
            const fresh = await engine.report(report.id, signal); // as the pane lists it now
            const target = { sheetId: slot.sheetId, row, col: slot.col };
            if (o.sabotage === "outside") await port.write({ sheetId: slot.sheetId, row: 0, col: 30 }, [[`stray ${step}`]]);
            if (o.sabotage === "denied") await port.write({ sheetId: shared, row: 3, col: 2 }, [[step]]);
            // A flat report is placed as an Excel table a third of the time (issue 33): the same invariants hold.
            const asTable = rnd() < 0.33 && !fresh.pivotItems?.columns?.length;
            const out = await engine.place(fresh, { at: target, signal, asTable });
            if (o.sabotage === "unrecorded" && out.kind === "placed")
              await port.write({ ...target, row: target.row + 1 }, [[`unrecorded ${step}`]]);
            // The user confirms overwriting what is there half of the time (left by an earlier placement).
            if (out.kind === "placed" && asTable) return "placedAsTable";
            if (out.kind !== "wouldOverwrite" || rnd() < 0.5) return out.kind;
            // The person chose to place over what is there: those cells are the report's now — also when the
            // confirmed place then fails after its write (a placement left to finish by a refresh).
            const asked = parseAddress(out.target.slice(out.target.lastIndexOf("!") + 1));
            confirmedAt.push({ sheetId: out.at.sheetId, row: asked.row, col: asked.col, rows: asked.rows, cols: asked.cols });
            const again = await engine.place(fresh, { at: out.at, confirmed: true, signal, asTable });
            if (again.kind === "placed") {
              const p = parseAddress(again.range);
              confirmedAt.push({ sheetId: out.at.sheetId, row: p.row, col: p.col, rows: p.rows, cols: p.cols });
            }
            return `wouldOverwrite→confirmed:${again.kind}`;
          });
          return;
        }
        case "refresh": {
          const p = await randomPlacement(d);
          if (!p) return;
          await runAction("refresh", async (signal) => {
            const out = await engine.refresh(p.key, "ask", { signal });
            if (out.kind !== "handEdited") {
              if (out.kind === "refreshed") touched.delete(p.key);
              return out.kind;
            }
            await noteEditsSoFar();
            if (!touched.has(p.key))
              violate(
                "falseEdit",
                `refresh of ${p.reportName} said "edited by hand" (rows ${out.edits.ranges.join(", ")}) with no person's edit`,
              );
            const choice = rnd() < 0.5 ? "overwrite" : "keep";
            const again = await engine.refresh(p.key, choice, { signal });
            // Keep my edits leaves the person's edits in place: the placement may still show as edited.
            if (again.kind === "refreshed" && choice === "overwrite") touched.delete(p.key);
            return `handEdited→${choice}:${again.kind}`;
          });
          return;
        }
        case "refreshAllStop": {
          await runAction("refreshAll", async (signal) => {
            const stop = new AbortController();
            signal.addEventListener("abort", () => stop.abort(signal.reason), { once: true });
            const after = Math.floor(rnd() * 400);
            const timer = setTimeout(() => stop.abort(), after);
            try {
              const progress = await engine.refreshAll({ signal: stop.signal });
              await noteEditsSoFar();
              for (const [key, item] of Object.entries(progress.items)) {
                if (item.state === "not-refreshed" && /Edited by hand/.test(item.reason) && !touched.has(key))
                  violate("falseEdit", `refresh all said "${item.reason}" with no person's edit`);
                if (item.state === "done" && item.detail !== "kept edits") touched.delete(key);
              }
              return stop.signal.aborted ? "stopped" : "finished";
            } finally {
              clearTimeout(timer);
            }
          });
          return;
        }
        case "check": {
          await runAction("check", async (signal) => {
            const r = await check(engine, { signal });
            await noteEditsSoFar();
            for (const pc of r.placements)
              if (pc.edit === "edited" && !touched.has(pc.key))
                violate(
                  "falseEdit",
                  `check says ${pc.reportName ?? pc.key} is edited by hand (rows ${JSON.stringify(pc.editedRows)}) with no person's edit`,
                );
            return r.platformProblem ? "platformProblem" : "ok";
          });
          return;
        }
        case "disconnect": {
          const p = await randomPlacement(d);
          if (!p) return;
          await runAction("disconnect", async (signal) => {
            await engine.disconnect(p.key, { clear: rnd() < 0.5, signal });
            touched.delete(p.key);
            return "done";
          });
          return;
        }
        case "edit": {
          const p = await randomPlacement();
          const byKey = await areas();
          if (!p) return;
          const a = byKey.get(p.key)![0]!;
          const besideIt = rnd() < 0.2;
          const row = a.row + Math.floor(rnd() * a.rows);
          const col = besideIt ? a.col + a.cols : a.col + Math.floor(rnd() * a.cols);
          const value = `edit ${++userEdits}`;
          wb.typeInto(a.sheetId, cellA1(row, col), value);
          markTouched([{ sheetId: a.sheetId, row, col }], byKey);
          outcomes[`edit:${besideIt ? "beside" : "inside"}`] = (outcomes[`edit:${besideIt ? "beside" : "inside"}`] ?? 0) + 1;
          return;
        }
        case "insertRows": {
          const s = pick(sheets);
          const n = 1 + Math.floor(rnd() * 2);
          wb.insertRows(s, 0, n);
          insertedAbove.set(s, (insertedAbove.get(s) ?? 0) + n);
          outcomes["insertRows:done"] = (outcomes["insertRows:done"] ?? 0) + 1;
          return;
        }
        case "insertRowsInside":
        case "deleteRowsInside": {
          // A sheet row through a placement, below its first row: every placement it cuts through is the person's edit.
          const p = await randomPlacement();
          const byKey = await areas();
          if (!p) return;
          const a = byKey.get(p.key)![0]!;
          if (a.rows < 3 || !wb.sheetById(a.sheetId)) return;
          const row = a.row + 1 + Math.floor(rnd() * (a.rows - 1));
          const cuts = (b: Area) => b.sheetId === a.sheetId && row >= b.row && row < b.row + b.rows;
          const deleting = what === "deleteRowsInside";
          for (const [key, list] of byKey) if (list.some((b) => cuts(b) && (deleting || row > b.row))) touched.add(key);
          if (deleting) wb.deleteRows(a.sheetId, row, 1);
          else wb.insertRows(a.sheetId, row, 1);
          outcomes[`${what}:done`] = (outcomes[`${what}:done`] ?? 0) + 1;
          return;
        }
        case "renameSheet": {
          const s = pick(sheets);
          wb.renameSheet(s, `${wb.sheetById(s)!.name.replace(/ \d+$/, "")} ${step}`);
          outcomes["renameSheet:done"] = (outcomes["renameSheet:done"] ?? 0) + 1;
          return;
        }
        case "changeReport": {
          const r = current(pick(reports.filter((x) => x.name !== "Soak d1 r0" && x.name !== "Soak d2 r0")));
          if (!r) return;
          await runAction("changeReport", async (signal) => {
            await me.updateReport(r.deploymentId, r.id, { jsonQuery: anyCustomers() }, signal);
            return "done";
          });
          return;
        }
      }
    };
    const insertedAbove = new Map<string, number>();
    /** Where a placement the person confirmed placing over landed during this step. */
    let confirmedAt: Area[] = [];
    /** The report of that name as the platform has it now (another writer may have deleted and re-created it). */
    const current = (r: Report): { id: number; deploymentId: number } | undefined =>
      platform.state.reports().find((x) => x.deploymentId === r.deploymentId && x.name === r.name);

    // ---- invariants after every step --------------------------------------------------------------
    const checkInvariants = async (
      before: Map<string, CellValue>,
      areasBefore: Map<string, Area[]>,
      coauthor: readonly CoauthorEdit[],
      wasCellbound: boolean,
      tablesBefore: Map<string, Area>,
    ) => {
      const areasAfter = await areas();
      markTouched(coauthor, areasBefore);
      markTouched(coauthor, areasAfter);
      // reportOnce
      const names = new Map<string, number>();
      for (const r of platform.state.reports())
        if (r.name.startsWith("Soak ")) names.set(`${r.deploymentId}|${r.name}`, (names.get(`${r.deploymentId}|${r.name}`) ?? 0) + 1);
      for (const [n, count] of names)
        if (count > 1) violate("reportOnce", `report "${n.split("|")[1]}" exists ${count} times in deployment ${n.split("|")[0]}`);
      // denied
      const denied = sheetCells(wb, shared);
      if (!sameCells(denied, deniedBefore))
        violate(
          "denied",
          `cells of the DENIED placement on "Shared" changed: ${diffCells(deniedBefore, denied).slice(0, 3).join("; ")}`,
          "denied",
        );
      // outside
      if (wasCellbound) {
        const after = allCells(wb, sheets);
        const allowed = [...areasBefore.values(), ...areasAfter.values()]
          .flat()
          .concat(tableSeams(tablesBefore, await tableRects(), coauthor));
        const coauthorAt = new Set(coauthor.map((e) => `${e.sheetId}|${e.row}|${e.col}`));
        for (const k of changedKeys(before, after)) {
          if (coauthorAt.has(k)) continue;
          const [sheetId, r, c] = k.split("|") as [string, string, string];
          if (!allowed.some((a) => inside(a, sheetId, Number(r), Number(c))))
            violate(
              "outside",
              `${wb.sheetById(sheetId)?.name}!${cellA1(Number(r), Number(c))} changed from ${JSON.stringify(before.get(k) ?? "")} to ${JSON.stringify(after.get(k) ?? "")} outside every placement`,
            );
        }
      }
      // checksum / falseEdit, per placement
      const recorded = new Map(
        platform.state
          .placements()
          .filter((p) => p.workbookId === identity.workbookId)
          .map((p) => [p.id, p]),
      );
      const tracked = await port.tracked();
      for (const p of await locals()) {
        const t = tracked.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
        // No name yet: a first placement interrupted before it was tracked; its record says where.
        const anchor = parseAddress(p.anchorCell);
        const at =
          t?.area ??
          (wb.sheetById(p.sheetId)
            ? { sheetId: p.sheetId, row: anchor.row, col: anchor.col, rows: p.shape.rows, cols: p.shape.cols }
            : null);
        if (!at) continue;
        const engine = engines.get(p.deploymentId)!;
        const union = {
          ...at,
          rows: Math.max(at.rows, p.shape.rows, p.pending?.shape.rows ?? 0),
          cols: Math.max(at.cols, p.shape.cols, p.pending?.shape.cols ?? 0),
        };
        const current = await readArea(port, union);
        const state = await engine.classifyCells(p, current);
        if (state.kind === "edited" && !touched.has(p.key))
          violate(
            "falseEdit",
            `${p.reportName} (${p.sheetName}!${p.anchorCell}) classifies as edited by hand (chunks ${state.editedChunks.join(",")}) with no person's edit${p.pending ? " — a write of it was interrupted" : ""} [record ${JSON.stringify({ shape: p.shape, committed: p.committed?.chunks.length ?? null, pending: p.pending && { shape: p.pending.shape, phase: p.pending.phase, inFlight: p.pending.inFlight, carried: p.pending.carried, chunks: p.pending.checksum.chunks.length } })}; tracked ${JSON.stringify(t?.area ?? null)}]`,
            `${p.key}|classify`,
          );
        const rec = p.placementId ? recorded.get(p.placementId) : undefined;
        if (rec && p.pending === null) {
          const cells = current.slice(0, p.shape.rows).map((row) => row.slice(0, p.shape.cols));
          const matches = sameGrid(await fingerprintGrid(cells), rec.resultChecksum as never);
          if (!matches && !touched.has(p.key))
            violate(
              "checksum",
              `${p.reportName} is recorded with a checksum its cells do not match, and no person edited it`,
              `${p.key}|${JSON.stringify(rec.resultChecksum)}`,
            );
          if (!matches && touched.has(p.key) && state.kind !== "edited")
            violate(
              "checksum",
              `${p.reportName}'s cells differ from the record after a person's edit, but it classifies as ${state.kind}, not edited`,
              `${p.key}|shows`,
            );
          if (p.committed && !sameGrid(p.committed, rec.resultChecksum as never))
            violate(
              "agree",
              `${p.reportName}: the workbook's committed fingerprint differs from the platform's record, with no write pending`,
              `${p.key}|${JSON.stringify(rec.resultChecksum)}`,
            );
        }
      }
      // store
      for (const problem of await platform.state.verify()) violate("store", problem);
    };

    // ---- the run ----------------------------------------------------------------------------------
    const total = OPS.reduce((n, [, w]) => n + w, 0);
    while (performance.now() - t0 < o.durationMs && (o.maxSteps === undefined || step < o.maxSteps)) {
      step++;
      let r = rnd() * total;
      op = OPS.find(([, w]) => (r -= w) < 0)?.[0] ?? "check";
      operations[op] = (operations[op] ?? 0) + 1;
      const cellbound = CELLBOUND_OPS.has(op);
      const before = cellbound ? allCells(wb, sheets) : new Map<string, CellValue>();
      const areasBefore = await areas();
      const tablesBefore = await tableRects();
      coauthorNow = [];
      coauthorPulled = faults.edits().length;
      coauthorFrom = coauthorPulled;
      stepTrace = [];
      seen = new Map([...areasBefore].map(([k, l]) => [k, l.map((a) => ({ ...a }))]));
      typedOutside = [];
      typedNow = [];
      shiftedNow = [];
      confirmedAt = [];
      acting = op === "place" || op === "refresh" || op === "refreshAllStop";
      try {
        await doOp(op);
      } finally {
        acting = false;
      }
      const coauthor = [...pullCoauthor(), ...typedNow.map((t) => ({ ...t, value: "", inside: true }))];
      // Rows the person inserted meanwhile moved every cell below them: compare with the cells where they are now.
      const beforeNow = shiftedNow.length ? shiftKeys(before, shiftedNow) : before;
      coauthorSeen += coauthor.length;
      await new Promise((res) => setTimeout(res, 0)); // let workbook events arrive
      const shift = (a: Area) => ({ ...a, row: a.row + shiftedNow.filter((id) => id === a.sheetId).length });
      const areasNow = new Map([...areasBefore].map(([k, l]) => [k, l.map(shift)]));
      await checkInvariants(beforeNow, areasNow, coauthor, cellbound, new Map([...tablesBefore].map(([k, a]) => [k, shift(a)])));
      // clobber: what the person typed outside every placement while Cellbound waited is still there.
      for (const t of typedOutside) {
        const now = wb.sheetById(t.sheetId) ? wb.readCell(wb.sheetById(t.sheetId)!, t.row, t.col) : t.value;
        if (now === t.value || confirmedAt.some((a) => inside(a, t.sheetId, t.row, t.col))) continue;
        violate(
          "clobber",
          `${wb.sheetById(t.sheetId)?.name}!${cellA1(t.row, t.col)}, typed as ${JSON.stringify(t.value)} while Cellbound waited on the network, now holds ${JSON.stringify(now)}`,
        );
      }
      if (step % 25 === 0)
        log(
          `step ${step}: ${violations.length} violation(s); ${(await locals()).length} placements; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
        );
    }

    // ---- final phase: faults off, a check per deployment, then everything must agree ------------
    op = "final";
    platform.chaos.off();
    faults.off();
    // As a user would: check, refresh every placement (an interrupted write is finished then), check.
    for (const engine of engines.values())
      await runAction("finalCheck", async (signal) => ((await check(engine, { signal })).platformProblem ? "platformProblem" : "ok"));
    /** How each placement's final refresh ended (the agreement below accepts what the pane would explain). */
    const finalOutcome = new Map<string, string>();
    for (const p of await locals()) {
      await runAction("finalRefresh", async (signal) => {
        const engine = engines.get(p.deploymentId)!;
        let out = await engine.refresh(p.key, "ask", { signal });
        if (out.kind === "handEdited" && !touched.has(p.key))
          violate(
            "falseEdit",
            `final refresh of ${p.reportName} said "edited by hand" (rows ${out.edits.ranges.join(", ")}) with no person's edit`,
            `${p.key}|classify`,
          );
        // Asked about a person's edits, the person keeps them (the rest is written and the placement recorded).
        if (out.kind === "handEdited") out = await engine.refresh(p.key, "keep", { signal });
        finalOutcome.set(p.key, out.kind === "cannotGrow" ? `cannotGrow (${out.reason})` : out.kind);
        return out.kind;
      });
    }
    for (const engine of engines.values())
      await runAction("finalCheck", async (signal) => ((await check(engine, { signal })).platformProblem ? "platformProblem" : "ok"));
    await checkInvariants(new Map(), await areas(), [], false, new Map());
    const ours = platform.state.placements().filter((p) => p.workbookId === identity.workbookId && p.reportId !== privateReport.id);
    const byId = new Map((await locals()).filter((p) => p.placementId).map((p) => [p.placementId!, p]));
    for (const p of ours)
      if (!byId.has(p.id))
        violate("agree", `the platform records placement ${p.id} (${p.sheetName}!${p.anchorCell}) that the workbook does not track`);
    const alive = new Set(platform.state.reports().map((r) => r.id));
    for (const p of await locals()) {
      if (!alive.has(p.reportId)) continue; // another writer deleted its report (an upsert race): the pane says so
      // A first placement interrupted before it was recorded, whose result no longer fits (another placement
      // took the rows below what it had written): the refresh says what is in the way; it stays unrecorded.
      if (!p.placementId && finalOutcome.get(p.key)?.startsWith("cannotGrow")) continue;
      if (!p.placementId)
        violate(
          "agree",
          `${p.reportName} at ${p.sheetName}!${p.anchorCell} was never recorded with the platform, even after a check (final refresh: ${finalOutcome.get(p.key) ?? "failed"})`,
        );
      else if (!ours.some((x) => x.id === p.placementId))
        violate("agree", `${p.reportName}: the workbook tracks placement ${p.placementId}, the platform has no such placement`);
    }

    const violationCounts: Record<string, number> = {};
    for (const v of violations) violationCounts[v.invariant] = (violationCounts[v.invariant] ?? 0) + 1;
    return {
      seed: o.seed,
      steps: step,
      durationMs: Math.round(performance.now() - t0),
      operations,
      outcomes,
      errors,
      faults: { platform: platform.chaos.counts(), excel: faults.counts(), coauthorEdits: coauthorSeen, person: midOps },
      violations,
      violationCounts,
      config: {
        actionDeadlineMs: deadline,
        platformRates: o.platformRates ?? SOAK_PLATFORM_RATES,
        excelRates: o.excelRates ?? SOAK_EXCEL_RATES,
      },
    };
  } finally {
    platform.chaos.off();
    await platform.close();
  }
}

// ---------------------------------------------------------------- cells

type CellValue = string | number | boolean;

function sheetCells(wb: DevWorkbook, sheetId: string): Map<string, CellValue> {
  const out = new Map<string, CellValue>();
  const sheet = wb.sheetById(sheetId);
  if (!sheet) return out;
  sheet.rows.forEach((row, r) =>
    row?.forEach((_, c) => {
      const v = wb.readCell(sheet, r, c);
      if (v !== "") out.set(`${sheetId}|${r}|${c}`, v);
    }),
  );
  return out;
}
function allCells(wb: DevWorkbook, sheetIds: readonly string[]): Map<string, CellValue> {
  const out = new Map<string, CellValue>();
  for (const s of sheetIds) for (const [k, v] of sheetCells(wb, s)) out.set(k, v);
  return out;
}
function changedKeys(a: Map<string, CellValue>, b: Map<string, CellValue>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v) out.push(k);
  for (const k of b.keys()) if (!a.has(k)) out.push(k);
  return out;
}
/** The cells' keys after one row was inserted at the top of each sheet listed (a sheet listed twice: two rows). */
function shiftKeys(cells: Map<string, CellValue>, sheetIds: readonly string[]): Map<string, CellValue> {
  const by = new Map<string, number>();
  for (const id of sheetIds) by.set(id, (by.get(id) ?? 0) + 1);
  const out = new Map<string, CellValue>();
  for (const [k, v] of cells) {
    const [sheetId, r, c] = k.split("|") as [string, string, string];
    out.set(`${sheetId}|${Number(r) + (by.get(sheetId) ?? 0)}|${c}`, v);
  }
  return out;
}
function sameCells(a: Map<string, CellValue>, b: Map<string, CellValue>): boolean {
  return changedKeys(a, b).length === 0;
}
function diffCells(a: Map<string, CellValue>, b: Map<string, CellValue>): string[] {
  return changedKeys(a, b).map((k) => `${k}: ${JSON.stringify(a.get(k) ?? "")} → ${JSON.stringify(b.get(k) ?? "")}`);
}
