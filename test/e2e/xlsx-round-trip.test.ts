// Issue 21's whole story, end to end: place in the pane → "Save as .xlsx" → `cellbound refresh` on the
// file (the command line, as a scheduled job runs it) → a hand edit made in the file's sheet XML →
// "Open .xlsx…" → the pane shows the placement with the command line's refresh time, and the edit as
// edited by hand.
import { readFileSync, writeFileSync } from "node:fs";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Page } from "playwright";
import { createPlatformClient, type ExternalPlacement } from "../../src/api/index.ts";
import { runCli } from "../../src/cli/run.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { ZipReader, writeZip } from "../../src/host/xlsx/zip.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { clickCell, openHarness, startRig, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;
let problems: string[];
const tmp = tempDir("cb-e2e-xlsx-");

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane, problems } = await openHarness(rig));
}, 240_000);
afterAll(async () => {
  await rig?.stop();
  tmp.remove();
});

const card = (text: string) => pane.locator("li.cb-card[data-placement]").filter({ hasText: text });

it(
  "pane → Save as .xlsx → cellbound refresh → Open .xlsx… (up to date, the job's time) → hand edit in the file → Open .xlsx… (edited)",
  { timeout: 180_000 },
  async () => {
    // Sign in and place.
    await pane.getByRole("button", { name: "Sign in", exact: true }).click();
    const use = pane.getByRole("button", { name: /^Use / }).first();
    await pwExpect(pane.getByRole("button", { name: "Refresh all", exact: true }).or(use)).toBeVisible({ timeout: 20_000 });
    if (await use.isVisible()) await use.click();
    await clickCell(page, "B2");
    await pane.getByRole("button", { name: "Reports", exact: true }).click();
    await pane.getByRole("button", { name: /Place report Analyst pipeline/ }).click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    await pwExpect(card("Analyst pipeline")).toContainText("Up to date");

    // Save as .xlsx: the browser downloads the file.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Save as .xlsx" }).click()]);
    const file = tmp.file("Q3 numbers.xlsx");
    await download.saveAs(file);
    const saved = XlsxPort.open(file);
    const workbookId = saved.wb.workbookId!;
    expect((await saved.tracked()).length).toBe(1);

    // The scheduled job.
    let out = "";
    const code = await runCli(["refresh", file, "--json"], {
      stdout: (t) => void (out += t),
      stderr: () => {},
      progress: false,
      env: {
        CELLBOUND_PLATFORM_URL: rig.platform.info.baseUrl,
        CELLBOUND_API_KEY: rig.platform.info.apiKeys.analyst,
        CELLBOUND_DATA_URL: rig.platform.info.dataUrl,
      },
    });
    expect(code).toBe(0);
    expect((JSON.parse(out) as { files: Array<{ placements: Array<{ outcome: string }> }> }).files[0]!.placements[0]!.outcome).toMatch(
      /^(refreshed|unchanged)$/,
    );
    const client = createPlatformClient({ baseUrl: rig.platform.info.baseUrl, credential: rig.platform.info.apiKeys.analyst });
    const placements: ExternalPlacement[] = [];
    for await (const p of client.iterateExternalPlacements(workbookId)) placements.push(p);
    const refreshedAt = placements[0]!.refreshedAt;

    // Opened as the job left it: Up to date, with the job's refresh time.
    await page.getByLabel("Open .xlsx…").setInputFiles(file);
    await pwExpect(page.getByTestId("document-url")).toHaveText("https://files.example.com/Q3 numbers.xlsx", { timeout: 20_000 });
    await pwExpect(card("Analyst pipeline")).toContainText("Up to date", { timeout: 30_000 });
    await pwExpect(card("Analyst pipeline").locator(`span[title="${refreshedAt}"]`)).toHaveCount(1);

    // A person edits C4 in the file (in the sheet XML, as Excel would save it).
    const z = new ZipReader(file, readFileSync(file));
    const sheetName = z.entries.find((e) => e.name.startsWith("xl/worksheets/sheet"))!.name;
    const xml = z.text(sheetName);
    const edited = xml.replace(/<c r="C4"([^>]*?)(?: t="[^"]*")?>(?:(?!<\/c>).)*<\/c>/, '<c r="C4"$1><v>424242</v></c>');
    expect(edited).not.toBe(xml);
    writeFileSync(
      file,
      writeZip(
        z.bytes,
        z.entries.map((e) => (e.name === sheetName ? { name: e.name, data: Buffer.from(edited) } : { name: e.name, from: e })),
      ),
    );

    // Opened again: the pane reloads on it and names the edit.
    await page.getByLabel("Open .xlsx…").setInputFiles(file);
    const c = card("Analyst pipeline");
    await pwExpect(c).toContainText("Edited by hand", { timeout: 30_000 });
    await pwExpect(c.locator(`span[title="${refreshedAt}"]`)).toHaveCount(1);
    await pwExpect(c).toContainText(/Rows? [\d–]+ edited by hand|Edited by hand within/);
    expect(problems).toEqual([]);
  },
);
