// The stand-in's check of a defined name or a table name, as Excel refuses them (support.microsoft.com "Names in
// formulas", "Rename an Excel table"): a letter of any script, "_" or "\" first; then letters, numbers, "." and "_";
// not a cell reference (A1, R1C1) and not R or C alone.

const NAME_RE = /^[\p{L}_\\][\p{L}\p{N}_.\\]{0,254}$/u;

export function nameExcelTakes(name: unknown): name is string {
  if (typeof name !== "string" || !NAME_RE.test(name)) return false;
  return !/^[A-Za-z]{1,3}[0-9]{1,7}$/.test(name) && !/^[Rr][0-9]*[Cc][0-9]*$/.test(name) && !/^[RrCc]$/.test(name);
}
