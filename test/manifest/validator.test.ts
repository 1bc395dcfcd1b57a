// The offline manifest validator on the real manifest.xml (passes) and on broken
// copies: each mistake is found, alone, on the right line.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drawIcon } from "../../scripts/draw-icons.ts";
import { compareVersions } from "../../scripts/manifest/policy.ts";
import { valueProblem } from "../../scripts/manifest/structure.ts";
import { formatProblem, validateManifestFile, validateManifestText, type Problem } from "../../scripts/manifest/validate.ts";
import { edit, lineOf, MANIFEST_PATH, REAL_MANIFEST, REPO } from "./helpers.ts";

const check = (source: string, baseDir = REPO): Problem[] => validateManifestText(source, { baseDir });
const only = (line: number, text: string) => [{ line, message: expect.stringContaining(text) }];

describe("the real manifest.xml", () => {
  it("passes the offline check", () => {
    expect(validateManifestFile(MANIFEST_PATH)).toEqual([]);
  });

  it("is a TaskPaneApp for Workbook requiring ExcelApi 1.12, loading the pane from https://localhost:3000", () => {
    expect(REAL_MANIFEST).toContain('xsi:type="TaskPaneApp"');
    expect(REAL_MANIFEST).toContain('<Host Name="Workbook"/>');
    expect(REAL_MANIFEST).toContain('<Set Name="ExcelApi" MinVersion="1.12"/>');
    expect(REAL_MANIFEST).toContain('<SourceLocation DefaultValue="https://localhost:3000/taskpane.html"/>');
    expect(REAL_MANIFEST).toContain('<OfficeTab id="TabHome">');
  });
});

