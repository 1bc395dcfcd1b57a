// Test support for the sync scenarios: a platform stand-in started in-process, API clients for
// a persona, and a workbook behind a SheetPort with a "user side" (edits, row inserts, renames,
// deletes, copies). Workbooks come from a WorkbookKind so the same scenarios run on the plain
// in-memory port and on the Office.js adapter over dev/excel.
import { afterAll, beforeAll } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server.ts";
import {
  createDataClient,
  createDeploymentTokenManager,
  createPlatformClient,
  type DataClient,
  type PlatformClient,
  type Report,
  type ReportInput,
} from "../../src/api/index.ts";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { cellA1 } from "../../src/host/a1.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";
import { createDevExcel, type DevWorkbook } from "../../dev/excel/index.ts";
import { allTables, createTable, refilterTable, sortTable as sortDevTable } from "../../dev/excel/tables-model.ts";
import type { SheetPort, SheetValue } from "../../src/host/port.ts";
import { SyncEngine } from "../../src/sync/index.ts";
import type { SyncContext } from "../../src/sync/context.ts";
import type { LocalPlacement } from "../../src/sync/state.ts";

export interface UserSide {
  edit(sheetId: string, row: number, col: number, value: SheetValue): void;
  insertRows(sheetId: string, at: number, count: number): void;
  deleteRows(sheetId: string, at: number, count: number): void;
  insertColumns(sheetId: string, at: number, count: number): void;
  deleteColumns(sheetId: string, at: number, count: number): void;
  renameSheet(sheetId: string, name: string): void;
  deleteSheet(sheetId: string): void;
  addSheet(name: string): string;
  /** Formulas › Define Name: a workbook-scoped name for an area (issue 32). */
  defineName(name: string, sheetId: string, row: number, col: number, rows: number, cols: number): void;
  cell(sheetId: string, row: number, col: number): SheetValue;
  /** Every non-empty cell of the sheet, by `row|col` (zero-based). */
  cells(sheetId: string): Map<string, SheetValue>;
  sheetName(sheetId: string): string;
  firstSheetId(): string;
  /** Save as a copy under another URL: a new workbook with the same content and stored id. */
  saveAsCopy(url: string): TestWorkbook;
  /**
   * Issue 33: the person types a header and a formula into the column just right of a table: it joins the table and
   * the formula fills its rows (a calculated column). The memory port keeps the formula and computes nothing.
   */
  formulaColumn(table: string, header: string, formula: string): void;
  /** Issue 33: the person sorts a table by one of its columns (Data › Sort). */
  sortTable(table: string, column: number, ascending: boolean): void;
  /** Issue 33: the person filters a table by one column's values (its filter buttons); rows without them are hidden. */
  filterTable(table: string, column: number, values: string[]): void;
  /** Rows of the sheet the table's filter hides (the memory port hides none: it keeps only that the table is filtered). */
  hiddenRows(sheetId: string): number[];
  /** Issue 33: the person converts a table to a range (Table Design › Convert to Range): the cells stay. */
  dropTable(table: string): void;
  /** Issue 33: the person makes a table of their own over an area whose first row holds its headers. */
  addTable(name: string, sheetId: string, row: number, col: number, rows: number, cols: number): void;
}

export interface TestWorkbook {
  port: SheetPort;
  user: UserSide;
}

export type WorkbookKind = (url: string) => TestWorkbook;

export const memoryWorkbook: WorkbookKind = (url) => wrapMemory(new MemoryWorkbook(url, "Sales.xlsx"));

function wrapMemory(wb: MemoryWorkbook): TestWorkbook {
  const port = new MemoryPort(wb);
  return {
    port,
    user: {
      edit: (s, r, c, v) => wb.userEdit(s, r, c, v),
      insertRows: (s, at, n) => wb.insertRows(s, at, n),
      deleteRows: (s, at, n) => wb.deleteRows(s, at, n),
      insertColumns: (s, at, n) => wb.insertColumns(s, at, n),
      deleteColumns: (s, at, n) => wb.deleteColumns(s, at, n),
      renameSheet: (s, n) => wb.renameSheet(s, n),
      deleteSheet: (s) => wb.deleteSheet(s),
      addSheet: (n) => wb.addSheet(n).id,
      defineName: (n, sheetId, row, col, rows, cols) => wb.defineName(n, { sheetId, row, col, rows, cols }),
      cell: (s, r, c) => wb.cell(s, r, c).value,
      cells: (s) => {
        const out = new Map<string, SheetValue>();
        for (const [r, row] of wb.sheet(s).cells) for (const [c, cell] of row) if (cell.v !== "") out.set(`${r}|${c}`, cell.v);
        return out;
      },
      sheetName: (s) => wb.sheet(s).name,
      firstSheetId: () => wb.sheets[0]!.id,
      saveAsCopy: (url) => wrapMemory(wb.saveAsCopy(url)),
      formulaColumn: (name, header, formula) => {
        const { sheet, table } = wb.table(name);
        const t = wb.tableSheet(sheet.id);
        t.setValue(table.row, table.col + table.cols, header);
        table.cols += 1;
        table.formulas.push(formula);
      },
      sortTable: (name, column, ascending) => wb.sortTable(name, column, ascending),
      filterTable: (name) => wb.filterTable(name),
      hiddenRows: () => [],
      addTable: (name, sheetId, row, col, rows, cols) => wb.addTable({ sheetId, row, col, rows, cols }, name),
      dropTable: (name) => {
        const { sheet, table } = wb.table(name);
        sheet.tables!.splice(sheet.tables!.indexOf(table), 1);
      },
    },
  };
}

