// The workbook's date system (issue 22, item 10). A workbook can use the 1904 date system (File ›
// Options › Advanced › "Use 1904 date system", the old Mac default): serial 0 is 1 Jan 1904, so every
// serial Cellbound writes for a date shows 1,462 days (4 years and 1 day) later — silently, since the
// fingerprint of the numbers still matches. The API has no property for it in ExcelApi 1.12, but the
// worksheet function DATE evaluates in the workbook's system without touching a cell
// (Workbook.functions, ExcelApi 1.2: "year Is a number from 1900 or 1904 (depending on the workbook's
// date system)"): DATE(1904, 1, 2) is 1 in the 1904 system and 1,463 in the 1900 system.

/** Queue the probe; the returned function gives 1900 or 1904 after the next sync. */
export function queueDateSystem(ctx: Excel.RequestContext): () => 1900 | 1904 {
  const d = ctx.workbook.functions.date(1904, 1, 2).load("value");
  return () => (d.value === 1 ? 1904 : 1900);
}
