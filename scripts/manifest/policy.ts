// Cellbound's own rules for its manifest, beyond the schema: an Excel add-in
// (Workbook host) needing ExcelApi 1.12 or later, whose ribbon overrides only
// name hosts the manifest declares, with a Home-tab button opening the pane.
import type { Problem } from "./structure.ts";
import { walk } from "./references.ts";
import { attr, xsiType, type XmlElement } from "./xml.ts";

export const MIN_EXCEL_API = "1.12";

export function checkPolicy(root: XmlElement): Problem[] {
  const problems: Problem[] = [];
  const report = (line: number, message: string) => problems.push({ line, message });
  const child = (parent: XmlElement | undefined, local: string) => parent?.children.find((e) => e.local === local);

  // Hosts: Workbook, and every VersionOverrides host among the declared hosts.
  const hosts = child(root, "Hosts");
  const hostNames = new Set((hosts?.children ?? []).map((h) => attr(h, "Name")?.value));
  if (!hostNames.has("Workbook")) {
    report((hosts ?? root).line, `Cellbound is an Excel add-in: <Hosts> must contain <Host Name="Workbook"/>`);
  }
  const overrides = child(root, "VersionOverrides");
  for (const host of child(overrides, "Hosts")?.children ?? []) {
    const type = xsiType(host);
    if (type && !hostNames.has(type.value)) {
      report(host.line, `VersionOverrides names host ${type.value}, which the top-level <Hosts> does not declare`);
    }
  }

  // Requirements: ExcelApi at least MIN_EXCEL_API.
  const sets = child(child(root, "Requirements"), "Sets");
  const excelApi = sets?.children.find((s) => attr(s, "Name")?.value === "ExcelApi");
  const declared = excelApi && (attr(excelApi, "MinVersion")?.value ?? attr(sets!, "DefaultMinVersion")?.value ?? "1.1");
  if (!excelApi || !declared) {
    report(
      (sets ?? child(root, "Requirements") ?? root).line,
      `<Requirements> must require <Set Name="ExcelApi" MinVersion="${MIN_EXCEL_API}"/>`,
    );
  } else if (compareVersions(declared, MIN_EXCEL_API) < 0) {
    report(excelApi.line, `ExcelApi MinVersion ${declared} is below ${MIN_EXCEL_API}, the minimum Cellbound's code needs`);
  }

  // A Home-tab ribbon button that opens the task pane.
  const opensPane = [...walk(root)].some(
    (tab) =>
      tab.local === "OfficeTab" &&
      attr(tab, "id")?.value === "TabHome" &&
      [...walk(tab)].some((e) => e.local === "Action" && xsiType(e)?.value === "ShowTaskpane"),
  );
  if (!opensPane) {
    report(
      (overrides ?? root).line,
      `no ribbon button on the Home tab (<OfficeTab id="TabHome">) opens the task pane (Action xsi:type="ShowTaskpane")`,
    );
  }
  return problems;
}

/** Numeric comparison of dotted versions ("1.9" < "1.12"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}
