// The part of Microsoft's add-in-only manifest schema that a TaskPaneApp uses,
// written down as data: for each complex type, its attributes and its ordered
// child elements (an xs:sequence, with minOccurs/maxOccurs), or its text type.
//
// Transcribed from the XSDs Microsoft publishes for task-pane add-ins
// (OfficeAppManifestV1_1.xsd, TaskPaneAppVersionOverridesV1_0.xsd,
// OfficeAppBasicTypesV1_0.xsd). Extensions append their sequence after the base
// type's, exactly as XSD does, so element order here is the order the schema
// demands. Parts Cellbound does not use (Dictionary, WebApplicationInfo,
// EquivalentAddins, custom functions, VersionOverrides 1.1) are "opaque": their
// position is checked, their content is not.

export const NS = {
  /** Top-level manifest elements. */
  oa: "http://schemas.microsoft.com/office/appforoffice/1.1",
  /** Basic types: resources, icon lists, bt:Sets. */
  bt: "http://schemas.microsoft.com/office/officeappbasictypes/1.0",
  /** VersionOverrides for task-pane add-ins (ribbon commands). */
  ov: "http://schemas.microsoft.com/office/taskpaneappversionoverrides",
  ov11: "http://schemas.microsoft.com/office/taskpaneappversionoverrides/1.1",
  dsig: "http://www.w3.org/2000/09/xmldsig#",
} as const;
export type Namespace = (typeof NS)[keyof typeof NS];

export type SimpleType =
  | "UUID"
  | "Version"
  | "ShortVersion"
  | "CultureName"
  | "ShortString"
  | "LongString"
  | "NonEmptyString"
  | "URL"
  | "ReferenceId"
  | "Integer"
  | { enum: readonly string[] };

/** Which Resources collection a resid must point into. */
export type RefKind = "image" | "url" | "short" | "long";

export interface AttrSpec {
  type: SimpleType;
  required: boolean;
}

export interface ChildSpec {
  name: string;
  ns: Namespace;
  type: string;
  min: number;
  max: number;
}

export interface ComplexType {
  /** Unqualified attributes the type declares. Anything else is an error. */
  attrs?: Record<string, AttrSpec>;
  /** Child elements in the order the schema's xs:sequence demands. */
  children?: ChildSpec[];
  /** Simple content (element text). */
  text?: SimpleType;
  /** Abstract type: the concrete type named by xsi:type (required). */
  xsiTypes?: Record<string, string>;
  /** A ResourceReference: its resid must resolve into this Resources collection. */
  ref?: RefKind;
  /** Content not checked (schema parts Cellbound does not use). */
  opaque?: true;
}

const many = Number.POSITIVE_INFINITY;
const el = (name: string, ns: Namespace, type: string, min = 0, max = 1): ChildSpec => ({ name, ns, type, min, max });
const oa = (name: string, type: string, min = 0, max = 1) => el(name, NS.oa, type, min, max);
const ov = (name: string, type: string, min = 0, max = 1) => el(name, NS.ov, type, min, max);
const bt = (name: string, type: string, min = 0, max = 1) => el(name, NS.bt, type, min, max);
const req = (type: SimpleType): AttrSpec => ({ type, required: true });
const opt = (type: SimpleType): AttrSpec => ({ type, required: false });

const localeAware = (value: SimpleType, ns: Namespace, overrideType: string): ComplexType => ({
  attrs: { DefaultValue: req(value) },
  children: [el("Override", ns, overrideType, 0, many)],
});
const withId = (value: SimpleType, overrideType: string): ComplexType => ({
  attrs: { id: req("ReferenceId"), DefaultValue: req(value) },
  children: [bt("Override", overrideType, 0, many)],
});
const override = (value: SimpleType): ComplexType => ({ attrs: { Locale: req("CultureName"), Value: req(value) } });
// Sets/Methods and their children live in the namespace of the schema that declares
// them: <Requirements><Sets> at the top level, <Requirements><bt:Sets> inside VersionOverrides.
const requirements = (ns: Namespace, prefix: string): Record<string, ComplexType> => ({
  [`${prefix}Requirements`]: { children: [el("Sets", ns, `${prefix}Sets`), el("Methods", ns, `${prefix}Methods`)] },
  [`${prefix}Sets`]: { attrs: { DefaultMinVersion: opt("ShortVersion") }, children: [el("Set", ns, "Set", 1, many)] },
  [`${prefix}Methods`]: { children: [el("Method", ns, "Method", 1, many)] },
});
const formFactorHost: ComplexType = {
  children: [ov("AllFormFactors", "AllFormFactors"), ov("DesktopFormFactor", "FormFactor")],
};
const uiControl = (extra: ChildSpec[]): ComplexType => ({
  attrs: { id: req("ShortString") },
  children: [ov("Label", "ShortRef", 1), ov("Supertip", "Supertip", 1), ...extra],
});

