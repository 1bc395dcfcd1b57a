// Where the adapter keeps Cellbound's data inside the workbook file:
//   - the workbook id (+ the document URL seen when it was recorded) in a custom XML part of namespace
//     WORKBOOK_NS, mirrored in the add-in's settings (WORKBOOK_SETTING);
//   - per-workbook data, one custom XML part per key, namespace DATA_NS.
// Custom XML parts travel with the file whatever the add-in's Id; settings belong to one add-in Id.
// Everything read back is validated: the file may have been edited or come from an older version.

import { z } from "zod";
import { sameData } from "../port.ts";

export const WORKBOOK_NS = "urn:cellbound:workbook:1";
export const DATA_NS = "urn:cellbound:data:1";
export const WORKBOOK_SETTING = "cellbound.workbook";

export const storedIdentitySchema = z.object({
  workbookId: z.string().uuid(),
  documentUrl: z.string().max(4096).nullable(),
});
export type StoredIdentity = z.infer<typeof storedIdentitySchema>;

/** True for characters XML 1.0 cannot hold at all, not even as a character reference. */
function notXmlChar(c: number): boolean {
  return (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0xfffe || c === 0xffff;
}

export function xmlEscape(s: string): string {
  for (let i = 0; i < s.length; i++) {
    if (notXmlChar(s.charCodeAt(i)))
      throw new Error(`text holds U+${s.charCodeAt(i).toString(16).padStart(4, "0")}, which XML cannot store`);
  }
  // \r is written as a reference: XML parsers turn a literal CR into LF.
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#xD;");
}

/** JSON text with U+FFFE/U+FFFF (legal in JSON strings, not in XML) written as \u escapes. */
function xmlSafeJson(json: string): string {
  return json.replace(/[\uFFFE\uFFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
export function xmlUnescape(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[e]!;
  });
}

export function identityXml(id: StoredIdentity): string {
  const url = id.documentUrl === null ? "<documentUrl/>" : `<documentUrl>${xmlEscape(id.documentUrl)}</documentUrl>`;
  return `<cellbound xmlns="${WORKBOOK_NS}"><workbookId>${xmlEscape(id.workbookId)}</workbookId>${url}</cellbound>`;
}

export function parseIdentityXml(xml: string): StoredIdentity | null {
  const id = /<workbookId>([^<]*)<\/workbookId>/.exec(xml);
  if (!id) return null;
  const url = /<documentUrl>([^<]*)<\/documentUrl>/.exec(xml);
  const parsed = storedIdentitySchema.safeParse({ workbookId: xmlUnescape(id[1]!), documentUrl: url ? xmlUnescape(url[1]!) : null });
  return parsed.success ? parsed.data : null;
}

export function dataXml(key: string, json: string): string {
  return `<data xmlns="${DATA_NS}" key="${xmlEscape(key)}">${xmlEscape(xmlSafeJson(json))}</data>`;
}

export function parseDataXml(xml: string): { key: string; json: string } | null {
  const m = /^\s*(?:<\?xml[^>]*\?>\s*)?<data\b[^>]*\skey="([^"]*)"[^>]*>([\s\S]*)<\/data>\s*$/.exec(xml);
  if (!m) return null;
  return { key: xmlUnescape(m[1]!), json: xmlUnescape(m[2]!) };
}

/** Whether a part's stored JSON (undefined when there is no part) is `expected` (issue 22, item 5). */
export function storedIs(json: string | undefined, expected: unknown): boolean {
  if (json === undefined) return expected === undefined || expected === null;
  try {
    return sameData(JSON.parse(json), expected);
  } catch {
    return false;
  }
}
