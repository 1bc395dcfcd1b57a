// Checks an element tree against the schema tables in schema.ts: element order,
// unknown or misplaced elements, minOccurs/maxOccurs, required and unknown
// attributes, xsi:type, and the simple types of text and attribute values
// (GUID, four-part Version, https URLs, string lengths, enumerations).
// Returns the problems plus the resolved type of every element it checked, so
// later passes (resources, icons, policy) can find elements by type.
import { NS, TYPES, type ChildSpec, type SimpleType } from "./schema.ts";
import { xsiType, XSI, type XmlElement } from "./xml.ts";

export interface Problem {
  line: number;
  message: string;
}

export interface StructureResult {
  problems: Problem[];
  /** Resolved (concrete) schema type of each element checked. */
  typeOf: Map<XmlElement, string>;
}

const XMLNS = "http://www.w3.org/2000/xmlns/";

export function checkStructure(root: XmlElement): StructureResult {
  const problems: Problem[] = [];
  const typeOf = new Map<XmlElement, string>();
  const report = (line: number, message: string) => problems.push({ line, message });

  if (root.local !== "OfficeApp" || root.uri !== NS.oa) {
    report(root.line, `the root element must be <OfficeApp xmlns="${NS.oa}">, not <${root.qname}>`);
    return { problems, typeOf };
  }
  checkElement(root, "OfficeApp");
  return { problems, typeOf };

  function checkElement(element: XmlElement, declared: string): void {
    let typeName = declared;
    let type = TYPES[typeName];
    if (!type) throw new Error(`schema.ts has no type ${typeName}`);

    if (type.xsiTypes) {
      const allowed = Object.keys(type.xsiTypes);
      const given = xsiType(element);
      if (!given) {
        report(element.line, `<${element.qname}> needs xsi:type (${allowed.map((t) => `"${t}"`).join(" or ")})`);
        return;
      }
      const concrete = type.xsiTypes[given.value];
      if (!concrete) {
        report(
          given.line,
          `xsi:type="${given.value}" is not allowed on <${element.qname}>; expected ${allowed.map((t) => `"${t}"`).join(" or ")}`,
        );
        return;
      }
      typeName = concrete;
      type = TYPES[typeName];
      if (!type) throw new Error(`schema.ts has no type ${typeName}`);
    }
    typeOf.set(element, typeName);
    if (type.opaque) return;

    // Attributes.
    for (const a of element.attrs) {
      if (a.uri === XMLNS || a.uri === XSI) continue;
      const spec = a.uri === "" ? type.attrs?.[a.local] : undefined;
      if (!spec) {
        report(a.line, `<${element.qname}> has no attribute ${a.name}`);
        continue;
      }
      checkValue(a.value, spec.type, a.line, `${a.name} of <${element.qname}>`);
    }
    for (const [name, spec] of Object.entries(type.attrs ?? {})) {
      if (spec.required && !element.attrs.some((a) => a.uri === "" && a.local === name)) {
        report(element.line, `<${element.qname}> is missing the required attribute ${name}`);
      }
    }

    // Text content.
    if (type.text) {
      if (element.children.length > 0) report(element.children[0]!.line, `<${element.qname}> must contain only text`);
      checkValue(element.text.trim(), type.text, element.line, `<${element.qname}>`);
      return;
    }
    if (element.text.trim() !== "") report(element.line, `<${element.qname}> must not contain text`);

    // Child elements: an xs:sequence.
    const specs = type.children ?? [];
    const counts = specs.map(() => 0);
    let position = 0;
    let positionedBy: XmlElement | null = null;
    for (const child of element.children) {
      const matches = (s: ChildSpec) => s.name === child.local && s.ns === child.uri;
      const here = specs.findIndex((s, i) => i >= position && matches(s));
      if (here >= 0) {
        const spec = specs[here]!;
        counts[here]! += 1;
        if (counts[here]! > spec.max) {
          report(child.line, `<${child.qname}> may appear only ${spec.max === 1 ? "once" : `${spec.max} times`} in <${element.qname}>`);
        }
        position = here;
        positionedBy = child;
        checkElement(child, spec.type);
        continue;
      }
      const earlier = specs.findIndex(matches);
      if (earlier >= 0) {
        counts[earlier]! += 1;
        const after = positionedBy!;
        report(
          child.line,
          `<${child.qname}> is out of order in <${element.qname}>: it must come before <${after.qname}> (line ${after.line})`,
        );
        checkElement(child, specs[earlier]!.type);
        continue;
      }
      const sameName = specs.find((s) => s.name === child.local);
      if (sameName) {
        report(
          child.line,
          `<${child.qname}> is in the wrong namespace (${child.uri || "none"}); <${element.qname}> expects it in ${sameName.ns}`,
        );
      } else {
        const expected = specs.length ? `; expected ${specs.map(display).join(", ")}` : "";
        report(child.line, `<${child.qname}> is not a valid child of <${element.qname}>${expected}`);
      }
    }
    specs.forEach((spec, i) => {
      if (counts[i]! < spec.min) report(element.line, `<${element.qname}> is missing <${display(spec)}>`);
    });
  }

  function checkValue(value: string, type: SimpleType, line: number, what: string): void {
    const problem = valueProblem(value, type);
    if (problem) report(line, `${what} ${problem}`);
  }
}

const display = (spec: ChildSpec) => (spec.ns === NS.bt ? `bt:${spec.name}` : spec.name);

const UUID =
  /^(urn:uuid:)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$|^\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}$/;
const CULTURE = /^(?:[a-zA-Z]{2,3}-[a-zA-Z0-9]{3,8}(-[a-zA-Z]{2,3})?|[a-zA-Z]{2,3}(-[a-zA-Z]{2,3}(_tradnl|\.pseudo|-[a-zA-Z]{4,8})?)?)$/;

/** Why `value` is not a valid `type`, or null when it is. */
export function valueProblem(value: string, type: SimpleType): string | null {
  const length = (min: number, max: number) =>
    value.length < min ? "must not be empty" : value.length > max ? `is ${value.length} characters long; at most ${max} are allowed` : null;
  if (typeof type === "object") {
    return type.enum.includes(value) ? null : `"${value}" is not one of ${type.enum.join(", ")}`;
  }
  switch (type) {
    case "UUID":
      return UUID.test(value) ? null : `"${value}" is not a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`;
    case "Version":
      // The schema allows one to four parts; Office and AppSource expect all four.
      return /^\d{1,5}(\.\d{1,5}){3}$/.test(value) ? null : `"${value}" must be a four-part version such as 1.0.0.0`;
    case "ShortVersion":
      return /^\d{1,5}\.\d{1,5}$/.test(value) ? null : `"${value}" must be a two-part version such as 1.12`;
    case "CultureName":
      return CULTURE.test(value) ? null : `"${value}" is not a culture name such as en-US`;
    case "ShortString":
      return length(1, 125);
    case "LongString":
      return length(1, 250);
    case "NonEmptyString":
      return length(1, Number.POSITIVE_INFINITY);
    case "ReferenceId":
      return length(1, 32);
    case "Integer":
      return /^[+-]?\d+$/.test(value) ? null : `"${value}" is not an integer`;
    case "URL": {
      const tooLong = length(1, 2048);
      if (tooLong) return tooLong;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return `"${value}" is not an absolute URL`;
      }
      return url.protocol === "https:" ? null : `must be an https URL (got "${value}")`;
    }
  }
}
