// XML helpers for the package layer.
//   - parseTree: the small parts (workbook, relationships, content types, styles, shared strings,
//     custom XML) as a light element tree, with saxes (namespace-aware, well-formedness checked).
//   - Tags / nextTag: a scanner over raw text that gives each tag's offsets, so an edit replaces
//     exactly the bytes it changes and copies everything else through. Sheet parts are only ever
//     scanned this way (never held as a tree).
//   - Excel's string escapes (_xHHHH_) for characters XML cannot hold.
import { SaxesParser, type SaxesTagNS } from "saxes";
import { xmlEscape, xmlUnescape } from "../excel/storage.ts";

export { xmlEscape, xmlUnescape };

export interface El {
  /** Local name (no prefix). */
  name: string;
  ns: string;
  /** Attributes by local name (a prefixed attribute also under its qualified name). */
  attrs: Record<string, string>;
  children: El[];
  text: string;
}

export function parseTree(xml: string, what: string): El {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: El[] = [];
  let root: El | null = null;
  let error: Error | null = null;
  parser.on("error", (e) => {
    error ??= e;
  });
  parser.on("opentag", (t: SaxesTagNS) => {
    const attrs: Record<string, string> = {};
    for (const a of Object.values(t.attributes)) {
      attrs[a.name] = a.value;
      attrs[a.local] ??= a.value;
    }
    const el: El = { name: t.local, ns: t.uri, attrs, children: [], text: "" };
    stack.at(-1)?.children.push(el);
    root ??= el;
    stack.push(el);
  });
  parser.on("text", (t) => {
    const top = stack.at(-1);
    if (top) top.text += t;
  });
  parser.on("cdata", (t) => {
    const top = stack.at(-1);
    if (top) top.text += t;
  });
  parser.on("closetag", () => void stack.pop());
  try {
    parser.write(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml).close();
  } catch (e) {
    error ??= e as Error;
  }
  if (error || !root) throw new Error(`${what} is not well-formed XML${error ? `: ${(error as Error).message}` : ""}`);
  return root;
}

export const child = (el: El, name: string): El | undefined => el.children.find((c) => c.name === name);
export const children = (el: El, name: string): El[] => el.children.filter((c) => c.name === name);

// ---------------------------------------------------------------- raw scanner

export interface Tag {
  start: number;
  /** Just past the closing ">". */
  end: number;
  /** Local name (prefix removed). */
  name: string;
  closing: boolean;
  selfClosing: boolean;
}

/** The next element tag at or after `from` (comments, PIs, CDATA and doctype skipped); null at the end. */
export function nextTag(s: string, from: number): Tag | null {
  let i = s.indexOf("<", from);
  while (i >= 0) {
    const c = s.charCodeAt(i + 1);
    if (c === 0x21 /* ! */) {
      const close = s.startsWith("<!--", i)
        ? s.indexOf("-->", i) + 3
        : s.startsWith("<![CDATA[", i)
          ? s.indexOf("]]>", i) + 3
          : s.indexOf(">", i) + 1;
      if (close <= 2) return null;
      i = s.indexOf("<", close);
      continue;
    }
    if (c === 0x3f /* ? */) {
      const close = s.indexOf("?>", i);
      if (close < 0) return null;
      i = s.indexOf("<", close + 2);
      continue;
    }
    const closing = c === 0x2f;
    let j = i + (closing ? 2 : 1);
    const nameStart = j;
    for (; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d === 0x20 || d === 0x3e || d === 0x2f || d === 0x09 || d === 0x0a || d === 0x0d) break;
    }
    const qname = s.slice(nameStart, j);
    // The tag ends at the first ">" outside quotes; most tags have no quoted ">" (the fast path).
    let gt = s.indexOf(">", j);
    if (gt < 0) return null;
    let quoted = false;
    for (let k = j; k < gt && !quoted; k++) {
      const d = s.charCodeAt(k);
      quoted = d === 0x22 || d === 0x27;
    }
    if (quoted) {
      let quote = 0;
      for (; j < s.length; j++) {
        const d = s.charCodeAt(j);
        if (quote) {
          if (d === quote) quote = 0;
        } else if (d === 0x22 || d === 0x27) quote = d;
        else if (d === 0x3e) break;
      }
      if (j >= s.length) return null;
      gt = j;
    }
    j = gt;
    const colon = qname.indexOf(":");
    return { start: i, end: j + 1, name: colon >= 0 ? qname.slice(colon + 1) : qname, closing, selfClosing: s.charCodeAt(j - 1) === 0x2f };
  }
  return null;
}

