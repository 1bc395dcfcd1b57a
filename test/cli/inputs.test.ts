// Issue 32 on the command line: `place --input` binds a report's filter to cells of the workbook,
// `refresh` reads them, `refresh --set … [--out …]` writes them first (one template, many filtered
// copies), `status` lists them — against the platform stand-in, whose data API filters by the member.
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cellValue, credentialsFrom, parseCommand } from "../../src/cli/args.ts";
import { engineFor, openSession } from "../../src/cli/session.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { patchPackage, tempDir } from "../host/xlsx/support.ts";
import { startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-inputs-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

const COUNTRIES = ["Germany", "France", "United States", "Japan", "Brazil", "India", "Kenya", "Australia"];
/** Orders by country and status: a country filter changes which rows come back. */
const byCountry = () => ({
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.country", "orders.status"],
    order: [
      ["customers.country", "asc"],
      ["orders.status", "asc"],
    ],
    limit: 50,
  }),
});

const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};

/** A workbook with an Inputs sheet: "Country" in A1 and the country in B1 (and a defined name when asked). */
function template(name: string, country: string, definedName?: string): string {
  const file = tmp.file(name);
  const port = XlsxPort.open(file, { create: "Inputs" });
  const inputs = port.wb.sheets[0]!.id;
  port.wb.userEdit(inputs, 0, 0, "Country");
  if (country !== "") port.wb.userEdit(inputs, 0, 1, country);
  port.save();
  if (definedName)
    patchPackage(file, (part, text) =>
      part === "xl/workbook.xml"
        ? text.replace("</sheets>", `</sheets><definedNames><definedName name="${definedName}">Inputs!$B$1</definedName></definedNames>`)
        : undefined,
    );
  return file;
}

/** The countries the report's cells on `sheet` show (whole cells, not the filter summary's words). */
function countriesOn(file: string, sheet = "Report"): string[] {
  const s = XlsxPort.open(file).wb.sheets.find((x) => x.name === sheet)!;
  const seen = new Set<string>();
  for (const row of s.cells.values()) for (const c of row.values()) if (typeof c.v === "string" && COUNTRIES.includes(c.v)) seen.add(c.v);
  return [...seen].sort();
}

async function placeBound(file: string, ref = "Inputs!B1"): Promise<number> {
  const report = await env.createReport(byCountry());
  const out = await env.cli([
    "place",
    file,
    "--report",
    String(report.id),
    "--at",
    "Report!A1",
    "--input",
    `customers.country=${ref}`,
    "--json",
  ]);
  expect(out.stderr).toBe("");
  expect(out.json().files[0]!.placements[0]).toMatchObject({ outcome: "placed", range: expect.stringMatching(/^Report!A1:/) });
  expect(out.code).toBe(0);
  return report.id;
}

