// How a rectangle moves when rows or columns are inserted or deleted, as Excel moves a named
// item's range. Shared by the in-memory port and dev/excel so both follow one rule.

/**
 * How Excel moves a name's rectangle when rows (axis "row") or columns are inserted (delta > 0) or
 * deleted (delta < 0) at index `at`: shift when before it, grow/shrink when inside, #REF! (null) when
 * the whole rectangle is deleted. dev/excel uses the same rule.
 */
export function shiftArea<T extends { row: number; col: number; rows: number; cols: number }>(
  a: T,
  axis: "row" | "col",
  at: number,
  delta: number,
): T | null {
  const start = axis === "row" ? a.row : a.col;
  const size = axis === "row" ? a.rows : a.cols;
  let ns = start,
    nsize = size;
  if (delta > 0) {
    if (at <= start) ns = start + delta;
    else if (at < start + size) nsize = size + delta;
  } else {
    const d0 = at,
      d1 = at - delta; // deleted [d0, d1)
    const end = start + size;
    if (d1 <= start) ns = start + delta;
    else if (d0 >= end) {
      /* after: unchanged */
    } else if (d0 <= start && d1 >= end) return null;
    else {
      const removed = Math.min(end, d1) - Math.max(start, d0);
      nsize = size - removed;
      ns = d0 < start ? d0 : start;
    }
  }
  return axis === "row" ? { ...a, row: ns, rows: nsize } : { ...a, col: ns, cols: nsize };
}
