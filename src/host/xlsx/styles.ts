// xl/styles.xml: what a cell's style index means to the port (number format, bold, fill), and the
// style index for a cell whose format the port changes — derived from the cell's old style, so its
// borders, alignment and protection stay. New entries are appended; existing ones never change.
import { findElement, mainPrefix, nextTag, setAttr, tagAttrs, withPrefix, xmlEscape } from "./xml.ts";

/** Excel's built-in number formats (ECMA-376 Part 1, 18.8.30), as Excel reports them in en-US. */
export const BUILTIN_FORMATS: Readonly<Record<number, string>> = {
  0: "General",
  1: "0",
  2: "0.00",
  3: "#,##0",
  4: "#,##0.00",
  9: "0%",
  10: "0.00%",
  11: "0.00E+00",
  12: "# ?/?",
  13: "# ??/??",
  14: "m/d/yyyy",
  15: "d-mmm-yy",
  16: "d-mmm",
  17: "mmm-yy",
  18: "h:mm AM/PM",
  19: "h:mm:ss AM/PM",
  20: "h:mm",
  21: "h:mm:ss",
  22: "m/d/yyyy h:mm",
  37: "#,##0 ;(#,##0)",
  38: "#,##0 ;[Red](#,##0)",
  39: "#,##0.00;(#,##0.00)",
  40: "#,##0.00;[Red](#,##0.00)",
  45: "mm:ss",
  46: "[h]:mm:ss",
  47: "mmss.0",
  48: "##0.0E+0",
  49: "@",
};
/** Built-ins whose meaning follows the reader's locale: never chosen for a format we write. */
const LOCALE_DEPENDENT = new Set([14, 22]);

export interface CellStyle {
  /** null = General. */
  nf: string | null;
  bold: boolean;
  /** "#RRGGBB", or undefined for no (or a theme) fill. */
  fill: string | undefined;
}

interface Section {
  items: string[];
}

export const MINIMAL_STYLES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  "</styleSheet>";

export class Styles {
  private readonly numFmts = new Map<number, string>();
  private readonly fonts: Section;
  private readonly fills: Section;
  private readonly xfs: Section;
  private readonly added = { numFmts: [] as string[], fonts: 0, fills: 0, xfs: 0 };
  private readonly cache = new Map<number, CellStyle>();
  private readonly derived = new Map<string, number>();

  /** The prefix the part uses for its elements ("" or e.g. "x:"). */
  private readonly p: string;

  constructor(readonly text: string) {
    this.p = mainPrefix(text);
    const nf = findElement(text, "numFmts");
    if (nf) {
      for (let t = nextTag(text, nf.inner); t && t.start < nf.innerEnd; t = nextTag(text, t.end)) {
        if (t.name !== "numFmt" || t.closing) continue;
        const a = tagAttrs(text.slice(t.start, t.end));
        if (a.numFmtId !== undefined && a.formatCode !== undefined) this.numFmts.set(Number(a.numFmtId), a.formatCode);
      }
    }
    this.fonts = { items: items(text, "fonts", "font") };
    this.fills = { items: items(text, "fills", "fill") };
    this.xfs = { items: items(text, "cellXfs", "xf") };
  }

  get changed(): boolean {
    return this.added.numFmts.length + this.added.fonts + this.added.fills + this.added.xfs > 0;
  }

  formatCode(id: number): string | null {
    const code = this.numFmts.get(id) ?? BUILTIN_FORMATS[id];
    return code === undefined || code === "General" ? null : code;
  }

  /** What style index `s` (absent = 0) shows. */
  style(s: number): CellStyle {
    let hit = this.cache.get(s);
    if (hit) return hit;
    const xf = this.xfs.items[s] ?? this.xfs.items[0] ?? "<xf/>";
    const a = tagAttrs(openTag(xf));
    const font = this.fonts.items[Number(a.fontId ?? 0)] ?? "";
    const fill = this.fills.items[Number(a.fillId ?? 0)] ?? "";
    hit = { nf: this.formatCode(Number(a.numFmtId ?? 0)), bold: isBold(font), fill: fillColour(fill) };
    this.cache.set(s, hit);
    return hit;
  }

  /** The index of a style like `base` but showing `want` (appended once, then reused). */
  derive(base: number, want: CellStyle): number {
    const have = this.style(base);
    if (have.nf === want.nf && have.bold === want.bold && have.fill === want.fill) return base;
    const key = `${base}\u0000${want.nf}\u0000${want.bold}\u0000${want.fill}`;
    const known = this.derived.get(key);
    if (known !== undefined) return known;
    let xf = this.xfs.items[base] ?? this.xfs.items[0] ?? '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>';
    let open = openTag(xf);
    const attrs = tagAttrs(open);
    if (have.nf !== want.nf) {
      open = setAttr(setAttr(open, "numFmtId", String(this.numFmtId(want.nf))), "applyNumberFormat", "1");
    }
    if (have.bold !== want.bold) {
      const font = this.fonts.items[Number(attrs.fontId ?? 0)] ?? "<font/>";
      open = setAttr(setAttr(open, "fontId", String(this.add(this.fonts, withBold(font, want.bold, this.p), "fonts"))), "applyFont", "1");
    }
    if (have.fill !== want.fill) {
      const fillId = want.fill === undefined ? 0 : this.add(this.fills, withPrefix(solidFill(want.fill), this.p), "fills");
      open = setAttr(setAttr(open, "fillId", String(fillId)), "applyFill", "1");
    }
    xf = open + xf.slice(openTag(xf).length);
    const existing = this.xfs.items.indexOf(xf);
    const id = existing >= 0 ? existing : this.add(this.xfs, xf, "xfs");
    this.derived.set(key, id);
    return id;
  }