/** The Office.js adapter (src/host/excel) running unchanged on dev/excel. */
export const devExcelWorkbook: WorkbookKind = (url) => wrapDevExcel(createDevExcelWorkbook(url));

function createDevExcelWorkbook(url: string): DevWorkbook {
  return createDevExcel({ platform: "OfficeOnline" }).workbook.saveAsCopy(url);
}

export function wrapDevExcel(workbook: DevWorkbook): TestWorkbook & { workbook: DevWorkbook } {
  const dx = createDevExcel({ workbook, platform: "OfficeOnline" });
  const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
  return {
    port,
    workbook,
    user: {
      edit: (s, r, c, v) => workbook.typeInto(s, cellA1(r, c), String(v)),
      insertRows: (s, at, n) => workbook.insertRows(s, at, n),
      deleteRows: (s, at, n) => workbook.deleteRows(s, at, n),
      insertColumns: (s, at, n) => workbook.insertColumns(s, at, n),
      deleteColumns: (s, at, n) => workbook.deleteColumns(s, at, n),
      renameSheet: (s, n) => workbook.renameSheet(s, n),
      deleteSheet: (s) => workbook.deleteSheet(s),
      addSheet: (n) => workbook.addSheet(n).id,
      // The person's name, as Define Name makes it (dev/excel keeps names in the workbook model).
      defineName: (n, sheetId, row, col, rows, cols) =>
        void workbook.names.push({ name: n, visible: true, comment: "", ref: { sheetId, row, col, rows, cols } }),
      cell: (s, r, c) => workbook.readCell(workbook.requireSheet(s), r, c),
      cells: (s) => {
        const out = new Map<string, SheetValue>();
        const sheet = workbook.requireSheet(s);
        sheet.rows.forEach((row, r) =>
          row?.forEach((_, c) => {
            const v = workbook.readCell(sheet, r, c);
            if (v !== "") out.set(`${r}|${c}`, v);
          }),
        );
        return out;
      },
      sheetName: (s) => workbook.requireSheet(s).name,
      firstSheetId: () => workbook.sheets[0]!.id,
      saveAsCopy: (u) => wrapDevExcel(workbook.saveAsCopy(u)),
      formulaColumn: (name, header, formula) => {
        const { sheet, table } = devTable(workbook, name);
        const col = table.rect.col + table.rect.cols;
        workbook.typeInto(sheet.id, cellA1(table.rect.row, col), header);
        workbook.typeInto(sheet.id, cellA1(table.rect.row + 1, col), formula);
      },
      sortTable: (name, column, ascending) => {
        const { sheet, table } = devTable(workbook, name);
        table.sort = { fields: [{ key: column, ascending }], matchCase: false };
        sortDevTable(workbook, sheet, table);
      },
      filterTable: (name, column, values) => {
        const { sheet, table } = devTable(workbook, name);
        table.filter = { criteria: [{ col: column, values }], hidden: [] };
        refilterTable(workbook, sheet, table);
      },
      hiddenRows: (s) => (workbook.requireSheet(s).tables ?? []).flatMap((t) => t.filter?.hidden ?? []),
      dropTable: (name) => {
        const { sheet, table } = devTable(workbook, name);
        sheet.tables!.splice(sheet.tables!.indexOf(table), 1);
      },
      addTable: (name, sheetId, row, col, rows, cols) => {
        const sheet = workbook.requireSheet(sheetId);
        const t = createTable(workbook, sheet, { row, col, rows, cols }, true);
        t.name = name;
      },
    },
  };
}

function devTable(workbook: DevWorkbook, name: string) {
  const hit = allTables(workbook).find((x) => x.table.name.toLowerCase() === name.toLowerCase());
  if (!hit) throw new Error(`no table ${name} in the workbook`);
  return hit;
}

