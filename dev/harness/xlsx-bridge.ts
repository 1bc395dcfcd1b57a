// The harness's "Open .xlsx…" and "Save as .xlsx" (Node side: the harness servers answer them).
// dev/excel's workbook ⇄ an .xlsx package through the file port's own mapping (src/host/xlsx): a
// snapshot becomes the memory model the file port saves, and a file becomes the model the file port
// loads. So what the pane leaves in the simulated workbook reaches the file exactly as the command line
// reads it, and back. Cellbound's names and custom XML parts map one to one; formulas travel as their
// values (the file port writes no formulas, and keeps a formula whose value is unchanged). A workbook
// opened from a file is saved into that file's package, with the pictures placed in the harness
// (issue 35 §4); the sheets keep the harness's ids in the file (XlsxPort.adoptSheetId).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { DATA_NS, WORKBOOK_NS, dataXml, identityXml, parseDataXml, parseIdentityXml } from "../../src/host/excel/storage.ts";
import { TRACK_PREFIX } from "../../src/host/excel/index.ts";
import type { MemoryWorkbook } from "../../src/host/memory/index.ts";
import { XlsxError } from "../../src/host/xlsx/errors.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { z } from "zod";
import { DevWorkbook, type Cell, type WorkbookSnapshot } from "../excel/model.ts";
import { COLUMN_WIDTH_PT, ROW_HEIGHT_PT } from "../excel/shapes.ts";

export const XLSX_SAVE_PATH = "/__harness/xlsx/save";
export const XLSX_OPEN_PATH = "/__harness/xlsx/open";

type ModelCell = MemoryWorkbook["sheets"][number]["cells"] extends Map<number, Map<number, infer C>> ? C : never;

/**
 * Packages opened with "Open .xlsx…", by the opened workbook's document URL and its Cellbound id: "Save
 * as .xlsx" edits the package it came from (its charts, pictures, comments and other parts stay as they
 * were; issue 35 §4) instead of writing a new one. Kept in this server's memory, the last few only.
 */
const opened = new Map<string, Buffer>();
const KEEP_OPENED = 16;
function remember(keys: ReadonlyArray<string | null>, bytes: Buffer): void {
  for (const k of keys) if (k) opened.set(k, bytes);
  while (opened.size > KEEP_OPENED * 2) opened.delete(opened.keys().next().value!);
}

const picturesSchema = z
  .array(
    z.object({
      sheetId: z.string(),
      name: z.string().min(1).max(255),
      base64: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/),
      left: z.number().min(0),
      top: z.number().min(0),
      width: z.number().positive(),
      height: z.number().positive(),
    }),
  )
  .default([]);

/** The workbook's cells, names, data, identity and pictures into the file port's model (sheets matched by id). */
function fillModel(port: XlsxPort, wb: DevWorkbook, pictures: z.infer<typeof picturesSchema>): void {
  const m = port.wb;
  const cellsOf = (s: DevWorkbook["sheets"][number]) => {
    const cells = new Map<number, Map<number, ModelCell>>();
    s.rows.forEach((row, r) =>
      row?.forEach((c, col) => {
        if (!c) return;
        let out = cells.get(r);
        if (!out) cells.set(r, (out = new Map()));
        const cell: ModelCell = { v: c.v, nf: c.nf ?? null };
        if (c.b) cell.b = true;
        if (c.fill !== undefined) cell.fill = c.fill;
        out.set(col, cell);
      }),
    );
    return cells;
  };
  const sheets = wb.sheets.map((s) => ({
    id: s.id,
    name: s.name,
    cells: cellsOf(s),
    ...(s.frozenRows ? { frozenRows: s.frozenRows } : {}),
  }));
  m.sheets.length = 0; // sheets the file has and the workbook no longer has are removed from the file
  m.sheets.push(...sheets);
  m.tracks.clear();
  for (const n of wb.names) {
    if (!n.name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase())) continue;
    const name = n.name.slice(TRACK_PREFIX.length);
    m.tracks.set(name.toLowerCase(), {
      name,
      sheetId: n.ref?.sheetId ?? "",
      area: n.ref && { row: n.ref.row, col: n.ref.col, rows: n.ref.rows, cols: n.ref.cols },
    });
  }
  for (const p of wb.xmlParts) {
    if (p.namespaceUri === DATA_NS) {
      const d = parseDataXml(p.xml);
      if (d) m.data.set(d.key, d.json);
    } else if (p.namespaceUri === WORKBOOK_NS) {
      const id = parseIdentityXml(p.xml);
      if (id) {
        m.workbookId = id.workbookId;
        m.recordedUrl = id.documentUrl;
      }
    }
  }
  m.pictures.clear();
  for (const p of pictures) {
    if (!wb.sheetById(p.sheetId)) continue;
    const list = m.pictures.get(p.sheetId) ?? [];
    const [col, row] = [Math.floor(p.left / COLUMN_WIDTH_PT), Math.floor(p.top / ROW_HEIGHT_PT)];
    list.push({ name: p.name, base64: p.base64, row, col, width: p.width, height: p.height });
    m.pictures.set(p.sheetId, list);
  }
}

