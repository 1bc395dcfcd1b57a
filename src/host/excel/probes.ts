// Excel probes: checks of Excel ITSELF (not of Cellbound's port) that pin what dev/excel assumes about
// real Excel's sharp edges (issue 22; docs/EXCEL-FIDELITY.md, "Sharp edges"). The Diagnostics view runs
// them after the port contract, on scratch sheets, so the first person who runs it in Excel learns in
// one click where dev/excel is wrong: a failing probe names what dev/excel models and what this Excel did.
// In vitest they run on dev/excel (test/host/excel-probes.test.ts), where they must all pass.

import { CheckSkipped, type CheckContext, type ContractCheck } from "../contract/checks.ts";
import type { SheetRef } from "../port.ts";
import { nameFormula } from "./replace.ts";
import { queueDateSystem } from "./date-system.ts";
import { textWidthPoints } from "../column-width.ts";
import { TABLE_PROBES } from "./table-probes.ts";

import type { ProbeUserSide } from "./probe-user.ts";

export type { ProbeUserSide } from "./probe-user.ts";

export const PROBE_PREFIX = "Excel: ";

function differs(what: string, modelled: string, seen: unknown): Error {
  return new Error(`${what}: dev/excel models ${modelled}; this Excel gave ${JSON.stringify(seen)}`);
}

type Probe = (X: typeof Excel, sheet: SheetRef, user: ProbeUserSide) => Promise<void>;

async function numberIntoTextCell(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const r = ctx.workbook.worksheets.getItem(sheet.id).getRange("A1:B1");
    r.numberFormat = [["@", "@"]];
    r.values = [[42.5, true]];
    r.load("values,valueTypes");
    await ctx.sync();
    return { values: r.values, valueTypes: r.valueTypes };
  });
  if (JSON.stringify(seen) !== JSON.stringify({ values: [["42.5", "TRUE"]], valueTypes: [["String", "String"]] }))
    throw differs("number into a text cell", 'the text "42.5" / "TRUE" (valueTypes String)', seen);
}

async function delayWithoutCellEdit(X: typeof Excel, sheet: SheetRef): Promise<void> {
  await X.run({ delayForCellEdit: true }, async (ctx) => {
    ctx.workbook.worksheets.getItem(sheet.id).getRange("A1").values = [[1]];
    await ctx.sync();
  });
}

async function cellEditMode(X: typeof Excel, sheet: SheetRef, user: ProbeUserSide): Promise<void> {
  const edit = user.cellEdit;
  if (!edit)
    throw new CheckSkipped(
      "needs a person: code cannot put Excel in cell-edit mode. To check by hand, run a Refresh all while typing in a cell (do not press Enter): it must wait, not fail.",
    );
  const write = (delay: boolean) =>
    X.run({ delayForCellEdit: delay }, async (ctx) => {
      ctx.workbook.worksheets.getItem(sheet.id).getRange("A1").values = [[delay ? 2 : 1]];
      await ctx.sync();
    });
  edit.enter();
  let code: unknown = "no error";
  try {
    await write(false);
  } catch (e) {
    code = (e as { code?: unknown }).code;
  }
  let waited = true;
  const delayed = write(true).then(() => void (waited = false));
  await new Promise((r) => setTimeout(r, 50));
  const stillWaiting = waited;
  edit.leave();
  await delayed;
  if (code !== "InvalidOperationInCellEditMode") throw differs("a batch in cell-edit mode", "InvalidOperationInCellEditMode", code);
  if (!stillWaiting) throw differs("a delayed batch in cell-edit mode", "waiting until the cell is left", "ran at once");
}

async function syncNotAtomic(X: typeof Excel, sheet: SheetRef): Promise<void> {
  let code: unknown = "no error";
  try {
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem(sheet.id);
      ws.getRange("A1").values = [[1]];
      ctx.workbook.names.add("A1", ws.getRange("A1")); // not a valid name: fails at sync
      ws.getRange("A2").values = [[2]];
      await ctx.sync();
    });
  } catch (e) {
    code = (e as { code?: unknown }).code;
  }
  const seen = await X.run(async (ctx) => {
    const r = ctx.workbook.worksheets.getItem(sheet.id).getRange("A1:A2").load("values");
    await ctx.sync();
    return r.values;
  });
  if (code !== "InvalidArgument") throw differs("adding the name A1", "InvalidArgument", code);
  if (JSON.stringify(seen) !== JSON.stringify([[1], [""]])) throw differs("cells around the failing command", '[[1],[""]]', seen);
}

