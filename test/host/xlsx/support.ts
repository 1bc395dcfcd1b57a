// Shared by the .xlsx tests: temporary folders, and "what the file holds" = the model a fresh port
// reads from it, compared with the model of the port that saved it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { MemoryWorkbook } from "../../../src/host/memory/index.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { ZipReader, writeZip, type ZipOut } from "../../../src/host/xlsx/zip.ts";

export function tempDir(prefix = "cb-xlsx-"): { dir: string; file: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, file: (name) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A plain picture of a workbook model, for deep comparison (sheet ids by name). */
export function modelOf(wb: MemoryWorkbook): unknown {
  const nameOf = (id: string) => wb.sheets.find((s) => s.id === id)?.name ?? null;
  return {
    sheets: wb.sheets.map((s) => ({
      name: s.name,
      frozenRows: s.frozenRows ?? 0,
      cells: [...s.cells]
        .filter(([, row]) => row.size > 0)
        .sort(([a], [b]) => a - b)
        .map(([r, row]) => [
          r,
          [...row]
            // A cell that shows nothing (no value, General, not bold, no fill) is the same as no cell.
            .filter(([, cell]) => cell.v !== "" || cell.nf !== null || cell.b === true || cell.fill !== undefined)
            .sort(([a], [b]) => a - b)
            .map(([c, cell]) => [c, cell.v, cell.nf, cell.b === true, cell.fill ?? null]),
        ])
        .filter(([, row]) => (row as unknown[]).length > 0),
    })),
    tracks: [...wb.tracks.values()]
      .map((t) => ({ name: t.name, sheet: t.area ? nameOf(t.sheetId) : null, area: t.area && nameOf(t.sheetId) ? t.area : null }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    data: [...wb.data].map(([k, json]) => [k, JSON.parse(json) as unknown]).sort(([a], [b]) => String(a).localeCompare(String(b))),
    workbookId: wb.workbookId,
    recordedUrl: wb.recordedUrl,
  };
}

/** Save `port` and check that a fresh port on the file sees exactly its model; returns the fresh port. */
export function saveAndReopen(port: XlsxPort): XlsxPort {
  port.save();
  const again = XlsxPort.open(port.file, { checkData: false }); // the port alone may track names without data
  const want = JSON.stringify(modelOf(port.wb));
  const got = JSON.stringify(modelOf(again.wb));
  if (got !== want) {
    let i = 0;
    while (i < want.length && want[i] === got[i]) i++;
    throw new Error(
      `the file does not hold what the port wrote: …${want.slice(Math.max(0, i - 150), i + 150)}… was read back as …${got.slice(Math.max(0, i - 150), i + 150)}…`,
    );
  }
  return again;
}

/**
 * Change a package's parts as another program would save them: `edit` gets each text part and returns
 * its new text (undefined: unchanged); `add` adds parts. Other entries are copied through.
 */
export function patchPackage(
  file: string,
  edit: (name: string, text: string) => string | undefined,
  add: Record<string, string> = {},
): void {
  const z = new ZipReader(file, readFileSync(file));
  const parts: ZipOut[] = z.entries.map((e) => {
    const text = /\.(xml|rels|vml)$/.test(e.name) ? edit(e.name, z.text(e.name)) : undefined;
    return text === undefined ? { name: e.name, from: e } : { name: e.name, data: Buffer.from(text, "utf8") };
  });
  for (const [name, text] of Object.entries(add)) parts.push({ name, data: Buffer.from(text, "utf8") });
  writeFileSync(file, writeZip(z.bytes, parts));
}

/** A part's text as the file holds it. */
export function partText(file: string, name: string): string {
  return new ZipReader(file, readFileSync(file)).text(name);
}
