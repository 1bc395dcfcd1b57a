// putPicture / pictures on both ports: the Office.js adapter over dev/excel's shapes (addImage,
// name, left/top from the cell's Range.left/top, replace in place) and the memory port.
import { describe, expect, it } from "vitest";
import { createDevExcel, sheetShapes } from "../../dev/excel/index.ts";
import { ExcelPort } from "../../src/host/excel/index.ts";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { PortInputError } from "../../src/host/validate.ts";

/** A 3×2 PNG (IHDR width 3, height 2); the rest of the file is not needed to size it. */
function png(width: number, height: number): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "latin1");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString("base64");
}

describe("pictures over dev/excel", () => {
  it("adds an image named at the cell's place, replaces it in place, and refuses non-images", async () => {
    const dx = createDevExcel();
    const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
    const sheet = dx.workbook.sheets[0]!;
    await port.putPicture("Dash SalesDash001", png(96, 48), { sheetId: sheet.id, row: 3, col: 2 });
    expect(sheetShapes(sheet)).toMatchObject([{ name: "Dash SalesDash001", type: "Image", left: 96, top: 45, width: 72, height: 36 }]);
    // Refresh: same name, no place given → replaced where it was, still one picture.
    await port.putPicture("Dash SalesDash001", png(192, 48));
    expect(sheetShapes(sheet)).toMatchObject([{ name: "Dash SalesDash001", left: 96, top: 45, width: 144 }]);
    expect(await port.pictures(sheet.id)).toEqual([{ name: "Dash SalesDash001", width: 144, height: 36 }]);
    await expect(
      port.putPicture("x", Buffer.from("GIF89a....").toString("base64"), { sheetId: sheet.id, row: 0, col: 0 }),
    ).rejects.toBeInstanceOf(PortInputError);
    await expect(port.putPicture("nothing-here", png(1, 1))).rejects.toThrow(/no picture named/);
    expect(sheetShapes(sheet)).toHaveLength(1);
  });

  it("dev/excel's addImage fails at sync for a string that is not an image", async () => {
    const dx = createDevExcel();
    const ctx = new dx.Excel.RequestContext() as unknown as Excel.RequestContext;
    ctx.workbook.worksheets.getActiveWorksheet().shapes.addImage("bm90IGFuIGltYWdl");
    await expect(ctx.sync()).rejects.toMatchObject({ code: "InvalidArgument" });
  });
});

describe("pictures over the memory port", () => {
  it("puts, replaces by name and lists", async () => {
    const wb = new MemoryWorkbook();
    const port = new MemoryPort(wb);
    const id = wb.sheets[0]!.id;
    await port.putPicture("p", png(96, 96), { sheetId: id, row: 1, col: 1 });
    await port.putPicture("p", png(48, 96));
    expect(await port.pictures(id)).toEqual([{ name: "p", width: 36, height: 72 }]);
    await expect(port.putPicture("p", "data:image/png;base64,AAAA")).rejects.toBeInstanceOf(PortInputError);
  });
});
