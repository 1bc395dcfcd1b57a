// The sheet names Excel accepts (its rename dialog's rules): `place --at "<Sheet>!A1"` adds the sheet
// when it is missing, and a file holding a name Excel refuses cannot be opened cleanly there.

/** Characters Excel never allows in a sheet name. */
const FORBIDDEN = [":", "\\", "/", "?", "*", "[", "]"];
export const MAX_SHEET_NAME = 31;

/** Why Excel would refuse `name` as a new sheet's name, in its own terms; null when it accepts it. */
export function sheetNameProblem(name: string): string | null {
  if (name === "") return "a sheet name cannot be blank";
  if (name.length > MAX_SHEET_NAME) return `a sheet name has at most ${MAX_SHEET_NAME} characters (this one has ${name.length})`;
  const held = FORBIDDEN.filter((c) => name.includes(c));
  if (held.length) return `a sheet name cannot contain any of : \\ / ? * [ ] (this one holds ${held.join(" ")})`;
  if (name.startsWith("'") || name.endsWith("'")) return "a sheet name cannot begin or end with an apostrophe (')";
  if (name.toLowerCase() === "history") return "Excel reserves the name History for its own use";
  return null;
}