export const PERMISSIONS = ["Restricted", "ReadDocument", "ReadAllDocument", "WriteDocument", "ReadWriteDocument"];

export const TYPES: Record<string, ComplexType> = {
  // ---- OfficeAppManifestV1_1.xsd -------------------------------------------------
  OfficeApp: {
    xsiTypes: { TaskPaneApp: "TaskPaneApp" },
  },
  TaskPaneApp: {
    children: [
      // OfficeApp's own sequence…
      oa("Id", "UUID", 1),
      oa("AlternateId", "Opaque"),
      oa("Version", "Version", 1),
      oa("ProviderName", "ShortStringText", 1),
      oa("DefaultLocale", "CultureNameText", 1),
      oa("DisplayName", "ShortLocaleAware", 1),
      oa("Description", "LongLocaleAware", 1),
      oa("IconUrl", "UrlLocaleAware"),
      oa("HighResolutionIconUrl", "UrlLocaleAware"),
      oa("SupportUrl", "UrlLocaleAware"),
      oa("AppDomains", "AppDomains"),
      oa("Hosts", "Hosts"),
      // …then the TaskPaneApp extension's.
      oa("Requirements", "Requirements"),
      oa("DefaultSettings", "TaskPaneAppSettings", 1),
      oa("Permissions", "Permissions", 1),
      oa("Dictionary", "Opaque"),
      ov("VersionOverrides", "VersionOverrides"),
      el("Signature", NS.dsig, "Opaque"),
    ],
  },
  UUID: { text: "UUID" },
  Version: { text: "Version" },
  ShortStringText: { text: "ShortString" },
  LongStringText: { text: "LongString" },
  CultureNameText: { text: "CultureName" },
  Permissions: { text: { enum: PERMISSIONS } },
  ShortLocaleAware: localeAware("ShortString", NS.oa, "ShortOverride"),
  LongLocaleAware: localeAware("LongString", NS.oa, "LongOverride"),
  UrlLocaleAware: localeAware("URL", NS.oa, "UrlOverride"),
  ShortOverride: override("ShortString"),
  LongOverride: override("LongString"),
  UrlOverride: override("URL"),
  AppDomains: { children: [oa("AppDomain", "AppDomain", 1, many)] },
  AppDomain: { text: "LongString" },
  Hosts: { children: [oa("Host", "Host", 1, many)] },
  Host: { attrs: { Name: req("ShortString") } },
  ...requirements(NS.oa, ""),
  Set: { attrs: { Name: req("ShortString"), MinVersion: opt("ShortVersion") } },
  Method: { attrs: { Name: req("LongString") } },
  TaskPaneAppSettings: { children: [oa("SourceLocation", "UrlLocaleAware", 1)] },
  Opaque: { opaque: true },

  // ---- TaskPaneAppVersionOverridesV1_0.xsd ---------------------------------------
  VersionOverrides: {
    xsiTypes: { VersionOverridesV1_0: "VersionOverridesV1_0" },
  },
  VersionOverridesV1_0: {
    children: [
      ov("Description", "LongRef"),
      ov("Requirements", "BtRequirements"),
      ov("Hosts", "OvHosts"),
      ov("Resources", "Resources"),
      ov("WebApplicationInfo", "Opaque"),
      ov("EquivalentAddins", "Opaque"),
      el("VersionOverrides", NS.ov11, "Opaque"),
    ],
  },
  OvHosts: { children: [ov("Host", "OvHost", 1, many)] },
  OvHost: {
    xsiTypes: { Workbook: "FormFactorHost", Document: "FormFactorHost", Presentation: "FormFactorHost", Notebook: "FormFactorHost" },
  },
  FormFactorHost: formFactorHost,
  AllFormFactors: { children: [ov("ExtensionPoint", "Opaque")] },
  FormFactor: {
    children: [ov("GetStarted", "GetStarted"), ov("FunctionFile", "UrlRef"), ov("ExtensionPoint", "ExtensionPoint", 1, many)],
  },
  GetStarted: {
    children: [ov("Title", "ShortRef", 1), ov("Description", "LongRef", 1), ov("LearnMoreUrl", "UrlRef", 1)],
  },
  ExtensionPoint: {
    xsiTypes: { PrimaryCommandSurface: "CommandSurface", ContextMenu: "ContextMenu", CustomFunctions: "Opaque" },
  },
  CommandSurface: { children: [ov("OfficeTab", "OfficeTab", 0, many), ov("CustomTab", "CustomTab", 0, many)] },
  ContextMenu: { children: [ov("OfficeMenu", "OfficeMenu", 1, many)] },
  OfficeMenu: { attrs: { id: req("ShortString") }, children: [ov("Control", "Control", 1, many)] },
  OfficeTab: { attrs: { id: req("ShortString") }, children: [ov("Group", "Group", 1, many)] },
  CustomTab: {
    attrs: { id: req("ShortString") },
    children: [ov("Group", "Group", 1, many), ov("Label", "ShortRef", 1)],
  },
  Group: {
    attrs: { id: req("ShortString") },
    children: [ov("Label", "ShortRef", 1), ov("Icon", "IconList", 1), ov("Control", "Control", 1, many)],
  },
  Control: { xsiTypes: { Button: "Button", Menu: "Menu" } },
  Button: uiControl([ov("Icon", "IconList", 1), ov("Action", "Action", 1)]),
  Menu: uiControl([ov("Icon", "IconList", 1), ov("Items", "MenuItems", 1)]),
  MenuItems: { children: [ov("Item", "MenuItem", 1, many)] },
  MenuItem: uiControl([ov("Icon", "IconList"), ov("Action", "Action", 1)]),
  Supertip: { children: [ov("Title", "ShortRef", 1), ov("Description", "LongRef", 1)] },
  Action: { xsiTypes: { ShowTaskpane: "ShowTaskpane", ExecuteFunction: "ExecuteFunction" } },
  ShowTaskpane: {
    children: [ov("TaskpaneId", "ShortStringText"), ov("SourceLocation", "UrlRef", 1), ov("Title", "ShortRef")],
  },
  ExecuteFunction: { children: [ov("FunctionName", "LongStringText", 1)] },

  // ---- OfficeAppBasicTypesV1_0.xsd -----------------------------------------------
  ShortRef: { attrs: { resid: req("ReferenceId") }, ref: "short" },
  LongRef: { attrs: { resid: req("ReferenceId") }, ref: "long" },
  UrlRef: { attrs: { resid: req("ReferenceId") }, ref: "url" },
  IconList: { children: [bt("Image", "ImageRef", 1, many)] },
  ImageRef: { attrs: { size: req("Integer"), resid: req("ReferenceId") }, ref: "image" },
  ...requirements(NS.bt, "Bt"),
  Resources: {
    children: [bt("Images", "Images"), bt("Urls", "Urls"), bt("ShortStrings", "ShortStrings"), bt("LongStrings", "LongStrings")],
  },
  Images: { children: [bt("Image", "ImageResource", 1, many)] },
  Urls: { children: [bt("Url", "UrlResource", 1, many)] },
  ShortStrings: { children: [bt("String", "ShortResource", 1, many)] },
  LongStrings: { children: [bt("String", "LongResource", 1, many)] },
  ImageResource: withId("URL", "UrlOverride"),
  UrlResource: withId("URL", "UrlOverride"),
  ShortResource: withId("ShortString", "ShortOverride"),
  LongResource: withId("LongString", "LongOverride"),
};

/** Which Resources collection holds each RefKind, for messages. */
export const REF_COLLECTION: Record<RefKind, string> = {
  image: "bt:Images",
  url: "bt:Urls",
  short: "bt:ShortStrings",
  long: "bt:LongStrings",
};

/** Resource element types → the RefKind they define. */
export const RESOURCE_KIND: Record<string, RefKind> = {
  ImageResource: "image",
  UrlResource: "url",
  ShortResource: "short",
  LongResource: "long",
};

/** Icon sizes the schema allows on ribbon icons; the first three are mandatory. */
export const ICON_SIZES_REQUIRED = [16, 32, 80];
export const ICON_SIZES_ALLOWED = [16, 20, 24, 32, 40, 48, 64, 80];

/** Pixel sizes Microsoft requires for a task-pane add-in's catalogue icons. */
export const APP_ICON_SIZE: Record<string, number> = { IconUrl: 32, HighResolutionIconUrl: 64 };