/**
 * The .xlsx package of a dev/excel workbook snapshot (with its pictures: xlsx-snapshot.ts). A workbook
 * opened from a package is saved into that package; another gets a new one. Its sheet ids stay the
 * workbook's (the file keeps them beside its Cellbound id), so the command line's first refresh of the
 * saved file with nothing changed leaves it untouched.
 */
export function snapshotToXlsx(json: unknown): Buffer {
  const wb = DevWorkbook.restore(json);
  const pictures = picturesSchema.parse((json as { pictures?: unknown } | null)?.pictures);
  const identity = wb.xmlParts.filter((p) => p.namespaceUri === WORKBOOK_NS).map((p) => parseIdentityXml(p.xml))[0];
  const source = (wb.url && opened.get(wb.url)) || (identity && opened.get(identity.workbookId));
  const dir = mkdtempSync(path.join(tmpdir(), "cb-harness-"));
  try {
    const file = path.join(dir, wb.name.endsWith(".xlsx") ? wb.name : `${wb.name}.xlsx`);
    if (source) writeFileSync(file, source);
    const port = source ? XlsxPort.open(file, { checkData: false }) : XlsxPort.open(file, { create: wb.sheets[0]!.name });
    // A new package's first sheet is the workbook's first.
    if (!source) port.adoptSheetId(port.wb.sheets[0]!.id, wb.sheets[0]!.id);
    fillModel(port, wb, pictures);
    port.save();
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A dev/excel workbook snapshot of an .xlsx package (XlsxError for a file that is not one). The
 * document URL is the one recorded in the workbook's identity, as the file port reports it, else one
 * made from the file name.
 */
export function xlsxToSnapshot(bytes: Buffer, fileName: string): WorkbookSnapshot {
  const dir = mkdtempSync(path.join(tmpdir(), "cb-harness-"));
  try {
    const file = path.join(dir, path.basename(fileName) || "Book.xlsx");
    writeFileSync(file, bytes);
    const m = XlsxPort.open(file).wb;
    const wb = new DevWorkbook(m.recordedUrl ?? `https://files.example.com/${path.basename(file)}`, path.basename(file));
    remember([wb.url, m.workbookId], bytes);
    const snap = wb.snapshot();
    snap.sheets = m.sheets.map((s) => ({
      id: s.id,
      name: s.name,
      visibility: "Visible" as const,
      ...(s.frozenRows ? { frozenRows: s.frozenRows } : {}),
      cells: [...s.cells].flatMap(([r, row]) =>
        [...row].map(([c, cell]) => {
          const out: Cell =
            typeof cell.v === "number"
              ? { t: "n", v: cell.v }
              : typeof cell.v === "boolean"
                ? { t: "b", v: cell.v }
                : { t: "s", v: cell.v };
          if (cell.nf !== null) out.nf = cell.nf;
          if (cell.b) out.b = true;
          if (cell.fill !== undefined) out.fill = cell.fill;
          return [r, c, out] as [number, number, Cell];
        }),
      ),
    }));
    snap.activeSheetId = snap.sheets[0]!.id;
    snap.names = [...m.tracks.values()].map((t) => ({
      name: TRACK_PREFIX + t.name,
      visible: false,
      comment: "Cellbound placement (do not edit)",
      ref: t.area && m.sheets.some((s) => s.id === t.sheetId) ? { sheetId: t.sheetId, ...t.area } : null,
    }));
    let part = 1;
    const partId = () => `{${(part++).toString(16).toUpperCase().padStart(8, "0")}-CB00-4000-8000-000000000000}`;
    snap.xmlParts = [
      ...(m.workbookId
        ? [{ id: partId(), namespaceUri: WORKBOOK_NS, xml: identityXml({ workbookId: m.workbookId, documentUrl: m.recordedUrl }) }]
        : []),
      ...[...m.data].map(([key, json]) => ({ id: partId(), namespaceUri: DATA_NS, xml: dataXml(key, json) })),
    ];
    snap.nextPart = part;
    return DevWorkbook.restore(snap).snapshot();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const MAX_BODY = 200 * 1024 * 1024;

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy(new Error("too large"));
      else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Answer the harness's open/save requests; false when the request is not one of them. */
export function handleXlsxBridge(req: IncomingMessage, res: ServerResponse): boolean {
  const url = new URL(req.url ?? "/", "http://x");
  if (req.method !== "POST" || (url.pathname !== XLSX_SAVE_PATH && url.pathname !== XLSX_OPEN_PATH)) return false;
  void body(req).then(
    (b) => {
      try {
        if (url.pathname === XLSX_SAVE_PATH) {
          const bytes = snapshotToXlsx(JSON.parse(b.toString("utf8")));
          res.writeHead(200, { "content-type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" }).end(bytes);
        } else {
          const snap = xlsxToSnapshot(b, url.searchParams.get("name") ?? "Book.xlsx");
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(snap));
        }
      } catch (e) {
        const message = e instanceof XlsxError ? e.message : `could not convert: ${(e as Error).message}`;
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
      }
    },
    (e: unknown) => res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: String(e) })),
  );
  return true;
}
