// The builder's preview: the first result rows as a table, laid out and formatted as they will be placed.
import { formatValue } from "../../host/number-format";
import type { SheetValue } from "../../host/port";
import type { PreviewGrid } from "./types";
import { PREVIEW_ROWS } from "./use-builder";

export function Preview({ grid }: { grid: PreviewGrid }) {
  const head = grid.cells.slice(0, grid.headerRows);
  const body = grid.cells.slice(grid.headerRows, grid.headerRows + PREVIEW_ROWS);
  const text = (v: unknown) => (v === null || v === undefined ? "" : String(v));
  // As the sheet will show it: dates as dates, currency, percent, thousands separators.
  const shown = (v: SheetValue | null | undefined, col: number) =>
    v === null || v === undefined ? "" : formatValue(v, grid.columnFormats?.[col]);
  return (
    <div class="cb-table-wrap">
      <table class="cb-table" aria-label="Preview">
        <thead>
          {head.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <th scope="col" key={j}>
                  {text(v)}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {body.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <td key={j} class={typeof v === "number" ? "cb-num" : undefined}>
                  {shown(v, j)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="cb-meta">Preview of the first {PREVIEW_ROWS} result rows, laid out as they will be placed.</p>
    </div>
  );
}