/** One attribute of the raw tag s[start, end) (by its exact qualified name), unescaped; undefined when absent. */
export function attrOf(s: string, start: number, end: number, name: string): string | undefined {
  let at = start;
  for (;;) {
    at = s.indexOf(name, at);
    if (at < 0 || at >= end) return undefined;
    const before = s.charCodeAt(at - 1);
    let k = at + name.length;
    if (before === 0x20 || before === 0x09 || before === 0x0a || before === 0x0d) {
      while (s.charCodeAt(k) === 0x20) k++;
      if (s.charCodeAt(k) === 0x3d /* = */) {
        k++;
        while (s.charCodeAt(k) === 0x20) k++;
        const q = s.charCodeAt(k);
        if (q === 0x22 || q === 0x27) {
          const close = s.indexOf(q === 0x22 ? '"' : "'", k + 1);
          const raw = s.slice(k + 1, close);
          return raw.includes("&") ? xmlUnescape(raw) : raw;
        }
      }
    }
    at += name.length;
  }
}

/** Attributes of a raw tag, by qualified name, unescaped. */
export function tagAttrs(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of raw.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1]!] = xmlUnescape(m[2] ?? m[3] ?? "");
  return out;
}

/** The raw span of the first element `name` (open tag to close tag, or a self-closing tag) after `from`. */
export function findElement(
  s: string,
  name: string,
  from = 0,
  before = s.length,
): { start: number; end: number; inner: number; innerEnd: number } | null {
  for (let t = nextTag(s, from); t && t.start < before; t = nextTag(s, t.end)) {
    if (t.name !== name || t.closing) continue;
    if (t.selfClosing) return { start: t.start, end: t.end, inner: t.end, innerEnd: t.end };
    let depth = 1;
    for (let u = nextTag(s, t.end); u; u = nextTag(s, u.end)) {
      if (u.name !== name || u.selfClosing) continue;
      depth += u.closing ? -1 : 1;
      if (depth === 0) return { start: t.start, end: u.end, inner: t.end, innerEnd: u.start };
    }
    return null;
  }
  return null;
}

/** Replace (or add) one attribute of the open tag at the start of `raw`. */
export function setAttr(rawTag: string, name: string, value: string): string {
  const re = new RegExp(`(\\s${name.replace(/[.:]/g, "\\$&")}\\s*=\\s*)(?:"[^"]*"|'[^']*')`);
  if (re.test(rawTag)) return rawTag.replace(re, `$1"${xmlEscape(value)}"`);
  const end = rawTag.endsWith("/>") ? rawTag.length - 2 : rawTag.length - 1;
  return `${rawTag.slice(0, end)} ${name}="${xmlEscape(value)}"${rawTag.slice(end)}`;
}

export function removeAttr(rawTag: string, name: string): string {
  return rawTag.replace(new RegExp(`\\s${name}\\s*=\\s*(?:"[^"]*"|'[^']*')`), "");
}

// ---------------------------------------------------------------- Excel's string escapes

/** Text of a cell as Excel stores it: characters XML cannot hold as _xHHHH_, a literal "_xHHHH_" guarded as _x005F_. */
export function excelText(s: string): string {
  const guarded = s.replace(/_(x[0-9A-Fa-f]{4}_)/g, "_x005F_$1");
  return xmlEscape(
    guarded.replace(
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g,
      (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}_`,
    ),
  );
}

/** The inverse of excelText's escapes (applied to text already XML-unescaped). */
export function fromExcelText(s: string): string {
  return s.includes("_x") ? s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : s;
}

// ---------------------------------------------------------------- prefixes

/** The prefix ("x:") a part uses for SpreadsheetML elements, "" when it uses the default namespace. */
export function mainPrefix(xml: string): string {
  const m = /<(\w+):(?:worksheet|workbook|styleSheet)\b/.exec(xml.slice(0, 4096));
  return m ? `${m[1]}:` : "";
}

/** A snippet of unprefixed elements written with `prefix` (attributes such as xml:space are not touched). */
export function withPrefix(snippet: string, prefix: string): string {
  return prefix ? snippet.replace(/<(\/?)(?=[A-Za-z])/g, `<$1${prefix}`) : snippet;
}
