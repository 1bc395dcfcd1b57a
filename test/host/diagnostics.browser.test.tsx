// The Diagnostics view runs the port contract suite in the browser and shows the report:
// on the Office.js adapter over dev/excel (all pass), and against a broken port (failures shown as text).
import { render } from "preact";
import { Diagnostics, DiagnosticsView } from "../../src/taskpane/diagnostics/index.tsx";
import { CONTRACT_CHECKS } from "../../src/host/contract/index.ts";
import { MemoryPort, MemoryWorkbook } from "../../src/host/memory/index.ts";
import { memoryDriver } from "../../src/host/memory/driver.ts";
import { createDevExcel } from "../../dev/excel/index.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

function mount(node: preact.ComponentChild): HTMLElement {
  const root = document.createElement("div");
  document.body.append(root);
  render(node, root);
  return root;
}
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
function runButton(root: HTMLElement): HTMLButtonElement {
  return [...root.querySelectorAll("button")].find((b) => /Run/.test(b.textContent ?? ""))!;
}

describe("Diagnostics view", () => {
  it("runs the whole suite on the Office.js adapter over dev/excel and reports PASS", async () => {
    const { port, driver, dx } = adapterOnDevExcel();
    const root = mount(<Diagnostics port={port} driver={driver} />);
    expect(root.textContent).toContain(`Runs ${CONTRACT_CHECKS.length} checks`);
    runButton(root).click();
    await until(() => root.querySelector("[data-testid=diag-summary]") !== null);
    expect(root.querySelector("[data-testid=diag-summary]")!.textContent).toBe(
      `PASS: ${CONTRACT_CHECKS.length} passed, 0 failed, 0 need a person`,
    );
    expect(root.querySelectorAll("li[data-status=pass]").length).toBe(CONTRACT_CHECKS.length);
    expect(dx.workbook.sheets.map((s) => s.name)).toEqual(["Sheet1"]); // scratch sheets removed
  });

  it("the hidden route builds the adapter from the Excel global (as in real Excel); checks needing a person are skipped", async () => {
    const dx = createDevExcel();
    const g = globalThis as Record<string, unknown>;
    g.Excel = dx.Excel;
    g.Office = dx.Office;
    try {
      const root = mount(<DiagnosticsView />);
      runButton(root).click();
      await until(() => root.querySelector("[data-testid=diag-summary]") !== null);
      const summary = root.querySelector("[data-testid=diag-summary]")!.textContent!;
      expect(summary).toMatch(/^PASS: \d+ passed, 0 failed, 3 need a person$/);
      expect(root.querySelector("[data-testid=diag-text]")!.textContent).toContain("Excel: a number written into a cell formatted");
      expect(root.querySelector("[data-testid=diag-text]")!.textContent).toContain("SKIP");
    } finally {
      delete g.Excel;
      delete g.Office;
    }
  });

  it("shows failures with their detail as text", async () => {
    const wb = new MemoryWorkbook();
    const port = new MemoryPort(wb);
    port.tracked = async () => [{ name: "<img src=x onerror=alert(1)>", sheet: null, area: null }];
    const root = mount(
      <Diagnostics port={port} driver={memoryDriver(wb)} checks={CONTRACT_CHECKS.filter((c) => /follows rows inserted/.test(c.name))} />,
    );
    runButton(root).click();
    await until(() => root.querySelector("[data-testid=diag-summary]") !== null);
    expect(root.querySelector("[data-testid=diag-summary]")!.textContent).toBe("FAIL: 0 passed, 1 failed, 0 need a person");
    expect(root.querySelector("li[data-status=fail] pre")!.textContent).toContain("tracked name missing");
    expect(root.querySelector("img")).toBeNull();
  });

  it("without Excel it says so", () => {
    const root = mount(<DiagnosticsView />);
    expect(root.textContent).toContain("Diagnostics cannot run");
  });
});
