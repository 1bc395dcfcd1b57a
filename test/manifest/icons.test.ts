// The committed icons are exactly what scripts/draw-icons.ts draws, at the sizes
// the manifest needs, and show the mark (grid, shaded header, highlighted block).
import { readFileSync } from "node:fs";
import path from "node:path";
import { PNG } from "pngjs";
import { drawIcon, ICON_SIZES } from "../../scripts/draw-icons.ts";
import { pngSizeFromHeader, readPngSize } from "../../scripts/manifest/png.ts";
import { REPO } from "./helpers.ts";

describe("icons", () => {
  it.each(ICON_SIZES.map((size) => [size]))("assets/icon-%s.png is the drawn icon, square at its size", (size) => {
    const file = path.join(REPO, "assets", `icon-${size}.png`);
    expect(readPngSize(file)).toEqual({ ok: true, width: size, height: size });
    expect(readFileSync(file).equals(drawIcon(size))).toBe(true);
  });

  it("draws a grid with a highlighted block on a transparent background", () => {
    const png = PNG.sync.read(drawIcon(80));
    const pixel = (x: number, y: number) => [...png.data.subarray((y * 80 + x) * 4, (y * 80 + x) * 4 + 4)];
    expect(pixel(0, 0)[3]).toBe(0); // transparent corner
    expect(pixel(47, 47)).toEqual([0x1a, 0x7f, 0x5a, 0xff]); // inside the highlighted block
    expect(pixel(14, 47)).toEqual([0xff, 0xff, 0xff, 0xff]); // a plain cell
    expect(pixel(14, 14)).toEqual([0xdd, 0xe3, 0xe8, 0xff]); // the header row
  });

  it("reads sizes from PNG headers and rejects other files", () => {
    expect(pngSizeFromHeader(drawIcon(16))).toEqual({ ok: true, width: 16, height: 16 });
    expect(pngSizeFromHeader(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toEqual({ ok: false, reason: "not a PNG file" });
    expect(readPngSize(path.join(REPO, "assets", "missing.png"))).toEqual({ ok: false, reason: "file not found" });
  });
});
