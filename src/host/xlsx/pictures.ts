// Pictures into a sheet's drawing (issue 35 §4: the harness's Save as .xlsx keeps a dashboard picture
// placed in the pane). A picture of the model is written as Excel writes an inserted picture: a
// one-cell anchor with an <xdr:pic> in the sheet's drawing part (xl/drawings/drawingN.xml, created
// with its <drawing r:id> in the sheet when the sheet has none), its image in xl/media with a
// relationship from the drawing. A picture whose name the drawing already has is replaced in place
// when its image, cell or size differ; every other anchor of the drawing (charts, shapes, the user's
// pictures) keeps its bytes. Nothing is removed: a picture the model does not hold stays in the file.
import path from "node:path";
import { findElement, nextTag, tagAttrs, xmlEscape } from "./xml.ts";

/** A picture as the memory model holds it: its top-left cell and its size in points. */
export interface ModelPicture {
  name: string;
  base64: string;
  row: number;
  col: number;
  width: number;
  height: number;
}

/** The package as the render edits it: a part's current text or bytes, and writing one. */
export interface PartEdits {
  has(name: string): boolean;
  text(name: string): string;
  bytes(name: string): Buffer;
  put(name: string, data: Buffer): void;
  /** A part name with the prefix and extension that neither the package nor this render uses. */
  free(prefix: string, ext: string): string;
  types: string;
}

const NS_XDR = "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing";
const NS_A = "http://schemas.openxmlformats.org/drawingml/2006/main";
const NS_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL = {
  drawing: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing",
  image: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image",
};
const CT_DRAWING = "application/vnd.openxmlformats-officedocument.drawing+xml";
const EMU_PER_POINT = 12_700;
const EMPTY_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';

const dirOf = (part: string) => (path.posix.dirname(part) === "." ? "" : path.posix.dirname(part));
const relsPartOf = (part: string) => path.posix.join(dirOf(part), "_rels", `${path.posix.basename(part)}.rels`);
const resolve = (base: string, target: string) =>
  target.startsWith("/") ? target.slice(1) : path.posix.normalize(path.posix.join(base, target)).replace(/^(?:\.\.?\/)+/, "");

