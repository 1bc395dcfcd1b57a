// Parses manifest XML into a small element tree that remembers line numbers
// (saxes, namespace-aware). Well-formedness errors are returned, not thrown,
// so the validator can report them like any other problem.
import { SaxesParser } from "saxes";

export interface XmlAttr {
  /** Qualified name as written, e.g. "xsi:type", "DefaultValue". */
  name: string;
  local: string;
  uri: string;
  value: string;
  line: number;
}

export interface XmlElement {
  local: string;
  /** Namespace URI ("" when none). */
  uri: string;
  /** Name as written, with its prefix, for messages. */
  qname: string;
  line: number;
  attrs: XmlAttr[];
  children: XmlElement[];
  /** Concatenated character data directly inside this element. */
  text: string;
  parent: XmlElement | null;
}

export const XSI = "http://www.w3.org/2001/XMLSchema-instance";

export type ParseResult = { ok: true; root: XmlElement } | { ok: false; line: number; message: string };

export function parseXml(source: string): ParseResult {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let startLine = 1;
  const attrLines = new Map<string, number>();
  let failure: { line: number; message: string } | null = null;

  parser.on("opentagstart", () => {
    startLine = parser.line;
    attrLines.clear();
  });
  parser.on("attribute", (attr) => {
    attrLines.set(attr.name, parser.line);
  });
  parser.on("opentag", (tag) => {
    const parent = stack.at(-1) ?? null;
    const element: XmlElement = {
      local: tag.local,
      uri: tag.uri,
      qname: tag.name,
      line: startLine,
      attrs: Object.values(tag.attributes).map((a) => ({
        name: a.name,
        local: a.local,
        uri: a.uri,
        value: a.value,
        line: attrLines.get(a.name) ?? startLine,
      })),
      children: [],
      text: "",
      parent,
    };
    if (parent) parent.children.push(element);
    else root = element;
    if (!tag.isSelfClosing) stack.push(element);
  });
  parser.on("text", (text) => {
    const top = stack.at(-1);
    if (top) top.text += text;
  });
  parser.on("cdata", (text) => {
    const top = stack.at(-1);
    if (top) top.text += text;
  });
  parser.on("closetag", (tag) => {
    if (!tag.isSelfClosing) stack.pop();
  });
  parser.on("error", (err) => {
    // saxes prefixes messages with "line:column: "; keep only the message.
    failure ??= { line: parser.line, message: err.message.replace(/^\d+:\d+:\s*/, "") };
  });

  try {
    parser.write(source).close();
  } catch (err) {
    failure ??= { line: parser.line, message: err instanceof Error ? err.message : String(err) };
  }
  if (failure) return { ok: false, ...failure };
  if (!root) return { ok: false, line: 1, message: "the document has no root element" };
  return { ok: true, root };
}

/** The value of an attribute by local name (no namespace) or by namespace + local name. */
export function attr(element: XmlElement, local: string, uri = ""): XmlAttr | undefined {
  return element.attrs.find((a) => a.local === local && a.uri === uri);
}

/** xsi:type with any prefix removed (types are compared by local name). */
export function xsiType(element: XmlElement): XmlAttr | undefined {
  const found = attr(element, "type", XSI);
  if (!found) return undefined;
  return { ...found, value: found.value.replace(/^[^:]*:/, "") };
}