  private add(section: Section, item: string, kind: "fonts" | "fills" | "xfs"): number {
    const i = section.items.indexOf(item);
    if (i >= 0) return i;
    section.items.push(item);
    this.added[kind]++;
    return section.items.length - 1;
  }

  private numFmtId(code: string | null): number {
    if (code === null || code === "General") return 0;
    for (const [id, c] of Object.entries(BUILTIN_FORMATS)) if (c === code && !LOCALE_DEPENDENT.has(Number(id))) return Number(id);
    for (const [id, c] of this.numFmts) if (id >= 164 && c === code) return id;
    const id = Math.max(163, ...this.numFmts.keys()) + 1;
    this.numFmts.set(id, code);
    this.added.numFmts.push(withPrefix(`<numFmt numFmtId="${id}" formatCode="${xmlEscape(code)}"/>`, this.p));
    return id;
  }

  /** styles.xml with the appended entries (the original text when nothing was added). */
  serialize(): string {
    if (!this.changed) return this.text;
    let out = this.text;
    // From the last section in the file to the first, so earlier offsets stay valid.
    const edits: Array<{ name: string; item: string; added: string[]; count: number }> = [
      { name: "cellXfs", item: "xf", added: this.xfs.items.slice(this.xfs.items.length - this.added.xfs), count: this.xfs.items.length },
      {
        name: "fills",
        item: "fill",
        added: this.fills.items.slice(this.fills.items.length - this.added.fills),
        count: this.fills.items.length,
      },
      {
        name: "fonts",
        item: "font",
        added: this.fonts.items.slice(this.fonts.items.length - this.added.fonts),
        count: this.fonts.items.length,
      },
      { name: "numFmts", item: "numFmt", added: this.added.numFmts, count: this.numFmts.size },
    ];
    for (const e of edits) {
      if (e.added.length === 0) continue;
      const el = findElement(out, e.name);
      if (!el) {
        // Only numFmts may be missing: it comes first in the stylesheet.
        const root = nextTag(out, 0)!;
        const section = withPrefix(`<numFmts count="${e.added.length}">`, this.p) + e.added.join("") + withPrefix("</numFmts>", this.p);
        out = out.slice(0, root.end) + section + out.slice(root.end);
        continue;
      }
      const open = out.slice(el.start, el.inner === el.end ? el.end : el.inner);
      if (el.inner === el.end) {
        const tag = setAttr(open.replace(/\/>$/, ">"), "count", String(e.count));
        out = out.slice(0, el.start) + tag + e.added.join("") + withPrefix(`</${e.name}>`, this.p) + out.slice(el.end);
      } else {
        out =
          out.slice(0, el.start) +
          setAttr(open, "count", String(e.count)) +
          out.slice(el.inner, el.innerEnd) +
          e.added.join("") +
          out.slice(el.innerEnd);
      }
    }
    return out;
  }
}

function items(text: string, section: string, item: string): string[] {
  const el = findElement(text, section);
  if (!el) return [];
  const out: string[] = [];
  for (let at = el.inner; at < el.innerEnd;) {
    const e = findElement(text, item, at, el.innerEnd);
    if (!e) break;
    out.push(text.slice(e.start, e.end));
    at = e.end;
  }
  return out;
}

function openTag(raw: string): string {
  return raw.slice(0, nextTag(raw, 0)?.end ?? raw.length);
}

function isBold(font: string): boolean {
  const b = /<(?:\w+:)?b(\s[^>]*)?\/?>/.exec(font);
  if (!b) return false;
  const val = tagAttrs(b[0]).val;
  return val === undefined || val === "1" || val === "true";
}

function withBold(font: string, bold: boolean, p: string): string {
  const plain = font.replace(/<(?:\w+:)?b(\s[^>]*)?\/>/, "").replace(/<(?:\w+:)?b(\s[^>]*)?><\/(?:\w+:)?b>/, "");
  if (!bold) return plain;
  const open = openTag(plain);
  if (open.endsWith("/>")) return `${open.slice(0, -2)}>${withPrefix("<b/></font>", p)}`;
  return `${open}${withPrefix("<b/>", p)}${plain.slice(open.length)}`;
}

function fillColour(fill: string): string | undefined {
  const p = /<(?:\w+:)?patternFill\b[^>]*>/.exec(fill);
  if (!p || tagAttrs(p[0]).patternType !== "solid") return undefined;
  const fg = /<(?:\w+:)?fgColor\b[^>]*>/.exec(fill);
  const rgb = fg ? tagAttrs(fg[0]).rgb : undefined;
  return rgb && /^[0-9A-Fa-f]{6,8}$/.test(rgb) ? `#${rgb.slice(-6).toUpperCase()}` : undefined;
}

function solidFill(colour: string): string {
  return `<fill><patternFill patternType="solid"><fgColor rgb="FF${colour.slice(1).toUpperCase()}"/><bgColor indexed="64"/></patternFill></fill>`;
}