async function nameRepointed(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const name = `CbProbe_${Date.now() % 100000}`;
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id).load("name");
    const item = ctx.workbook.names.add(name, ws.getRange("B2"));
    item.visible = false;
    await ctx.sync();
    item.formula = nameFormula(ws.name, { row: 1, col: 1, rows: 3, cols: 2 });
    const r = item.getRange().load("address");
    await ctx.sync();
    const address = r.address;
    item.delete();
    const gone = ctx.workbook.names.getItemOrNullObject(name).load("name");
    await ctx.sync();
    return { address: address.split("!")[1], deleted: gone.isNullObject };
  });
  if (seen.address !== "B2:C4" || !seen.deleted) throw differs("re-pointing and deleting a name", "B2:C4, then gone", seen);
}

async function mergedTarget(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.getRange("B2:C2").merge(false);
    const areas = ws.getRange("A1:D4").getMergedAreasOrNullObject().load("address");
    await ctx.sync();
    const address = areas.isNullObject ? null : areas.address.split("!").pop();
    let partCode: unknown = "no error";
    ws.getRange("C2").values = [[1]];
    await ctx.sync().catch((e: unknown) => void (partCode = (e as { code?: unknown }).code));
    let wholeCode: unknown = "no error";
    ws.getRange("B2:C2").values = [[1, 2]];
    await ctx.sync().catch((e: unknown) => void (wholeCode = (e as { code?: unknown }).code));
    const r = ws.getRange("B2:C2").load("values");
    await ctx.sync();
    return { address, partCode, wholeCode, values: r.values };
  });
  const modelled = { address: "B2:C2", partCode: "InvalidOperation", wholeCode: "no error", values: [[1, ""]] };
  if (JSON.stringify(seen) !== JSON.stringify(modelled)) throw differs("a merged target", JSON.stringify(modelled), seen);
}

async function protectedSheet(X: typeof Excel, sheet: SheetRef): Promise<void> {
  let code: unknown = "no error";
  await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.protection.protect();
    await ctx.sync();
    ws.getRange("A1").values = [[1]];
    await ctx.sync().catch((e: unknown) => void (code = (e as { code?: unknown }).code));
    ws.protection.unprotect();
    await ctx.sync();
  });
  if (code !== "AccessDenied") throw differs("writing on a protected sheet", "AccessDenied", code);
}

async function spilledFormula(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.getRange("B2").formulas = [["=SEQUENCE(3)"]];
    await ctx.sync();
    const spill = ws.getRange("B2:B4").load("hasSpill");
    const beside = ws.getRange("C2:C4").load("hasSpill");
    const parent = ws.getRange("B4").getSpillParentOrNullObject().load("address");
    const ofAnchor = ws.getRange("B2").getSpillParentOrNullObject().load("address");
    await ctx.sync();
    const found = {
      hasSpill: [spill.hasSpill, beside.hasSpill],
      parent: parent.isNullObject ? null : parent.address.split("!").pop(),
      ofAnchor: ofAnchor.isNullObject ? null : ofAnchor.address.split("!").pop(),
    };
    ws.getRange("B3").values = [["written"]];
    const after = ws.getRange("B2:B3").load("values");
    await ctx.sync();
    return { ...found, after: after.values };
  });
  const modelled = { hasSpill: [true, false], parent: "B2", ofAnchor: "B2", after: [["#SPILL!"], ["written"]] };
  if (JSON.stringify(seen) !== JSON.stringify(modelled)) throw differs("a spilled formula", JSON.stringify(modelled), seen);
}

async function hiddenAndFilteredRows(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.getRange("A1:A4").values = [["status"], ["paid"], ["open"], ["paid"]];
    ws.autoFilter.apply(ws.getRange("A1:B4"), 0, { filterOn: "Values", values: ["paid"] });
    ws.getRange("A6").rowHidden = true;
    await ctx.sync();
    ws.getRange("B3").values = [["written"]];
    ws.getRange("A6").values = [["written"]];
    const f = ws.autoFilter.load("enabled,isDataFiltered");
    const range = ws.autoFilter.getRangeOrNullObject().load("address");
    const filtered = ws.getRange("A3").load("rowHidden");
    const hidden = ws.getRange("A5:A6").load("rowHidden");
    const values = ws.getRange("B3").load("values");
    const byHand = ws.getRange("A6").load("values");
    await ctx.sync();
    const out = {
      enabled: f.enabled,
      isDataFiltered: f.isDataFiltered,
      range: range.isNullObject ? null : range.address.split("!").pop(),
      rowHidden: [filtered.rowHidden, hidden.rowHidden],
      written: [values.values[0]![0], byHand.values[0]![0]],
    };
    ws.autoFilter.remove();
    await ctx.sync();
    return out;
  });
  const modelled = { enabled: true, isDataFiltered: true, range: "A1:B4", rowHidden: [true, null], written: ["written", "written"] };
  if (JSON.stringify(seen) !== JSON.stringify(modelled)) throw differs("hidden and filtered rows", JSON.stringify(modelled), seen);
}

