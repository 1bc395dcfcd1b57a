// Draws Cellbound's icons into assets/: a small spreadsheet grid (header row shaded)
// with a highlighted 2×2 block — "a report placed into a sheet range".
//
//   npx tsx scripts/draw-icons.ts            writes assets/icon-{16,32,64,80}.png
//
// The ribbon needs 16, 32 and 80 px (the schema's mandatory sizes); IconUrl is
// 32 px and HighResolutionIconUrl 64 px for task-pane add-ins. Output is
// deterministic, so re-running the script on an unchanged file leaves git clean.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";

export const ICON_SIZES = [16, 32, 64, 80] as const;

type Rgba = readonly [number, number, number, number];
const GRID: Rgba = [0x4a, 0x55, 0x5e, 0xff];
const CELL: Rgba = [0xff, 0xff, 0xff, 0xff];
const HEADER: Rgba = [0xdd, 0xe3, 0xe8, 0xff];
const BLOCK: Rgba = [0x1a, 0x7f, 0x5a, 0xff];

const COLUMNS = 4;
const ROWS = 4;
/** The highlighted block: columns 1–2, rows 2–3 (zero-based; row 0 is the header). */
const isBlock = (col: number, row: number): boolean => col >= 1 && col <= 2 && row >= 2 && row <= 3;

/** Draws one square icon of `size` px and returns its PNG bytes. */
export function drawIcon(size: number): Buffer {
  const png = new PNG({ width: size, height: size });
  png.data.fill(0); // transparent background
  const margin = Math.max(1, Math.round(size / 16));
  const line = Math.max(1, Math.round(size / 32));
  const span = size - 2 * margin - line;
  // Grid-line positions (left/top edge of each line), evenly spread over the span.
  const xs = Array.from({ length: COLUMNS + 1 }, (_, i) => margin + Math.round((i * span) / COLUMNS));
  const ys = Array.from({ length: ROWS + 1 }, (_, i) => margin + Math.round((i * span) / ROWS));

  const put = (x: number, y: number, c: Rgba): void => {
    const at = (y * size + x) * 4;
    png.data[at] = c[0];
    png.data[at + 1] = c[1];
    png.data[at + 2] = c[2];
    png.data[at + 3] = c[3];
  };
  const fill = (x0: number, y0: number, x1: number, y1: number, c: Rgba): void => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) put(x, y, c);
  };

  for (let row = 0; row < ROWS; row++) {
    for (let col = 0; col < COLUMNS; col++) {
      const colour = isBlock(col, row) ? BLOCK : row === 0 ? HEADER : CELL;
      fill(xs[col]! + line, ys[row]! + line, xs[col + 1]!, ys[row + 1]!, colour);
    }
  }
  const right = xs[COLUMNS]! + line;
  const bottom = ys[ROWS]! + line;
  for (const x of xs) fill(x, ys[0]!, x + line, bottom, GRID);
  for (const y of ys) fill(xs[0]!, y, right, y + line, GRID);
  return PNG.sync.write(png, { colorType: 6 });
}

/** Writes every icon size into `dir` and returns the written paths. */
export function writeIcons(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return ICON_SIZES.map((size) => {
    const file = path.join(dir, `icon-${size}.png`);
    writeFileSync(file, drawIcon(size));
    return file;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "assets");
  for (const file of writeIcons(dir)) console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
