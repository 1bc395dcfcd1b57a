// Renders a published dashboard without a browser: each widget's query runs on the sample data,
// Vega-Lite compiles the same spec the embed page draws, Vega renders it to SVG (renderer "none"),
// the widgets are stacked under the dashboard title, and @resvg/resvg-js rasterises the SVG to PNG.
// PDF: a minimal valid PDF 1.4 with the page image embedded (RGB, FlateDecode).
import { deflateSync } from "node:zlib";
import * as vega from "vega";
import { compile } from "vega-lite";
import { Resvg } from "@resvg/resvg-js";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { SeededDashboard } from "./embed";
import { vegaLiteSpec, widgetQuery, widgetRows } from "./dashboard-spec";
import { loadWidgetRows } from "./embed-page";

const WIDTH = 420;
/** Pixels per SVG unit of the PNG (1: the picture lands in Excel at the dashboard's own size). */
const ZOOM = 1;
const CHART_H = 180;

const xmlText = (s: string) => s.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);

/** The dashboard as one SVG document. */
export async function dashboardSvg(conn: DuckDBConnection, d: SeededDashboard, timezone: string | null = null): Promise<string> {
  const parts: Array<{ svg: string; w: number; h: number }> = [];
  for (const w of d.widgets) {
    const rows = widgetRows(w, await loadWidgetRows(conn, widgetQuery(w, [], timezone)));
    const spec = compile(vegaLiteSpec(w, rows, { dark: false, width: WIDTH - 80, height: CHART_H }) as never).spec;
    const view = new vega.View(vega.parse(spec), { renderer: "none" });
    const svg = await view.toSVG();
    view.finalize();
    const m = /<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"/.exec(svg);
    parts.push({ svg, w: Number(m?.[1] ?? WIDTH), h: Number(m?.[2] ?? CHART_H + 60) });
  }
  const width = Math.ceil(Math.max(WIDTH, ...parts.map((p) => p.w)) + 24);
  let y = 48;
  const body = parts
    .map((p) => {
      const inner = p.svg.replace(/^<svg/, `<svg x="12" y="${y}"`);
      y += p.h + 16;
      return inner;
    })
    .join("");
  const height = Math.ceil(y);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="100%" height="100%" fill="#ffffff"/><text x="12" y="30" font-family="sans-serif" font-size="18" font-weight="bold" fill="#222">${xmlText(d.title)}</text>${body}</svg>`
  );
}

export function svgToPng(svg: string): { png: Buffer; width: number; height: number; rgba: Buffer } {
  const r = new Resvg(svg, {
    background: "#ffffff",
    fitTo: { mode: "zoom", value: ZOOM },
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  }).render();
  return { png: r.asPng(), width: r.width, height: r.height, rgba: r.pixels };
}

/** A one-page PDF showing the image at its size (a CSS pixel is 0.75 pt; the PNG has ZOOM pixels per CSS pixel). */
export function pdfWithImage(rgba: Buffer, width: number, height: number): Buffer {
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    rgb[j] = rgba[i]!;
    rgb[j + 1] = rgba[i + 1]!;
    rgb[j + 2] = rgba[i + 2]!;
  }
  const data = deflateSync(rgb);
  const pw = ((width * 0.75) / ZOOM).toFixed(2);
  const ph = ((height * 0.75) / ZOOM).toFixed(2);
  const content = `q ${pw} 0 0 ${ph} 0 0 cm /Im0 Do Q`;
  const objects: Array<Buffer> = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pw} ${ph}] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>`),
    Buffer.concat([
      Buffer.from(
        `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      ),
      data,
      Buffer.from("\nendstream"),
    ]),
    Buffer.from(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`),
  ];
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n", "latin1")];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(offset);
    const c = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from("\nendobj\n")]);
    chunks.push(c);
    offset += c.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(chunks);
}