async function autofitWholeColumn(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.getRange("A3").values = [["short"]];
    ws.getRange("A3").format.autofitColumns();
    const before = ws.getRange("A3").format.load("columnWidth");
    await ctx.sync();
    const narrow = before.columnWidth;
    ws.getRange("A1").values = [["a much longer note typed above the placed cells"]];
    ws.getRange("A3").format.autofitColumns();
    const after = ws.getRange("A3").format.load("columnWidth");
    await ctx.sync();
    return { narrow, wide: after.columnWidth };
  });
  if (!(seen.wide > seen.narrow)) throw differs("autofit of A3 under a long A1", "a wider column (the whole column is fitted)", seen);
}

async function estimatedWidthShowsAmount(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const shown = await X.run(async (ctx) => {
    const r = ctx.workbook.worksheets.getItem(sheet.id).getRange("B2");
    r.numberFormat = [["$#,##0.00"]];
    r.values = [[1234567.5]];
    r.format.columnWidth = textWidthPoints("$1,234,567.50".length + 1);
    r.load("text");
    await ctx.sync();
    return r.text[0]![0];
  });
  if (shown !== "$1,234,567.50") throw differs("text of $1,234,567.50 at the estimated width", '"$1,234,567.50"', shown);
}

async function dateSystem(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const system = queueDateSystem(ctx);
    const r = ctx.workbook.worksheets.getItem(sheet.id).getRange("A1");
    r.numberFormat = [["yyyy-mm-dd"]];
    r.values = [[45292]];
    r.load("text");
    await ctx.sync();
    return { system: system(), text: r.text[0]![0] };
  });
  const expected = seen.system === 1904 ? "2028-01-02" : "2024-01-01";
  if (seen.text !== expected) throw differs("serial 45292 as yyyy-mm-dd", `"${expected}" in the ${seen.system} date system`, seen);
}

async function requestSizeLimit(X: typeof Excel, sheet: SheetRef, user: ProbeUserSide): Promise<void> {
  const web = user.platform === "OfficeOnline";
  let code: unknown = "no error";
  await X.run(async (ctx) => {
    const r = ctx.workbook.worksheets.getItem(sheet.id).getRange("A1:A200");
    r.numberFormat = Array.from({ length: 200 }, () => ["@"]);
    r.values = Array.from({ length: 200 }, (_, i) => [`${i} ${"x".repeat(29_990)}`]); // 6 MB of text in one request
    await ctx.sync().catch((e: unknown) => void (code = (e as { code?: unknown }).code));
  });
  const modelled = web ? "RequestPayloadSizeLimitExceeded" : "no error";
  if (code !== modelled)
    throw new Error(
      `a 6 MB request on ${web ? "Excel on the web" : "Excel desktop"}: Cellbound assumes ${modelled}; this Excel gave ${JSON.stringify(code)}`,
    );
}

/** In the order the Diagnostics view runs them. */
const PROBES: Array<[name: string, run: Probe]> = [
  ['a number written into a cell formatted "@" is stored as text', numberIntoTextCell],
  ["Excel.run accepts delayForCellEdit and runs at once when no cell is being edited", delayWithoutCellEdit],
  ["in cell-edit mode a batch fails with InvalidOperationInCellEditMode; with delayForCellEdit it waits", cellEditMode],
  ["a sync that fails at one command keeps the commands before it (not atomic)", syncNotAtomic],
  ["a name is re-pointed in one command (NamedItem.formula), then deleted", nameRepointed],
  ["a merged target: getMergedAreasOrNullObject finds it; writing part of it fails; a whole write keeps the top-left value", mergedTarget],
  ["a protected sheet refuses a write with AccessDenied", protectedSheet],
  [
    "a spilled array formula: hasSpill and getSpillParentOrNullObject find it; a value written into its results lands and the formula shows #SPILL!",
    spilledFormula,
  ],
  [
    "rows hidden by an AutoFilter or by hand are written by Range.values; autoFilter reads enabled, isDataFiltered and its range",
    hiddenAndFilteredRows,
  ],
  ["autofitColumns fits the whole column, not the range", autofitWholeColumn],
  ["a column as wide as Cellbound's estimate shows a formatted amount, not ####", estimatedWidthShowsAmount],
  ["1904 date system: DATE(1904,1,2) tells it, and agrees with how a date serial is shown", dateSystem],
  ["Excel on the web refuses one request over 5 MB (RequestPayloadSizeLimitExceeded); desktop accepts it", requestSizeLimit],
  ...TABLE_PROBES,
];

export function excelProbes(X: typeof Excel, user: ProbeUserSide = {}): ContractCheck[] {
  return PROBES.map(([name, run]) => ({ name: PROBE_PREFIX + name, run: ({ sheet }: CheckContext) => run(X, sheet, user) }));
}
