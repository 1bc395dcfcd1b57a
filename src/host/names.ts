// Excel's rule for a defined name and for a table name (one rule: support.microsoft.com "Names in formulas" and
// "Rename an Excel table"): a letter of any script, "_" or "\" first; then letters, digits, "_", "." and "\"; at
// most 255 characters; not a cell reference (A1, R1C1) and not R or C alone. Pure.

const NAME_RE = /^[\p{L}_\\][\p{L}\p{N}_.\\]{0,254}$/u;

/** Would Excel take this as a defined name or a table name? */
export function isExcelName(name: unknown): name is string {
  if (typeof name !== "string" || !NAME_RE.test(name)) return false;
  return !/^[A-Za-z]{1,3}[0-9]{1,7}$/.test(name) && !/^[Rr][0-9]*[Cc]?[0-9]*$/.test(name) && !/^[Cc][0-9]*$/.test(name);
}