export type Persona = "admin" | "analyst" | "viewer" | "outsider";

export interface Env {
  platform: RunningPlatform;
  deploymentId: number;
  client(persona?: "admin" | "analyst" | "viewer" | "outsider"): PlatformClient;
  engine(wb: TestWorkbook, persona?: Persona, overrides?: Partial<SyncContext>): SyncEngine;
  dataClient(persona?: Persona): DataClient;
  createReport(input: ReportInput, persona?: "admin" | "analyst" | "outsider"): Promise<Report>;
  close(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const platform = await startPlatform({ log: () => {} });
  const deploymentId = platform.info.deployments[0]!.id;
  const client = (persona: "admin" | "analyst" | "viewer" | "outsider" = "analyst") =>
    createPlatformClient({
      baseUrl: platform.info.baseUrl,
      credential: platform.info.apiKeys[persona],
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
  let n = 0;
  const dataClient = (persona: Persona = "analyst") =>
    createDataClient({ dataUrl: platform.info.dataUrl, token: createDeploymentTokenManager({ client: client(persona), deploymentId }) });
  return {
    platform,
    deploymentId,
    client,
    engine(wb, persona = "analyst", overrides = {}) {
      return new SyncEngine({ port: wb.port, platform: client(persona), data: dataClient(persona), deploymentId, ...overrides });
    },
    dataClient,
    async createReport(input, persona = "analyst") {
      n++;
      return client(persona).createReport(deploymentId, { name: `Report ${n}`, title: `Report ${n}`, ...input });
    },
    close: () => platform.close(),
  };
}

/** The stand-in for the enclosing describe: started before its tests, stopped after; call the result for it. */
export function useEnv(): () => Env {
  let env: Env | undefined;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });
  return () => {
    if (!env) throw new Error("the platform stand-in did not start (see beforeAll)");
    return env;
  };
}

/** A local placement record with only a key of its own (state and co-author tests). */
export function placementRecord(key: string, anchorCell = "A1"): LocalPlacement {
  return {
    key,
    name: `p_${key}`,
    deploymentId: 1,
    reportId: 1,
    publicId: "r1",
    reportName: null,
    placementId: null,
    sheetId: "s",
    sheetName: "Sheet1",
    anchorCell,
    shape: { rows: 1, cols: 1 },
    committed: null,
    pending: null,
    editsKept: false,
  };
}

/** A small flat report: order counts by status (a handful of rows). */
export const byStatus = (limit = 5): ReportInput => ({
  jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit }),
});

/** A longer flat report: one row per customer (for edits across chunks of CHUNK_ROWS rows). */
export const byCustomer = (limit: number): ReportInput => ({
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.id", "customers.name"],
    order: [["customers.id", "asc"]],
    limit,
  }),
});

export async function externalPlacements(client: PlatformClient, workbookId: string) {
  const out = [];
  for await (const p of client.iterateExternalPlacements(workbookId)) out.push(p);
  return out;
}

/** The cell at (row, col) of the workbook's first sheet, as a place target. */
export const at = (wb: TestWorkbook, row: number, col: number) => ({ sheetId: wb.user.firstSheetId(), row, col });

/** Place a report at `where`; anything but "placed" fails the test with the outcome. */
export async function placed(
  engine: SyncEngine,
  report: Parameters<SyncEngine["place"]>[0],
  where: { sheetId: string; row: number; col: number },
) {
  const out = await engine.place(report, { at: where });
  if (out.kind !== "placed") throw new Error(`expected placed, got ${JSON.stringify(out)}`);
  return out;
}

/**
 * A port whose n-th cell write or clear fails (the pane closed, Excel failed mid-write): the commands
 * before it in its commit land, as after a failing sync; with `halfWrite`, half of that write's rows too.
 */
export function flakyPort(port: SheetPort, o: { failWrite?: number; halfWrite?: boolean; failClear?: number }): SheetPort {
  let writes = 0,
    clears = 0;
  const flaky = Object.create(port) as SheetPort;
  flaky.commit = async (commands, options) => {
    for (let i = 0; i < commands.length; i++) {
      const c = commands[i]!;
      const failing = (c.kind === "write" && ++writes === o.failWrite) || (c.kind === "clear" && ++clears === o.failClear);
      if (!failing) continue;
      const landed = commands.slice(0, i);
      if (c.kind === "write" && o.halfWrite && c.grid.length > 1)
        landed.push({ ...c, grid: c.grid.slice(0, Math.floor(c.grid.length / 2)) });
      await port.commit(landed, options);
      throw new Error("pane closed");
    }
    return port.commit(commands, options);
  };
  return flaky;
}