describe("cellbound place --input, refresh --set, status (issue 32)", () => {
  it("issue 32: place --input binds the filter to a cell; refresh --set writes the cell and the placed rows follow it; status lists the input and its value", async () => {
    const file = template("bound.xlsx", "Germany");
    await placeBound(file);
    expect(countriesOn(file)).toEqual(["Germany"]);

    const refreshed = await env.cli(["refresh", file, "--set", "Inputs!B1=Japan", "--json"]);
    expect(refreshed.stderr).toBe("");
    expect(refreshed.code).toBe(0);
    expect(refreshed.json().files[0]!.placements.map((p) => p.outcome)).toEqual(["refreshed"]);
    expect(countriesOn(file)).toEqual(["Japan"]);
    expect(XlsxPort.open(file).wb.cell(XlsxPort.open(file).wb.sheets[0]!.id, 0, 1).value).toBe("Japan");

    const status = await env.cli(["status", file, "--json"]);
    expect(status.code).toBe(0);
    const line = (status.json().files[0]!.placements[0] as unknown as { inputs: unknown[]; inputsChanged: boolean })!;
    expect(line.inputs).toEqual([
      expect.objectContaining({ member: "customers.country", where: "Inputs!B1", values: ["Japan"], problem: null }),
    ]);
    expect(line.inputsChanged).toBe(false);
    const text = await env.cli(["status", file]);
    expect(text.stdout).toMatch(/input .*customers\.country.* from Inputs!B1: Japan/);
  });

  it("issue 32: refresh uses the value the file holds: a cell changed in Excel (by hand) is read by the next refresh; status says the inputs changed first", async () => {
    const file = template("by-hand.xlsx", "France");
    await placeBound(file);
    const port = XlsxPort.open(file);
    port.wb.userEdit(port.wb.sheets[0]!.id, 0, 1, "Kenya");
    port.save();
    // The pane's rule and words: a placement whose input cells hold other values is out of date.
    const status = await env.cli(["status", file]);
    expect(status.stdout).toMatch(/: changed.*\n\s+Inputs changed — refresh to show their values\.\n\s+input .* from Inputs!B1: Kenya/);
    expect((await env.cli(["status", file, "--json"])).json().files[0]!.placements[0]).toMatchObject({
      status: "changed",
      inputsChanged: true,
    });
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(0);
    expect(countriesOn(file)).toEqual(["Kenya"]);
  });

  it("issue 32: --out leaves the template untouched and writes one filtered copy per region (a loop), each its own workbook on the platform; a second run refreshes the same copy", async () => {
    const file = template("template.xlsx", "Germany");
    await placeBound(file);
    const same = untouched(file);
    for (const region of ["Brazil", "India"]) {
      const copy = tmp.file(`Orders-${region}.xlsx`);
      const out = await env.cli(["refresh", file, "--set", `Inputs!B1=${region}`, "--out", copy, "--json"]);
      expect(out.stderr).toBe("");
      expect(out.code).toBe(0);
      expect(out.json().files[0]).toMatchObject({ file: copy, from: file, saved: true });
      expect(countriesOn(copy)).toEqual([region]);
    }
    same();
    expect(countriesOn(file)).toEqual(["Germany"]);
    // Each copy is a workbook of its own on the platform: the template's placement keeps the template's fingerprint.
    const idOf = async (f: string) => (await XlsxPort.open(f).identity()).workbookId;
    const templateId = await idOf(file);
    const listed = async (workbookId: string) => {
      const out = [];
      for await (const p of env.client().iterateExternalPlacements(workbookId)) out.push(p);
      return out;
    };
    const brazilId = await idOf(tmp.file("Orders-Brazil.xlsx"));
    expect(new Set([templateId, brazilId, await idOf(tmp.file("Orders-India.xlsx"))]).size).toBe(3);
    expect((await listed(templateId)).length).toBe(1);
    const brazilPlacements = await listed(brazilId);
    expect(brazilPlacements.length).toBe(1);
    const again = await env.cli(["refresh", file, "--set", "Inputs!B1=Australia", "--out", tmp.file("Orders-Brazil.xlsx")]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Orders-Brazil\.xlsx \(saved\) \(from .*template\.xlsx\)/);
    expect(countriesOn(tmp.file("Orders-Brazil.xlsx"))).toEqual(["Australia"]);
    // A second run over the same copy refreshes that copy's workbook and placement: nothing new on the platform.
    expect(await idOf(tmp.file("Orders-Brazil.xlsx"))).toBe(brazilId);
    expect((await listed(brazilId)).map((p) => p.placementId)).toEqual(brazilPlacements.map((p) => p.placementId));
    expect((await listed(templateId)).length).toBe(1);
    same();
  });

  it("issue 32: a placement whose input lies in another placement is refreshed after it, with the value it wrote", async () => {
    const file = template("producer.xlsx", "Germany");
    const consumer = await placeBound(file); // placed first: refreshed first unless the order follows the inputs
    const firstCountries = (order: "asc" | "desc") => ({
      jsonQuery: JSON.stringify({
        measures: ["orders.count"],
        dimensions: ["customers.country"],
        order: [["customers.country", order]],
        limit: 3,
      }),
    });
    const producer = await env.createReport(firstCountries("asc"));
    expect((await env.cli(["place", file, "--report", String(producer.id), "--at", "Data!A1"])).code).toBe(0);
    // The consumer's filter is bound to the producer's first country (Data!A2), as the pane's "Inputs…" does.
    const session = await openSession(credentialsFrom(env.env()), null, { fetch, signal: new AbortController().signal });
    const port = XlsxPort.open(file);
    const engine = engineFor(port, session, session.platform);
    const key = (await engine.placements()).find((p) => p.reportId === consumer)!.key;
    await engine.bindInputs(key, [{ member: "customers.country", ref: "Data!A2" }]);
    port.save();
    expect(countriesOn(file, "Data")[0]).toBe("Australia");

    await env.client().updateReport(env.deploymentId, producer.id, firstCountries("desc"));
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(0);
    expect(out.json().files[0]!.placements.map((p) => [p.reportId, p.outcome])).toEqual([
      [producer.id, "refreshed"],
      [consumer, "refreshed"],
    ]);
    expect(countriesOn(file)).toEqual(["United States"]);
  });

  it("issue 32: --out over a read-only workbook or one open in Excel is exit 2, both files untouched", async () => {
    const file = template("template-ro.xlsx", "Germany");
    await placeBound(file);
    const copy = tmp.file("Orders-ro.xlsx");
    copyFileSync(file, copy);
    chmodSync(copy, 0o444);
    const [sameTemplate, sameCopy] = [untouched(file), untouched(copy)];
    const readOnly = await env.cli(["refresh", file, "--set", "Inputs!B1=Japan", "--out", copy]);
    expect(readOnly.code).toBe(2);
    expect(readOnly.stderr).toMatch(/Orders-ro\.xlsx: it is marked read-only/);
    chmodSync(copy, 0o644);
    writeFileSync(tmp.file("~$Orders-ro.xlsx"), Buffer.alloc(165));
    const open = await env.cli(["refresh", file, "--set", "Inputs!B1=Japan", "--out", copy, "--json"]);
    expect(open.code).toBe(2);
    expect(open.json().files[0]).toMatchObject({ file: copy, error: expect.stringMatching(/open in Excel/) });
    sameTemplate();
    sameCopy();
    // A template that is not there: named, and no copy made.
    const missing = await env.cli(["refresh", tmp.file("no-template.xlsx"), "--out", tmp.file("no-copy.xlsx")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-template\.xlsx: no such file/);
    expect(existsSync(tmp.file("no-copy.xlsx"))).toBe(false);
  });

  it("issue 32: an input bound to a defined name reads the name's cell", async () => {
    const file = template("named.xlsx", "Japan", "Region");
    await placeBound(file, "Region");
    expect(countriesOn(file)).toEqual(["Japan"]);
    expect((await env.cli(["refresh", file, "--set", "Inputs!B1=Kenya"])).code).toBe(0);
    expect(countriesOn(file)).toEqual(["Kenya"]);
  });

  it("issue 32: an invalid input is exit 1 naming the cell, and the file is untouched (refresh, refresh --set, --out, place)", async () => {
    const file = template("invalid.xlsx", "Germany");
    await placeBound(file);
    const same = untouched(file);
    const emptied = await env.cli(["refresh", file, "--set", "Inputs!B1=", "--json"]);
    expect(emptied.code).toBe(1);
    expect(emptied.json().files[0]!.placements[0]!.reason).toMatch(/Inputs!B1/);
    const copy = tmp.file("invalid-copy.xlsx");
    const toCopy = await env.cli(["refresh", file, "--set", "Inputs!B1=", "--out", copy]);
    expect(toCopy.code).toBe(1);
    expect(toCopy.stdout).toMatch(/Inputs!B1/);
    expect(existsSync(copy)).toBe(false);
    same();

    // The cell emptied in Excel: a plain refresh refuses that placement and writes nothing.
    const port = XlsxPort.open(file);
    port.wb.userEdit(port.wb.sheets[0]!.id, 0, 1, "");
    port.save();
    const emptyInFile = untouched(file);
    const status = await env.cli(["status", file]);
    expect(status.stdout).toMatch(
      /: changed.*\n\s+Inputs!B1 is empty: type a country\.\n\s+input .* from Inputs!B1: cannot be used \(above\)/,
    );
    const plain = await env.cli(["refresh", file, "--json"]);
    expect(plain.code).toBe(1);
    expect(plain.json().files[0]!.placements[0]).toMatchObject({ outcome: "not-refreshed", reason: expect.stringMatching(/Inputs!B1/) });
    emptyInFile();

    // Placing with an empty input cell, or a member the report's data does not have: nothing is written.
    const report = await env.createReport(byCountry());
    for (const input of ["customers.country=Inputs!B1", "customers.nonesuch=Inputs!A1"]) {
      const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Other!A1", "--input", input, "--json"]);
      expect(out.code, input).toBe(1);
      expect(out.json().files[0]!.placements[0]!.outcome).toBe("not-refreshed");
      emptyInFile();
    }
  });

  it("issue 32: --set into a sheet the workbook does not have is exit 2 naming it, the file untouched", async () => {
    const file = template("nosheet.xlsx", "Germany");
    await placeBound(file);
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--set", "Nope!B1=Japan"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/no sheet “Nope”/);
    const json = await env.cli(["refresh", file, "--set", "Nope!B1=Japan", "--json"]);
    expect(json.code).toBe(2);
    expect(json.json().files[0]!.error).toMatch(/no sheet “Nope”/);
    same();
  });
});

describe("the command line's words for inputs (issue 32)", () => {
  it("issue 32: usage errors are exit 2 naming what is wrong, one JSON object with --json", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["refresh", "a.xlsx", "--set", "B1=x"], /--set takes "<Sheet>!<A1>=<value>"/],
      [["refresh", "a.xlsx", "--set", "Inputs!B1:B2=x"], /one cell/],
      [["refresh", "a.xlsx", "--set", "Inputs!ZZZZ1=x"], /--set takes/],
      [["refresh", "a.xlsx", "b.xlsx", "--set", "Inputs!B1=x"], /--set takes exactly one workbook/],
      [["refresh", "a.xlsx", "--out", "b.csv"], /\*\.xlsx or \*\.xlsm/],
      [["refresh", "a.xlsx", "--out", "b.xlsm"], /template's extension/],
      [["refresh", "a.xlsx", "--out", "b.xlsx", "--dry-run"], /--dry-run/],
      [["refresh", "a.xlsx", "--set", "Inputs!B1=x", "--shard", "1/2"], /--shard/],
      [["refresh", tmp.file("same.xlsx"), "--out", tmp.file("same.xlsx")], /is the workbook itself/],
      [["refresh", tmp.dir, "--set", "Inputs!B1=x"], /not the folder/],
      [["place", "a.xlsx", "--report", "1", "--at", "A1", "--input", "customers.country"], /--input takes/],
      [["place", "a.xlsx", "--report", "1", "--at", "A1", "--input", "a.b=X!A1", "--input", "A.B=X!A2"], /binds a\.b twice/],
      [["status", "a.xlsx", "--set", "Inputs!B1=x"], /status does not take --set/],
    ];
    for (const [args, words] of cases) {
      const out = await env.cli(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).toMatch(words);
      const json = await env.cli([...args, "--json"]);
      expect(json.json().error, args.join(" ")).toMatch(words);
    }
  });

  it("issue 32: --set writes a number when the text is one, else the text as it is — never a formula", () => {
    expect(["12", "-3.5", "+4", "1e6", ".5", "0", "0.25"].map(cellValue)).toEqual([12, -3.5, 4, 1e6, 0.5, 0, 0.25]);
    for (const text of ["=1+1", "007", "12 ", "TRUE", "", "1,000", "EMEA", "2024-01-31", "1e999"]) expect(cellValue(text), text).toBe(text);
    const cmd = parseCommand(["refresh", "t.xlsx", "--set", "'My sheet'!b2==SUM(A1)", "--set", "Inputs!B1=Hi!", "--out", "x.xlsx"]);
    expect(cmd).toMatchObject({
      sets: [
        { sheet: "My sheet", row: 1, col: 1, value: "=SUM(A1)" },
        { sheet: "Inputs", row: 0, col: 1, value: "Hi!" },
      ],
      out: "x.xlsx",
    });
    expect(
      parseCommand(["place", "t.xlsx", "--report", "1", "--at", "A1", "--input", "orders.created_at=Inputs!B1,Inputs!B2"]),
    ).toMatchObject({
      inputs: [{ member: "orders.created_at", ref: "Inputs!B1,Inputs!B2" }],
    });
  });
});