interface Rel {
  id: string;
  type: string;
  target: string;
}
function relsOf(edits: PartEdits, part: string): Rel[] {
  const relsPart = relsPartOf(part);
  if (!edits.has(relsPart)) return [];
  const xml = edits.text(relsPart);
  const out: Rel[] = [];
  for (let t = nextTag(xml, 0); t; t = nextTag(xml, t.end)) {
    if (t.name !== "Relationship" || t.closing) continue;
    const a = tagAttrs(xml.slice(t.start, t.end));
    if (a.TargetMode !== "External") out.push({ id: a.Id ?? "", type: a.Type ?? "", target: resolve(dirOf(part), a.Target ?? "") });
  }
  return out;
}
/** Add a relationship from `part` (creating its .rels); returns its id. */
function addRel(edits: PartEdits, part: string, type: string, target: string): string {
  const relsPart = relsPartOf(part);
  const xml = edits.has(relsPart) ? edits.text(relsPart) : EMPTY_RELS;
  const ids = new Set([...xml.matchAll(/\bId="([^"]*)"/g)].map((m) => m[1]));
  let n = 1;
  while (ids.has(`rId${n}`)) n++;
  const rel = `<Relationship Id="rId${n}" Type="${type}" Target="${xmlEscape(path.posix.relative(dirOf(part), target))}"/>`;
  const at = xml.lastIndexOf("</Relationships>");
  edits.put(
    relsPart,
    Buffer.from(
      at < 0 ? xml.replace(/<Relationships([^>]*)\/>/, `<Relationships$1>${rel}</Relationships>`) : xml.slice(0, at) + rel + xml.slice(at),
      "utf8",
    ),
  );
  return `rId${n}`;
}

function imageFormat(bytes: Buffer): { ext: "png" | "jpeg"; type: string } {
  return bytes[0] === 0xff && bytes[1] === 0xd8 ? { ext: "jpeg", type: "image/jpeg" } : { ext: "png", type: "image/png" };
}

/** The <xdr:…> prefix of a drawing part ("xdr:" as Excel writes it, "" for a default namespace). */
function prefixOf(xml: string): string {
  const m = /<(\w+:)?wsDr\b/.exec(xml);
  return m?.[1] ?? "";
}

function anchorXml(p: ModelPicture, shapeId: number, rid: string, x: string): string {
  const [cx, cy] = [Math.round(p.width * EMU_PER_POINT), Math.round(p.height * EMU_PER_POINT)];
  return (
    `<${x}oneCellAnchor><${x}from><${x}col>${p.col}</${x}col><${x}colOff>0</${x}colOff><${x}row>${p.row}</${x}row><${x}rowOff>0</${x}rowOff></${x}from>` +
    `<${x}ext cx="${cx}" cy="${cy}"/><${x}pic><${x}nvPicPr><${x}cNvPr id="${shapeId}" name="${xmlEscape(p.name)}"/>` +
    `<${x}cNvPicPr><a:picLocks xmlns:a="${NS_A}" noChangeAspect="1"/></${x}cNvPicPr></${x}nvPicPr>` +
    `<${x}blipFill><a:blip xmlns:a="${NS_A}" xmlns:r="${NS_R}" r:embed="${rid}"/><a:stretch xmlns:a="${NS_A}"><a:fillRect/></a:stretch></${x}blipFill>` +
    `<${x}spPr><a:xfrm xmlns:a="${NS_A}"><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom xmlns:a="${NS_A}" prst="rect"><a:avLst/></a:prstGeom></${x}spPr>` +
    `</${x}pic><${x}clientData/></${x}oneCellAnchor>`
  );
}

interface Anchor {
  start: number;
  end: number;
  name: string;
  embed: string | null;
  row: number;
  col: number;
  cx: number;
  cy: number;
}
/** The picture anchors of a drawing part (anchors holding an <xdr:pic>). */
function pictureAnchors(xml: string): Anchor[] {
  const out: Anchor[] = [];
  const root = findElement(xml, "wsDr");
  if (!root) return out;
  for (let t = nextTag(xml, root.inner); t && t.start < root.innerEnd;) {
    if (t.closing || !/^(oneCellAnchor|twoCellAnchor|absoluteAnchor)$/.test(t.name)) {
      t = nextTag(xml, t.end);
      continue;
    }
    const a = findElement(xml, t.name, t.start)!;
    const body = xml.slice(a.start, a.end);
    const pic = findElement(body, "pic");
    const nv = pic ? findElement(body, "cNvPr", pic.start) : null;
    if (pic && nv) {
      const from = findElement(body, "from");
      const num = (name: string) => {
        const e = from && findElement(body, name, from.inner, from.innerEnd);
        return e ? Number(body.slice(e.inner, e.innerEnd).trim()) : 0;
      };
      const ext = findElement(body, "ext");
      const e = ext ? tagAttrs(body.slice(ext.start, nextTag(body, ext.start)!.end)) : {};
      const blip = findElement(body, "blip");
      const embed = blip
        ? (Object.entries(tagAttrs(body.slice(blip.start, nextTag(body, blip.start)!.end))).find(([k]) => k.endsWith(":embed"))?.[1] ??
          null)
        : null;
      out.push({
        start: a.start,
        end: a.end,
        name: tagAttrs(body.slice(nv.start, nextTag(body, nv.start)!.end)).name ?? "",
        embed,
        row: num("row"),
        col: num("col"),
        cx: Number(e.cx ?? 0),
        cy: Number(e.cy ?? 0),
      });
    }
    t = nextTag(xml, a.end);
  }
  return out;
}

/** Where <drawing> goes in a worksheet (CT_Worksheet's order): before the first of these that the sheet has. */
const AFTER_DRAWING = [
  "legacyDrawing",
  "legacyDrawingHF",
  "drawingHF",
  "picture",
  "oleObjects",
  "controls",
  "webPublishItems",
  "tableParts",
  "extLst",
];

function withDrawingRef(sheet: string, rid: string): string {
  const root = findElement(sheet, "worksheet")!;
  const p = /<(\w+:)?worksheet\b/.exec(sheet)?.[1] ?? "";
  const rPrefix = Object.entries(tagAttrs(sheet.slice(root.start, nextTag(sheet, root.start)!.end)))
    .find(([k, v]) => k.startsWith("xmlns:") && v === NS_R)?.[0]
    .slice(6);
  const el = rPrefix ? `<${p}drawing ${rPrefix}:id="${rid}"/>` : `<${p}drawing xmlns:r="${NS_R}" r:id="${rid}"/>`;
  let at = root.innerEnd;
  for (const name of AFTER_DRAWING) {
    const e = findElement(sheet, name, root.inner);
    if (e && e.start < at) at = e.start;
  }
  return sheet.slice(0, at) + el + sheet.slice(at);
}

/** The sheet's drawing part, created (with the sheet's <drawing> and its relationship) when it has none. */
function drawingOf(edits: PartEdits, sheetPart: string): string {
  const rel = relsOf(edits, sheetPart).find((r) => r.type === REL.drawing && edits.has(r.target));
  if (rel) return rel.target;
  const part = edits.free("xl/drawings/drawing", ".xml");
  edits.put(
    part,
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<xdr:wsDr xmlns:xdr="${NS_XDR}" xmlns:a="${NS_A}"></xdr:wsDr>`,
      "utf8",
    ),
  );
  const rid = addRel(edits, sheetPart, REL.drawing, part);
  edits.put(sheetPart, Buffer.from(withDrawingRef(edits.text(sheetPart), rid), "utf8"));
  const at = edits.types.lastIndexOf("</Types>");
  edits.types = `${edits.types.slice(0, at)}<Override PartName="/${part}" ContentType="${CT_DRAWING}"/>${edits.types.slice(at)}`;
  return part;
}

function withDefault(types: string, ext: string, type: string): string {
  if (new RegExp(`<Default\\b[^>]*Extension="${ext}"`, "i").test(types)) return types;
  const root = findElement(types, "Types")!;
  return `${types.slice(0, root.inner)}<Default Extension="${ext}" ContentType="${type}"/>${types.slice(root.inner)}`;
}

/** Write the model's pictures of one sheet into its drawing; returns how many were written. */
export function writePictures(edits: PartEdits, sheetPart: string, pictures: readonly ModelPicture[]): number {
  let written = 0;
  const existing = relsOf(edits, sheetPart).find((r) => r.type === REL.drawing && edits.has(r.target));
  for (const p of pictures) {
    const bytes = Buffer.from(p.base64, "base64");
    if (existing) {
      const xml = edits.text(existing.target);
      const old = pictureAnchors(xml).find((a) => a.name === p.name);
      const media = old?.embed ? relsOf(edits, existing.target).find((r) => r.id === old.embed)?.target : undefined;
      const same =
        old &&
        media &&
        edits.has(media) &&
        edits.bytes(media).equals(bytes) &&
        old.row === p.row &&
        old.col === p.col &&
        old.cx === Math.round(p.width * EMU_PER_POINT) &&
        old.cy === Math.round(p.height * EMU_PER_POINT);
      if (same) continue;
    }
    const drawing = drawingOf(edits, sheetPart);
    const fmt = imageFormat(bytes);
    const media = edits.free("xl/media/image", `.${fmt.ext}`);
    edits.put(media, bytes);
    edits.types = withDefault(edits.types, fmt.ext, fmt.type);
    const rid = addRel(edits, drawing, REL.image, media);
    const xml = edits.text(drawing);
    const x = prefixOf(xml);
    const ids = [...xml.matchAll(/<(?:\w+:)?cNvPr\b[^>]*\bid="(\d+)"/g)].map((m) => Number(m[1]));
    const anchor = anchorXml(p, Math.max(1, ...ids) + 1, rid, x);
    const old = pictureAnchors(xml).find((a) => a.name === p.name);
    const root = findElement(xml, "wsDr")!;
    const next = old
      ? xml.slice(0, old.start) + anchor + xml.slice(old.end)
      : root.inner === root.end // <xdr:wsDr …/>: opened to hold the anchor
        ? `${xml.slice(0, root.start)}${xml.slice(root.start, root.end).replace(/\s*\/>$/, ">")}${anchor}</${x}wsDr>${xml.slice(root.end)}`
        : xml.slice(0, root.innerEnd) + anchor + xml.slice(root.innerEnd);
    edits.put(drawing, Buffer.from(next, "utf8"));
    written++;
  }
  return written;
}
