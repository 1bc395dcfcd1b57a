// Files another program saved (issue 35 §2). LibreOffice keeps Cellbound's custom XML parts but links
// them from the package's _rels/.rels, and keeps the tracking names without hidden="1" or their
// comment: the port finds them there, so status, refresh, place and the harness's Open .xlsx… see the
// placements. A file where some of Cellbound's names, data or id are gone or unreadable is refused
// with an XlsxError of kind "cellboundData" naming the file and what is missing, and is not rewritten.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { xlsxToSnapshot } from "../../../dev/harness/xlsx-bridge.ts";
import { XlsxError } from "../../../src/host/xlsx/errors.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { ZipReader, writeZip } from "../../../src/host/xlsx/zip.ts";
import { byCustomer, byStatus, startCliEnv, type CliEnv } from "../../cli/support.ts";
import { differences, expectedText, libreOffice, type LibreOffice } from "../../support/libreoffice.ts";
import { patchPackage, tempDir } from "./support.ts";

let env: CliEnv;
let lo: LibreOffice;
const tmp = tempDir("cb-other-");
beforeAll(async () => {
  env = await startCliEnv();
  lo = libreOffice();
});
afterAll(async () => {
  await env.close();
  lo.close();
  tmp.remove();
});

const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};
const customXmlParts = (file: string) =>
  new ZipReader(file, readFileSync(file)).entries.map((e) => e.name).filter((n) => /^customXml\/item\d+\.xml$/.test(n));

/** Three reports placed by `cellbound place` into a new workbook. */
async function threePlacements(name: string): Promise<string> {
  const file = tmp.file(name);
  for (const [i, at] of ["Sheet1!A1", "Sheet1!E1", "'Second sheet'!B2"].entries()) {
    const report = await env.createReport(i === 1 ? byCustomer(6) : byStatus(3 + i));
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", at, "--json"]);
    expect(out.code, out.stdout).toBe(0);
  }
  return file;
}

describe("issue 35 §2: a workbook LibreOffice saved", () => {
  it(
    "keeps its placements: status lists them, refresh finds them without a new id or part, place sees them, the harness opens them",
    { timeout: 240_000 },
    async () => {
      const file = await threePlacements("three.xlsx");
      const id = XlsxPort.open(file).wb.workbookId;
      const parts = customXmlParts(file);
      await lo.resave(file);
      // LibreOffice links Cellbound's parts from the package relationships and makes the names visible.
      const z = new ZipReader(file, readFileSync(file));
      expect(z.text("_rels/.rels")).toMatch(/customXml\/item1\.xml/);
      expect(z.text("xl/_rels/workbook.xml.rels")).not.toMatch(/customXml/);
      expect(z.text("xl/workbook.xml")).not.toMatch(/hidden="1"/);

      const status = await env.cli(["status", file, "--json"]);
      expect(status.code).toBe(0);
      const listed = status.json().files[0]!.placements;
      expect(listed.map((p) => p.status)).toEqual(["up to date", "up to date", "up to date"]);

      const same = untouched(file);
      const refreshed = await env.cli(["refresh", file, "--json"]);
      expect(refreshed.code).toBe(0);
      expect(refreshed.json().files[0]!.placements.map((p) => p.outcome)).toEqual(["unchanged", "unchanged", "unchanged"]);
      same(); // nothing changed: not rewritten with a new id or a third part
      expect(XlsxPort.open(file).wb.workbookId).toBe(id);
      expect(customXmlParts(file)).toEqual(parts);

      // A report that changed is refreshed in the re-saved file; LibreOffice shows it.
      await env.client().updateReport(env.deploymentId, listed[1]!.reportId!, byCustomer(8));
      const changed = await env.cli(["refresh", file, "--json"]);
      expect(changed.code).toBe(0);
      expect(changed.json().files[0]!.placements.map((p) => p.outcome)).toEqual(["unchanged", "refreshed", "unchanged"]);
      expect(customXmlParts(file)).toEqual(parts);
      const port = XlsxPort.open(file);
      const shown = await lo.sheets(file);
      for (const s of port.wb.sheets) expect(differences(shown.get(s.name) ?? [], expectedText(port.wb, s.name)), s.name).toEqual([]);

      // Placing onto a placement names it as such; placing beside them works.
      const other = await env.createReport(byStatus(2));
      const onto = await env.cli(["place", file, "--report", String(other.id), "--at", "Sheet1!B2", "--json"]);
      expect(onto.json().files[0]!.placements[0]!.reason).toMatch(/would overlap .+; nothing was written/);
      const beside = await env.cli(["place", file, "--report", String(other.id), "--at", "Sheet1!Z1", "--json"]);
      expect(beside.code).toBe(0);

      // Saved by LibreOffice again, then refreshed again.
      await lo.resave(file);
      const again = await env.cli(["refresh", file, "--json"]);
      expect(again.code).toBe(0);
      expect(again.json().files[0]!.placements).toHaveLength(4);
      expect(again.json().files[0]!.placements.every((p) => p.outcome === "unchanged")).toBe(true);

      // The harness's Open .xlsx… shows the four placements' names and data.
      const snap = xlsxToSnapshot(readFileSync(file), "three.xlsx");
      expect(snap.names.filter((n) => n.name.startsWith("Cellbound_"))).toHaveLength(4);
      expect(snap.xmlParts.length).toBeGreaterThanOrEqual(2);
    },
  );
});