describe("broken copies: each problem on its own line", () => {
  it("element order: <Hosts> after <Requirements>", () => {
    const hosts = '  <Hosts>\n    <Host Name="Workbook"/>\n  </Hosts>\n';
    const moved = edit(edit(REAL_MANIFEST, hosts, ""), "  <DefaultSettings>", hosts + "  <DefaultSettings>");
    expect(check(moved)).toEqual(
      only(lineOf(moved, "<Hosts>"), "<Hosts> is out of order in <OfficeApp>: it must come before <Requirements>"),
    );
  });

  it("element order inside the ribbon: <Supertip> before <Label>", () => {
    const broken = edit(REAL_MANIFEST, '<Label resid="OpenPane.Label"/>\n                  <Supertip>', "<Supertip>").replace(
      "</Supertip>\n",
      '</Supertip>\n                  <Label resid="OpenPane.Label"/>\n',
    );
    expect(check(broken)).toEqual(only(lineOf(broken, '<Label resid="OpenPane.Label"/>'), "<Label> is out of order in <Control>"));
  });

  it("a resid that resolves to nothing", () => {
    const broken = edit(REAL_MANIFEST, 'resid="OpenPane.Tooltip"', 'resid="OpenPane.Tooltp"');
    expect(check(broken)).toEqual(only(lineOf(broken, "OpenPane.Tooltp"), 'resid "OpenPane.Tooltp" on <Description> does not resolve'));
  });

  it("a resid that points to the wrong kind of resource", () => {
    const broken = edit(REAL_MANIFEST, '<Title resid="GetStarted.Title"/>', '<Title resid="GetStarted.Description"/>');
    expect(check(broken)).toEqual(only(lineOf(broken, '<Title resid="GetStarted.Description"/>'), "points to a bt:LongStrings entry"));
  });

  it("a duplicated resource id", () => {
    const broken = edit(
      REAL_MANIFEST,
      '<bt:String id="Group.Label" DefaultValue="Cellbound"/>',
      '<bt:String id="Group.Label" DefaultValue="Cellbound"/>\n        <bt:String id="Group.Label" DefaultValue="Again"/>',
    );
    expect(check(broken)).toEqual(only(lineOf(broken, 'DefaultValue="Again"'), 'resource id "Group.Label" is defined twice'));
  });

  it("an http URL", () => {
    const broken = edit(
      REAL_MANIFEST,
      '<bt:Url id="Taskpane.Url" DefaultValue="https://',
      '<bt:Url id="Taskpane.Url" DefaultValue="http://',
    );
    expect(check(broken)).toEqual(only(lineOf(broken, '<bt:Url id="Taskpane.Url"'), "must be an https URL"));
  });

  it("an attribute on the second line of a start tag is reported on its own line", () => {
    const broken = edit(
      REAL_MANIFEST,
      '<bt:Url id="GetStarted.LearnMoreUrl" DefaultValue="https://localhost:3000/taskpane.html"/>',
      '<bt:Url id="GetStarted.LearnMoreUrl"\n                DefaultValue="ftp://localhost:3000/taskpane.html"/>',
    );
    expect(check(broken)).toEqual(only(lineOf(broken, 'DefaultValue="ftp://'), "must be an https URL"));
  });

  it("an Id that is not a GUID", () => {
    const broken = REAL_MANIFEST.replace(/<Id>[^<]*<\/Id>/, "<Id>cellbound-addin</Id>");
    expect(check(broken)).toEqual(only(lineOf(broken, "<Id>"), '"cellbound-addin" is not a GUID'));
  });

  it("a Version that is not four-part", () => {
    const broken = REAL_MANIFEST.replace(/<Version>[^<]*<\/Version>/, "<Version>1.0</Version>");
    expect(check(broken)).toEqual(only(lineOf(broken, "<Version>"), '"1.0" must be a four-part version'));
  });

  it("an icon file at the wrong pixel size", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cellbound-manifest-"));
    try {
      cpSync(path.join(REPO, "assets"), path.join(dir, "assets"), { recursive: true });
      writeFileSync(path.join(dir, "assets", "icon-80.png"), drawIcon(64));
      const problems = check(REAL_MANIFEST, dir);
      // Both the group's and the button's 80 px entries state a size the file does not have.
      expect(problems).toEqual([
        {
          line: lineOf(REAL_MANIFEST, '<bt:Image size="80"', 1),
          message: expect.stringContaining("must be 80×80 px, but assets/icon-80.png is 64×64"),
        },
        {
          line: lineOf(REAL_MANIFEST, '<bt:Image size="80"', 2),
          message: expect.stringContaining("must be 80×80 px, but assets/icon-80.png is 64×64"),
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a missing icon file and a file that is not a PNG", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cellbound-manifest-"));
    try {
      cpSync(path.join(REPO, "assets"), path.join(dir, "assets"), { recursive: true });
      rmSync(path.join(dir, "assets", "icon-64.png"));
      writeFileSync(path.join(dir, "assets", "icon-32.png"), "<svg/>");
      const problems = check(REAL_MANIFEST, dir);
      expect(problems).toContainEqual({
        line: lineOf(REAL_MANIFEST, "<HighResolutionIconUrl"),
        message: expect.stringContaining("file not found"),
      });
      expect(problems).toContainEqual({ line: lineOf(REAL_MANIFEST, "<IconUrl"), message: expect.stringContaining("not a PNG file") });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an icon list without a mandatory size", () => {
    // The group's icon list (the first one) loses its 80 px entry.
    const broken = edit(REAL_MANIFEST, '\n                  <bt:Image size="80" resid="Icon.80"/>', "");
    expect(check(broken)).toEqual(only(lineOf(broken, "<Icon>", 1), "has no 80 px image; 16, 32, 80 are mandatory"));
  });

  it("XML that is not well-formed", () => {
    const broken = edit(REAL_MANIFEST, "<ProviderName>Cellbound</ProviderName>", "<ProviderName>Cellbound</Provider>");
    expect(check(broken)).toEqual(only(lineOf(broken, "<ProviderName>"), "not well-formed XML"));
  });

  it("a missing required element", () => {
    const broken = REAL_MANIFEST.replace(/ {2}<DefaultSettings>[\s\S]*?<\/DefaultSettings>\n/, "");
    expect(check(broken)).toContainEqual({ line: lineOf(broken, "<OfficeApp"), message: "<OfficeApp> is missing <DefaultSettings>" });
  });

  it("a misspelt element and a misspelt attribute", () => {
    const broken = edit(
      edit(REAL_MANIFEST, '<Label resid="Group.Label"/>', '<Lable resid="Group.Label"/>'),
      '<DisplayName DefaultValue="Cellbound"/>',
      '<DisplayName Defaultvalue="Cellbound"/>',
    );
    const problems = check(broken);
    expect(problems).toContainEqual({
      line: lineOf(broken, "<Lable"),
      message: expect.stringContaining("<Lable> is not a valid child of <Group>"),
    });
    expect(problems).toContainEqual({ line: lineOf(broken, "<Group id"), message: "<Group> is missing <Label>" });
    expect(problems).toContainEqual({ line: lineOf(broken, "<DisplayName"), message: "<DisplayName> has no attribute Defaultvalue" });
    expect(problems).toContainEqual({
      line: lineOf(broken, "<DisplayName"),
      message: "<DisplayName> is missing the required attribute DefaultValue",
    });
  });

  it("an element in the wrong namespace (Image without bt:)", () => {
    const broken = edit(
      REAL_MANIFEST,
      '<bt:Image id="Icon.16"',
      '<Image xmlns="http://schemas.microsoft.com/office/appforoffice/1.1" id="Icon.16"',
    );
    expect(check(broken)).toContainEqual({
      line: lineOf(broken, "<Image xmlns"),
      message: expect.stringContaining("<Image> is in the wrong namespace"),
    });
  });

  it("an unknown xsi:type", () => {
    const broken = edit(REAL_MANIFEST, '<Control xsi:type="Button"', '<Control xsi:type="Buton"');
    expect(check(broken)).toEqual(only(lineOf(broken, '"Buton"'), 'xsi:type="Buton" is not allowed on <Control>'));
  });

  it("an invalid Permissions value", () => {
    const broken = edit(REAL_MANIFEST, "<Permissions>ReadWriteDocument</Permissions>", "<Permissions>ReadWrite</Permissions>");
    expect(check(broken)).toEqual(only(lineOf(broken, "<Permissions>"), '"ReadWrite" is not one of Restricted'));
  });

  it("a display name longer than 125 characters", () => {
    const broken = edit(REAL_MANIFEST, '<DisplayName DefaultValue="Cellbound"/>', `<DisplayName DefaultValue="${"x".repeat(126)}"/>`);
    expect(check(broken)).toEqual(only(lineOf(broken, "<DisplayName"), "is 126 characters long; at most 125"));
  });

  it("an AppDomain with a path", () => {
    const broken = edit(
      REAL_MANIFEST,
      "<AppDomain>https://acme.platform.example</AppDomain>",
      "<AppDomain>https://acme.platform.example/app</AppDomain>",
    );
    expect(check(broken)).toEqual(only(lineOf(broken, "/app</AppDomain>"), "must be an https origin"));
  });

  it("two controls with the same id", () => {
    const broken = edit(
      REAL_MANIFEST,
      '<Control xsi:type="Button" id="Cellbound.OpenPane">',
      '<Control xsi:type="Button" id="Cellbound.Group">',
    );
    expect(check(broken)).toEqual(
      only(lineOf(broken, '<Control xsi:type="Button" id="Cellbound.Group">'), 'id "Cellbound.Group" is used twice'),
    );
  });

  it("Cellbound's rules: ExcelApi below 1.12, no Workbook host, no Home-tab button", () => {
    expect(check(edit(REAL_MANIFEST, 'MinVersion="1.12"/>', 'MinVersion="1.9"/>'))).toEqual(
      only(lineOf(REAL_MANIFEST, '<Set Name="ExcelApi"'), "ExcelApi MinVersion 1.9 is below 1.12"),
    );
    const noWorkbook = edit(REAL_MANIFEST, '<Host Name="Workbook"/>', '<Host Name="Document"/>');
    expect(check(noWorkbook)).toEqual([
      { line: lineOf(noWorkbook, "<Hosts>"), message: expect.stringContaining('<Hosts> must contain <Host Name="Workbook"/>') },
      { line: lineOf(noWorkbook, '<Host xsi:type="Workbook">'), message: expect.stringContaining("VersionOverrides names host Workbook") },
    ]);
    const insertTab = edit(REAL_MANIFEST, '<OfficeTab id="TabHome">', '<OfficeTab id="TabInsert">');
    expect(check(insertTab)).toEqual(only(lineOf(insertTab, "<VersionOverrides"), "no ribbon button on the Home tab"));
  });

  it("formats problems as FILE:LINE: message", () => {
    expect(formatProblem("manifest.xml", { line: 12, message: "boom" })).toBe("manifest.xml:12: boom");
    expect(formatProblem("dist/manifest.xml", { line: 0, message: "cannot read the manifest" })).toBe(
      "dist/manifest.xml: cannot read the manifest",
    );
  });

  it("an unreadable manifest file is a problem, not a crash", () => {
    expect(validateManifestFile(path.join(REPO, "no-such-manifest.xml"))).toEqual([
      { line: 0, message: expect.stringContaining("cannot read the manifest") },
    ]);
  });
});

describe("simple types", () => {
  it("accepts and rejects values as the schema does", () => {
    expect(valueProblem("{5B0C6F1E-8D1A-4C52-9E37-2F4A6C1D7B93}", "UUID")).toBeNull();
    expect(valueProblem("5b0c6f1e-8d1a-4c52-9e37-2f4a6c1d7b9", "UUID")).not.toBeNull();
    expect(valueProblem("1.0.0.0", "Version")).toBeNull();
    expect(valueProblem("1.0.0.0.0", "Version")).not.toBeNull();
    expect(valueProblem("en-US", "CultureName")).toBeNull();
    expect(valueProblem("english", "CultureName")).not.toBeNull();
    expect(valueProblem("x".repeat(32), "ReferenceId")).toBeNull();
    expect(valueProblem("x".repeat(33), "ReferenceId")).not.toBeNull();
    expect(valueProblem("localhost:3000/taskpane.html", "URL")).not.toBeNull();
    expect(valueProblem("1.12", "ShortVersion")).toBeNull();
    expect(valueProblem("1.12.0", "ShortVersion")).not.toBeNull();
  });

  it("compares versions numerically", () => {
    expect(compareVersions("1.9", "1.12")).toBe(-1);
    expect(compareVersions("1.12", "1.12")).toBe(0);
    expect(compareVersions("1.13", "1.12")).toBe(1);
  });
});
