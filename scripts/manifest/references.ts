// Cross-element checks the schema cannot express but Office enforces when it
// loads the manifest: every resid resolves to a Resources entry of the right
// kind, resource ids are unique, ribbon icon lists carry the mandatory sizes,
// icon files exist at their stated pixel sizes, AppDomains are https origins,
// and control ids are unique within a form factor.
import path from "node:path";
import { readPngSize } from "./png.ts";
import { APP_ICON_SIZE, ICON_SIZES_ALLOWED, ICON_SIZES_REQUIRED, REF_COLLECTION, RESOURCE_KIND, TYPES, type RefKind } from "./schema.ts";
import type { Problem } from "./structure.ts";
import { attr, type XmlElement } from "./xml.ts";

export interface ReferenceContext {
  root: XmlElement;
  typeOf: Map<XmlElement, string>;
  /** Directory that URLs on the pane's origin are served from (the manifest's directory). */
  baseDir: string;
}

interface Resource {
  kind: RefKind;
  id: string;
  value: string;
  line: number;
}

export function checkReferences({ root, typeOf, baseDir }: ReferenceContext): Problem[] {
  const problems: Problem[] = [];
  const report = (line: number, message: string) => problems.push({ line, message });
  const all = [...walk(root)];
  const ofType = (...names: string[]) => all.filter((e) => names.includes(typeOf.get(e) ?? ""));

  // Resources, by kind and id.
  const resources = new Map<RefKind, Map<string, Resource>>();
  for (const element of all) {
    const kind = RESOURCE_KIND[typeOf.get(element) ?? ""];
    const id = attr(element, "id")?.value;
    if (!kind || id === undefined) continue;
    const byId = resources.get(kind) ?? new Map<string, Resource>();
    resources.set(kind, byId);
    const first = byId.get(id);
    if (first) {
      report(element.line, `resource id "${id}" is defined twice in ${REF_COLLECTION[kind]} (first on line ${first.line})`);
      continue;
    }
    byId.set(id, { kind, id, value: attr(element, "DefaultValue")?.value ?? "", line: element.line });
  }
  const resolve = (element: XmlElement): Resource | undefined => {
    const kind = TYPES[typeOf.get(element) ?? ""]?.ref;
    const resid = attr(element, "resid");
    if (!kind || !resid) return undefined;
    const found = resources.get(kind)?.get(resid.value);
    if (found) return found;
    const elsewhere = [...resources.values()].map((m) => m.get(resid.value)).find(Boolean);
    report(
      resid.line,
      elsewhere
        ? `resid "${resid.value}" on <${element.qname}> points to a ${REF_COLLECTION[elsewhere.kind]} entry (line ${elsewhere.line}); <${element.qname}> needs a ${REF_COLLECTION[kind]} entry`
        : `resid "${resid.value}" on <${element.qname}> does not resolve: no ${REF_COLLECTION[kind]} entry has that id`,
    );
    return undefined;
  };

  // Where icon URLs map to files: URLs on the pane's origin are served from baseDir
  // (dev server: assets/ at /assets; production build: dist/assets next to dist/manifest.xml).
  const paneUrl = all.find((e) => e.local === "SourceLocation" && e.parent?.local === "DefaultSettings");
  const paneOrigin = safeUrl(paneUrl ? (attr(paneUrl, "DefaultValue")?.value ?? "") : "")?.origin;
  const checkIconFile = (value: string, expected: number, line: number, what: string) => {
    const url = safeUrl(value);
    if (!url || url.protocol !== "https:" || !paneOrigin) return; // already reported as a bad URL / no pane URL
    if (url.origin !== paneOrigin) {
      report(line, `${what} ${value} is not on the pane's origin ${paneOrigin}, so it cannot be checked or served with the add-in`);
      return;
    }
    const file = path.join(baseDir, decodeURIComponent(url.pathname));
    const shown = path.relative(baseDir, file);
    if (!file.startsWith(path.resolve(baseDir) + path.sep)) {
      report(line, `${what} ${value} points outside the add-in's files`);
      return;
    }
    const size = readPngSize(file);
    if (!size.ok) report(line, `${what} ${value} → ${shown}: ${size.reason}`);
    else if (size.width !== expected || size.height !== expected) {
      report(line, `${what} must be ${expected}×${expected} px, but ${shown} is ${size.width}×${size.height}`);
    }
  };

  // Every resource reference resolves; ribbon icons list the mandatory sizes, each file at its size.
  for (const element of all) {
    if (!TYPES[typeOf.get(element) ?? ""]?.ref) continue;
    const resource = resolve(element);
    if (!resource || resource.kind !== "image") continue;
    const size = Number(attr(element, "size")?.value);
    if (ICON_SIZES_ALLOWED.includes(size)) checkIconFile(resource.value, size, element.line, `the ${size}px icon "${resource.id}"`);
  }
  for (const list of ofType("IconList")) {
    const sizes = new Map<number, number>();
    for (const image of list.children) {
      const size = attr(image, "size");
      if (!size || !/^\d+$/.test(size.value)) continue;
      const n = Number(size.value);
      if (!ICON_SIZES_ALLOWED.includes(n)) report(size.line, `icon size ${n} is not supported; use ${ICON_SIZES_ALLOWED.join(", ")}`);
      const first = sizes.get(n);
      if (first !== undefined) report(image.line, `icon size ${n} is listed twice in <${list.qname}> (first on line ${first})`);
      else sizes.set(n, image.line);
    }
    const missing = ICON_SIZES_REQUIRED.filter((n) => !sizes.has(n));
    if (missing.length)
      report(list.line, `<${list.qname}> has no ${missing.join(", ")} px image; ${ICON_SIZES_REQUIRED.join(", ")} are mandatory`);
  }
  for (const [name, expected] of Object.entries(APP_ICON_SIZE)) {
    const element = root.children.find((e) => e.local === name);
    const value = element && attr(element, "DefaultValue");
    if (value) checkIconFile(value.value, expected, value.line, `<${name}>`);
  }

  // AppDomains are origins: https, a host, nothing after it.
  for (const domain of ofType("AppDomain")) {
    const text = domain.text.trim();
    const url = safeUrl(text);
    if (!url || url.protocol !== "https:" || (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
      report(domain.line, `AppDomain "${text}" must be an https origin such as https://tenant.example.com`);
    }
  }

  // Group and control ids are unique within a form factor.
  for (const formFactor of ofType("FormFactor")) {
    const seen = new Map<string, number>();
    for (const element of walk(formFactor)) {
      if (!["Group", "Button", "Menu", "MenuItem"].includes(typeOf.get(element) ?? "")) continue;
      const id = attr(element, "id");
      if (!id) continue;
      const first = seen.get(id.value);
      if (first !== undefined) report(id.line, `id "${id.value}" is used twice in <${formFactor.qname}> (first on line ${first})`);
      else seen.set(id.value, id.line);
    }
  }
  return problems;
}

export function* walk(element: XmlElement): Generator<XmlElement> {
  yield element;
  for (const child of element.children) yield* walk(child);
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