describe("issue 35 §2: never silently empty", () => {
  const refused = async (file: string, what: RegExp) => {
    const same = untouched(file);
    let err: unknown;
    try {
      XlsxPort.open(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(XlsxError);
    expect((err as XlsxError).kind).toBe("cellboundData");
    expect((err as XlsxError).message).toMatch(what);
    for (const cmd of ["status", "refresh"]) {
      const out = await env.cli([cmd, file, "--json"]);
      expect(out.code, `${cmd} exits non-zero`).not.toBe(0);
      expect(out.json().files[0]!.error).toMatch(what);
      expect(out.stdout).not.toMatch(/no placements/);
    }
    const report = await env.createReport(byStatus(2));
    const place = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!Z9", "--json"]);
    expect(place.json().files[0]!.error).toMatch(what);
    expect(() => xlsxToSnapshot(readFileSync(file), path.basename(file))).toThrow(what);
    same();
  };

  it("tracking names without the placements' data: refused naming the file and what is missing", { timeout: 120_000 }, async () => {
    const file = await threePlacements("names-only.xlsx");
    // A program that keeps defined names but drops custom XML parts.
    patchPackage(file, (name, text) =>
      name.endsWith("workbook.xml.rels") ? text.replace(/<Relationship [^>]*customXml"[^>]*\/>/g, "") : undefined,
    );
    const z = new ZipReader(file, readFileSync(file));
    writeFileSync(
      file,
      writeZip(
        z.bytes,
        z.entries.filter((e) => !e.name.startsWith("customXml/")).map((e) => ({ name: e.name, from: e })),
      ),
    );
    await refused(file, /^names-only\.xlsx: it has Cellbound's hidden names for 3 placements but not the placements' data/);
  });

  it("placement data whose hidden names are all gone: refused", { timeout: 120_000 }, async () => {
    const file = await threePlacements("data-only.xlsx");
    patchPackage(file, (name, text) => (name === "xl/workbook.xml" ? text.replace(/<definedNames>.*<\/definedNames>/, "") : undefined));
    await refused(file, /^data-only\.xlsx: its Cellbound data lists 3 placements, but their hidden names .* are gone/);
  });

  it("placement data without the workbook's id: refused", { timeout: 120_000 }, async () => {
    const file = await threePlacements("no-id.xlsx");
    patchPackage(file, (_name, text) =>
      text.includes("urn:cellbound:workbook:1") ? text.replace("urn:cellbound:workbook:1", "urn:someone:else") : undefined,
    );
    await refused(file, /^no-id\.xlsx: it has Cellbound's placements but not the workbook's Cellbound id/);
  });

  it("a Cellbound part that cannot be read: refused naming the part", { timeout: 120_000 }, async () => {
    const file = await threePlacements("broken.xlsx");
    patchPackage(file, (_name, text) =>
      text.includes('key="cellbound.sync.placements.v1"') ? text.replace(/<\/data>\s*$/, "") : undefined,
    );
    await refused(file, /^broken\.xlsx: Cellbound's data in this workbook cannot be read \(customXml\/item\d\.xml: /);
  });

  it("an interrupted first placement (its record, not yet its name) is no loss: the file opens", async () => {
    const file = await threePlacements("interrupted.xlsx");
    const port = XlsxPort.open(file);
    const store = JSON.parse(port.wb.data.get("cellbound.sync.placements.v1")!) as { placements: Array<{ committed: unknown }> };
    for (const p of store.placements) p.committed = null;
    port.wb.data.set("cellbound.sync.placements.v1", JSON.stringify(store));
    port.wb.tracks.clear();
    port.save();
    expect(XlsxPort.open(file).wb.tracks.size).toBe(0);
  });
});
