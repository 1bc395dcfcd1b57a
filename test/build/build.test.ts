// The production build (what `npm run build` does), run through webpack's Node API
// into a temp dir with ADDIN_URL=https://cellbound.example.com: the manifest's dev
// URLs are replaced, the copied manifest still passes the offline validator
// (icons included), taskpane.html loads Office.js from the Office CDN first, under the pane's CSP.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import webpack, { type Configuration, type Stats } from "webpack";
import { validateManifestFile } from "../../scripts/manifest/validate.ts";
import { REPO } from "../manifest/helpers.ts";

const ADDIN_URL = "https://cellbound.example.com";
const OFFICE_JS = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";
type MakeConfig = (env: Record<string, unknown>, argv: { mode: string }) => Promise<Configuration>;

async function productionConfig(addinUrl: string): Promise<Configuration> {
  const { default: makeConfig } = (await import(pathToFileURL(path.join(REPO, "webpack.config.js")).href)) as { default: MakeConfig };
  const saved = process.env.ADDIN_URL;
  process.env.ADDIN_URL = addinUrl;
  try {
    return await makeConfig({}, { mode: "production" });
  } finally {
    if (saved === undefined) delete process.env.ADDIN_URL;
    else process.env.ADDIN_URL = saved;
  }
}

function build(config: Configuration): Promise<Stats> {
  return new Promise((resolve, reject) => {
    webpack({ ...config, context: REPO, infrastructureLogging: { level: "error" } }, (err, stats) => {
      if (err) reject(err);
      else if (!stats) reject(new Error("webpack returned no stats"));
      else if (stats.hasErrors()) reject(new Error(stats.toString({ all: false, errors: true })));
      else resolve(stats);
    });
  });
}

/** The task pane's first bundle: the script of taskpane.html that webpack named after the entry. */
function firstBundle(out: string): string {
  const html = readFileSync(path.join(out, "taskpane.html"), "utf8");
  return [...html.matchAll(/<script\b[^>]*\bsrc="?([^"\s>]+)"?[^>]*>/g)]
    .map((m) => m[1]!)
    .find((s) => /(^|\/)taskpane\.[^/]*\.js$/.test(s))!;
}

describe("production build", () => {
  let out: string;
  beforeAll(async () => {
    out = mkdtempSync(path.join(tmpdir(), "cellbound-build-"));
    const config = await productionConfig(ADDIN_URL);
    await build({ ...config, output: { ...config.output, path: out } });
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("copies manifest.xml with every dev URL replaced by ADDIN_URL", () => {
    const manifest = readFileSync(path.join(out, "manifest.xml"), "utf8");
    expect(manifest).not.toContain("https://localhost:3000");
    expect(manifest).toContain(`<SourceLocation DefaultValue="${ADDIN_URL}/taskpane.html"/>`);
    expect(manifest).toContain(`<bt:Url id="Taskpane.Url" DefaultValue="${ADDIN_URL}/taskpane.html"/>`);
    expect(manifest).toContain(`<IconUrl DefaultValue="${ADDIN_URL}/assets/icon-32.png"/>`);
  });

  it("the built manifest passes the offline validator against the built icons", () => {
    expect(existsSync(path.join(out, "assets", "icon-80.png"))).toBe(true);
    expect(validateManifestFile(path.join(out, "manifest.xml"))).toEqual([]);
  });

  it("taskpane.html loads Office.js from the Office CDN before the bundle, and the bundle exists", () => {
    const html = readFileSync(path.join(out, "taskpane.html"), "utf8");
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="?([^"\s>]+)"?[^>]*>/g)].map((m) => m[1]!);
    expect(scripts[0]).toBe(OFFICE_JS);
    const bundle = scripts.find((s) => !/^https?:/.test(s) && /(^|\/)taskpane\.[^/]*\.js$/.test(s));
    expect(bundle).toBeDefined();
    expect(existsSync(path.join(out, bundle!))).toBe(true);
    expect(scripts.some((s) => s.includes("node_modules") || s.includes("harness"))).toBe(false);
  });

  it("taskpane.html carries the pane's CSP before any script: scripts from itself and the Office CDN only, no inline script, no eval", () => {
    const html = readFileSync(path.join(out, "taskpane.html"), "utf8");
    const meta = /<meta http-equiv="?Content-Security-Policy"? content="([^"]+)"/.exec(html);
    expect(meta).not.toBeNull();
    expect(html.indexOf(meta![0])).toBeLessThan(html.indexOf("<script"));
    const policy = new Map(
      meta![1]!.split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values] as const;
      }),
    );
    expect(policy.get("script-src")).toEqual(["'self'", "https://appsforoffice.microsoft.com", "'wasm-unsafe-eval'"]);
    expect(policy.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
    expect(policy.get("connect-src")).toEqual(["'self'", "https:"]);
    expect(policy.get("frame-src")).toEqual(["'self'", "https:"]);
    expect(policy.get("object-src")).toEqual(["'none'"]);
    expect(policy.get("default-src")).toEqual(["'self'"]);
    // Every script of the page is a file: nothing inline for the policy to refuse.
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/\bsrc=/.test(m[1]!) || m[2]!.trim() !== "");
    expect(inline).toEqual([]);
  });

  it("the first bundle stays within 90 KB gzip (issue 34); vega (the chat's charts) comes only in an on-demand chunk", () => {
    const first = readFileSync(path.join(out, firstBundle(out)));
    expect(gzipSync(first).length).toBeLessThanOrEqual(90 * 1024);
    expect(first.toString("utf8")).not.toContain("vega-embed");
    const chunks = readdirSync(out).filter((f) => f.endsWith(".js") && f !== path.basename(firstBundle(out)));
    expect(chunks.some((f) => readFileSync(path.join(out, f), "utf8").includes("vega-embed"))).toBe(true);
  });

  it("each pane loads when it is opened (issue 34): its own chunk holds its view and its live service, the first bundle neither", () => {
    const first = readFileSync(path.join(out, firstBundle(out)), "utf8");
    // Words only that pane says: its view's, and its live service's (string literals survive minifying).
    const PANES: Record<string, string[]> = {
      chat: ["Ask about the selection", "(from Chat)"],
      comments: ["Load more threads", "No session URL is configured for comments."],
      dashboard: ["Insert dashboard picture", "allow-scripts allow-same-origin allow-downloads"],
      builder: ["Save report"],
      diagnostics: ["Report as text", "Office.js adapter in this Excel"],
      // The live backend (the API layer's clients, the sync engine, the Office.js adapter): the first sign-in loads it.
      backend: ["No platform API answers at"],
    };
    // Chunks come from where the first bundle came from (webpack's automatic public path): the pane's
    // own origin, which the CSP's script-src 'self' allows.
    expect(first).toContain("currentScript");
    const files = readdirSync(out);
    for (const [pane, words] of Object.entries(PANES)) {
      const chunk = files.filter((f) => f.startsWith(`${pane}.`) && f.endsWith(".js"));
      expect(chunk, pane).toHaveLength(1);
      const text = readFileSync(path.join(out, chunk[0]!), "utf8");
      for (const w of words) {
        expect(text, pane).toContain(w);
        expect(first, pane).not.toContain(w);
      }
    }
  });
});

describe("production build configuration", () => {
  it("refuses an ADDIN_URL that is not https", async () => {
    await expect(productionConfig("http://cellbound.example.com")).rejects.toThrow("ADDIN_URL must be an https URL");
  });
});
