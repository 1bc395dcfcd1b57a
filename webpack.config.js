// Webpack config (JavaScript: webpack-cli cannot load a TypeScript config).
//
//   development (npm run dev-server / npm start): the task pane plus the browser
//     harness, served over plain http on 127.0.0.1:3000.
//   --env https (npm run start:desktop / start:web): the same over https with
//     office-addin-dev-certs, for sideloading into real Excel.
//   production (npm run build): the task pane only, with manifest.xml copied and
//     https://localhost:3000 replaced by ADDIN_URL.
//   --env harness (with production): also the harness pages, minified — what the e2e tests and the
//     UI benchmark build programmatically (dev/harness/serve.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import HtmlWebpackPlugin from "html-webpack-plugin";
import CopyWebpackPlugin from "copy-webpack-plugin";

const here = path.dirname(fileURLToPath(import.meta.url));
const DEV_URL = "https://localhost:3000";
/** Office.js: Microsoft's CDN in production (the only copy supported there, and what the Store requires). */
const OFFICE_CDN = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";
/** Everywhere else (dev server, harness, e2e, benchmarks, offline): the pinned @microsoft/office-js package, served locally. */
export const OFFICE_JS_PATH = "/office-js/";
export const OFFICE_JS_DIR = path.resolve(here, "node_modules/@microsoft/office-js/dist");

/** Where Office.js comes from in production: its scripts (office.js loads its host-specific files from there too). */
const OFFICE_ORIGIN = new URL(OFFICE_CDN).origin;
/** The platform stand-in and the dev broker on this machine (their ports are chosen at start: port 0 in tests). */
const LOOPBACK = ["http://127.0.0.1:*", "http://localhost:*"];

/**
 * The task pane's Content-Security-Policy, a <meta> in taskpane.html and harness-taskpane.html
 * (docs/UI.md, "Content-Security-Policy"). Scripts only from the pane's own origin (and Office.js's
 * in production): no inline script, no eval — charts use vega's expression interpreter, zod runs
 * jitless (src/taskpane/csp.ts); 'wasm-unsafe-eval' lets xxhash-wasm compile its WebAssembly (it
 * allows no JavaScript eval). The platform, data and AI hosts are the user's own (entered in the
 * pane, learned from app-config), so the build cannot name them: connect-src and frame-src allow
 * https: (plus loopback, for the stand-ins, outside production). Images only from the pane itself,
 * data: and blob: — no image beacons to any host.
 */
export function contentSecurityPolicy({ officeCdn }) {
  const hosts = officeCdn ? ["https:"] : ["https:", ...LOOPBACK];
  return [
    "default-src 'self'",
    `script-src 'self'${officeCdn ? ` ${OFFICE_ORIGIN}` : ""} 'wasm-unsafe-eval'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${hosts.join(" ")}`,
    `frame-src 'self' ${hosts.join(" ")}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}

export default async (env = {}, argv = {}) => {
  const production = argv.mode === "production";
  const port = Number(process.env.PORT ?? 3000);
  const addinUrl = (process.env.ADDIN_URL ?? DEV_URL).replace(/\/$/, "");
  if (production && !/^https:\/\//.test(addinUrl)) {
    throw new Error(`ADDIN_URL must be an https URL (got ${addinUrl}).`);
  }

  const entry = { taskpane: "./src/taskpane/index.tsx" };
  const officeCdn = production && !env.harness;
  const officeJs = officeCdn ? OFFICE_CDN : `${OFFICE_JS_PATH}office.js`;
  const csp = contentSecurityPolicy({ officeCdn });
  const favicon = "./assets/icon-16.png";
  const pages = [
    new HtmlWebpackPlugin({
      filename: "taskpane.html",
      template: "./src/taskpane/taskpane.html",
      chunks: ["taskpane"],
      officeJs,
      csp,
      favicon,
    }),
  ];
  if (!production || env.harness) {
    entry.harness = "./dev/harness/index.tsx";
    entry["harness-office"] = "./dev/harness/office-shim.ts";
    // Runs before office.js (a file, not an inline script: the pane's CSP has no 'unsafe-inline').
    entry["harness-before-office"] = { import: "./dev/harness/before-office.ts", filename: "harness-before-office.js" };
    entry["home-bench"] = "./dev/harness/home-bench.tsx";
    pages.push(
      new HtmlWebpackPlugin({ filename: "harness.html", template: "./dev/harness/harness.html", chunks: ["harness"], favicon }),
      // The workbook home with 2,000 placements, for bench/ui.bench.ts.
      new HtmlWebpackPlugin({
        filename: "home-bench.html",
        template: "./dev/harness/harness-taskpane.html",
        chunks: ["home-bench"],
        officeJs,
        csp,
        favicon,
      }),
      // The real task-pane bundle, with the dev/excel Office shim loaded first instead of the CDN.
      new HtmlWebpackPlugin({
        filename: "harness-taskpane.html",
        template: "./dev/harness/harness-taskpane.html",
        chunks: ["harness-office", "taskpane"],
        chunksSortMode: "manual",
        officeJs,
        csp,
        favicon,
      }),
    );
  }

  let server = { type: "http" };
  if (env.https) {
    const devCerts = await import("office-addin-dev-certs");
    server = { type: "https", options: await devCerts.getHttpsServerOptions() };
  }

  return {
    mode: production ? "production" : "development",
    // No eval-based source maps in development: the pane's CSP has no 'unsafe-eval'.
    devtool: production ? "source-map" : "cheap-module-source-map",
    entry,
    output: {
      path: path.resolve(here, "dist"),
      filename: "[name].[contenthash:8].js",
      chunkFilename: "[name].[contenthash:8].js",
      clean: true,
    },
    resolve: {
      extensions: [".ts", ".tsx", ".js"],
      alias: { react: "preact/compat", "react-dom": "preact/compat" },
    },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          loader: "esbuild-loader",
          options: { target: "es2020", jsx: "automatic", jsxImportSource: "preact" },
        },
        { test: /\.css$/, type: "asset/source" },
        { test: /\.wasm$/, type: "asset/resource" },
      ],
    },
    plugins: [
      ...pages,
      new CopyWebpackPlugin({
        patterns: [
          { from: "assets", to: "assets" },
          {
            from: "manifest.xml",
            to: "manifest.xml",
            transform: (content) => (production ? content.toString().split(DEV_URL).join(addinUrl) : content),
          },
        ],
      }),
    ],
    performance: { hints: false },
    devServer: {
      host: "127.0.0.1",
      port,
      server,
      hot: false,
      liveReload: !process.env.CI,
      // Build errors still show webpack's overlay; runtime errors go to the harness's dismissible panel.
      client: { overlay: { warnings: false, errors: true, runtimeErrors: false } },
      headers: { "Access-Control-Allow-Origin": "*" },
      static: [{ directory: OFFICE_JS_DIR, publicPath: OFFICE_JS_PATH, watch: false, serveIndex: false }],
      historyApiFallback: false,
    },
  };
};
