// What "Save as .xlsx" sends to the harness server: the workbook's snapshot and its pictures (dev/excel
// keeps shapes beside the model, not in the snapshot it persists), so a dashboard picture placed in
// the pane reaches the saved file as a drawing with its media (issue 35 §4). Browser-safe: the page
// builds it, dev/harness/xlsx-bridge.ts reads it.
import type { DevWorkbook } from "../excel/model.ts";
import { sheetShapes } from "../excel/shapes.ts";

export interface HarnessPicture {
  sheetId: string;
  name: string;
  /** PNG or JPEG, base64 without a data: prefix. */
  base64: string;
  /** Position and size in points, as Shape.left/top/width/height. */
  left: number;
  top: number;
  width: number;
  height: number;
}

export function saveSnapshot(wb: DevWorkbook): ReturnType<DevWorkbook["snapshot"]> & { pictures: HarnessPicture[] } {
  const pictures = wb.sheets.flatMap((s) =>
    sheetShapes(s).map((p) => ({
      sheetId: s.id,
      name: p.name,
      base64: p.base64,
      left: p.left,
      top: p.top,
      width: p.width,
      height: p.height,
    })),
  );
  return { ...wb.snapshot(), pictures };
}
