// Issue 32: the file port reads the person's workbook-scoped defined names (an input bound to a name):
// a name whose text is one area of one sheet gives that area; anything else gives null. Names are
// read only: a save keeps them as the file had them.
import path from "node:path";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { partText, patchPackage, tempDir } from "./support.ts";

const NAMES = [
  `<definedName name="Region">Inputs!$B$1</definedName>`,
  `<definedName name="Regions">'My sheet'!$B$1:$B$5</definedName>`,
  `<definedName name="OddSheet">'O''Neil''s'!$C$2</definedName>`,
  `<definedName name="Local" localSheetId="0">Inputs!$A$1</definedName>`,
  `<definedName name="Rate">0.2</definedName>`,
  `<definedName name="Total">SUM(Inputs!$A$1:$A$3)</definedName>`,
  `<definedName name="TwoAreas">Inputs!$A$1,Inputs!$A$3</definedName>`,
  `<definedName name="Broken">#REF!</definedName>`,
  `<definedName name="Elsewhere">[1]Inputs!$A$1</definedName>`,
  `<definedName name="NoSheet">Missing!$A$1</definedName>`,
  `<definedName name="_xlnm.Print_Area">Inputs!$A$1:$C$9</definedName>`,
].join("");

async function fileWithNames(dir: ReturnType<typeof tempDir>): Promise<string> {
  const file = dir.file("Inputs.xlsx");
  const port = XlsxPort.open(file, { create: "Inputs" });
  port.wb.addSheet("My sheet");
  port.wb.addSheet("O'Neil's");
  port.save();
  patchPackage(file, (name, text) =>
    name === "xl/workbook.xml" ? text.replace("</sheets>", `</sheets><definedNames>${NAMES}</definedNames>`) : undefined,
  );
  return file;
}

describe("the file port's defined names (issue 32)", () => {
  it("issue 32: a workbook-scoped name of one area gives its range, found in any case; constants, formulas, several areas, #REF!, other workbooks, sheet names and built-ins give null", async () => {
    const dir = tempDir();
    try {
      const port = XlsxPort.open(await fileWithNames(dir));
      const [inputs, mySheet, oneil] = await port.sheets();
      expect(await port.namedArea("region")).toEqual({ sheet: inputs, area: { sheetId: inputs!.id, row: 0, col: 1, rows: 1, cols: 1 } });
      expect(await port.namedArea("Regions")).toEqual({ sheet: mySheet, area: { sheetId: mySheet!.id, row: 0, col: 1, rows: 5, cols: 1 } });
      expect(await port.namedArea("OddSheet")).toEqual({ sheet: oneil, area: { sheetId: oneil!.id, row: 1, col: 2, rows: 1, cols: 1 } });
      for (const none of ["Local", "Rate", "Total", "TwoAreas", "Broken", "Elsewhere", "NoSheet", "_xlnm.Print_Area", "Unknown"])
        expect(await port.namedArea(none), none).toBeNull();
    } finally {
      dir.remove();
    }
  });

  it("issue 32: a save keeps the person's names as the file had them", async () => {
    const dir = tempDir();
    try {
      const file = await fileWithNames(dir);
      const port = XlsxPort.open(file);
      const [inputs] = await port.sheets();
      await port.write({ sheetId: inputs!.id, row: 0, col: 1 }, [["EMEA"]]);
      await port.track("P1", { sheetId: inputs!.id, row: 4, col: 0, rows: 2, cols: 2 });
      expect(port.save()).not.toBeNull();
      const xml = partText(file, "xl/workbook.xml");
      for (const name of NAMES.match(/<definedName [^>]*>[^<]*<\/definedName>/g)!) expect(xml).toContain(name);
      const again = XlsxPort.open(file, { checkData: false });
      expect((await again.namedArea("Regions"))?.area).toMatchObject({ row: 0, col: 1, rows: 5, cols: 1 });
    } finally {
      dir.remove();
    }
  });

  it("issue 32: a name LibreOffice saved is read as LibreOffice shows it", async () => {
    const port = XlsxPort.open(path.join(import.meta.dirname, "../../fixtures/xlsx-corpus/lo-features.xlsx"), { checkData: false });
    const summary = (await port.sheets()).find((s) => s.name === "Summary")!;
    expect(await port.namedArea("SalesRange")).toEqual({ sheet: summary, area: { sheetId: summary.id, row: 2, col: 1, rows: 2, cols: 1 } });
  });
});
