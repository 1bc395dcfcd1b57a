// Issue 33 on the command line: `place --as-table` reaches the engine's place options as asTable, only
// `place` takes it, and `status` names the Excel table of a placement whose record has one. (A whole
// `place --as-table` over an .xlsx belongs with the engine's and the xlsx port's table work.)
import { parseCommand, USAGE, UsageError } from "../../src/cli/args.ts";
import { placeOptions } from "../../src/cli/commands.ts";
import { statusText, type StatusLine } from "../../src/cli/run.ts";
import { loadPlacements, savePlacements } from "../../src/sync/state.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { startCliEnv, type CliEnv } from "./support.ts";

const at = { sheetId: "s1", row: 1, col: 1 };

describe("cellbound place --as-table (issue 33): parsing", () => {
  it("issue 33: --as-table reaches the engine's place options as asTable: true; without it, no asTable", () => {
    const signal = new AbortController().signal;
    const cmd = parseCommand(["place", "t.xlsx", "--report", "12", "--at", "Report!B2", "--as-table"]);
    expect(cmd).toMatchObject({ kind: "place", report: "12", at: "Report!B2", asTable: true });
    if (cmd.kind !== "place") throw new Error("not place");
    expect(placeOptions(cmd, at, signal)).toEqual({ at, asTable: true, signal });
    const withInput = parseCommand([
      "place",
      "t.xlsx",
      "--report",
      "12",
      "--at",
      "A1",
      "--input",
      "customers.country=Inputs!B1",
      "--as-table",
    ]);
    if (withInput.kind !== "place") throw new Error("not place");
    expect(placeOptions(withInput, at, signal)).toEqual({
      at,
      inputs: [{ member: "customers.country", ref: "Inputs!B1" }],
      asTable: true,
      signal,
    });
    const plain = parseCommand(["place", "t.xlsx", "--report", "12", "--at", "A1"]);
    if (plain.kind !== "place") throw new Error("not place");
    expect(plain.asTable).toBe(false);
    expect(placeOptions(plain, at, signal)).not.toHaveProperty("asTable");
  });

  it("issue 33: only place takes --as-table, and the help says what it does", () => {
    for (const verb of [
      ["refresh", "t.xlsx"],
      ["status", "t.xlsx"],
    ]) {
      const run = () => parseCommand([...verb, "--as-table"]);
      expect(run).toThrow(UsageError);
      expect(run).toThrow(`${verb[0]} does not take --as-table`);
    }
    expect(USAGE).toContain("[--as-table]");
    expect(USAGE).toContain("place --as-table places a flat report as an Excel table");
  });
});

describe("cellbound status names a placement's table (issue 33)", () => {
  let env: CliEnv;
  const tmp = tempDir("cb-cli-table-");
  beforeAll(async () => {
    env = await startCliEnv();
  });
  afterAll(async () => {
    await env.close();
    tmp.remove();
  });

  const line = (o: Partial<StatusLine>): StatusLine => ({
    range: "Report!A1:C10",
    reportId: 12,
    reportName: "Sales by region",
    deploymentId: 1,
    deploymentName: "Production",
    status: "up to date",
    lines: [],
    refreshedAt: null,
    owner: null,
    inputs: [],
    inputsChanged: false,
    table: null,
    ...o,
  });

  it("issue 33: the status line says “table <name>” under a table placement, nothing under a range", () => {
    const text = statusText({
      file: "Sales.xlsx",
      placements: [line({ table: "Sales_by_region" }), line({ range: "Report!E1:F4", reportName: "Orders" })],
    });
    expect(text).toBe(
      "Sales.xlsx\n" +
        "  Report!A1:C10  Sales by region (#12), deployment Production: up to date\n" +
        "      table Sales_by_region\n" +
        "  Report!E1:F4  Orders (#12), deployment Production: up to date\n",
    );
  });

  it("issue 33: status reads the table from the placement's record in the file (text and --json)", async () => {
    const report = await env.createReport({
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], limit: 5 }),
    });
    const file = tmp.file("table.xlsx");
    const placed = await env.cli(["place", file, "--report", String(report.id), "--at", "Report!A1"]);
    expect(placed.code, placed.stderr).toBe(0);
    const before = await env.cli(["status", file]);
    expect(before.stdout).not.toContain("table ");
    // The record as the engine keeps a table placement (src/sync/state.ts LocalPlacement.table).
    const port = XlsxPort.open(file);
    const records = await loadPlacements(port);
    expect(records).toHaveLength(1);
    await savePlacements(port, [{ ...records[0]!, table: { name: "Orders_by_status", columns: ["orders.status", "orders.count"] } }]);
    port.save();
    const status = await env.cli(["status", file]);
    expect(status.stdout).toMatch(/Report!A1:B\d+ {2}.*\n {6}table Orders_by_status\n/);
    const json = await env.cli(["status", file, "--json"]);
    expect((json.json().files[0]!.placements[0] as unknown as { table: string | null }).table).toBe("Orders_by_status");
  });
});
