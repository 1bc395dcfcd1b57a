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

export default async (env = {}, argv = {}) => {
  const production = argv.mode === "production";
  const port = Number(process.env.PORT ?? 3000);
  const addinUrl = (process.env.ADDIN_URL ?? DEV_URL).replace(/\/$/, "");
  if (production && !/^https:\/\//.test(addinUrl)) {
    throw new Error(`ADDIN_URL must be an https URL (got ${addinUrl}).`);
  }

  const entry = { taskpane: "./src/taskpane/index.tsx" };
  const officeJs = production && !env.harness ? OFFICE_CDN : `${OFFICE_JS_PATH}office.js`;
  const favicon = "./assets/icon-16.png";
  const pages = [
    new HtmlWebpackPlugin({
      filename: "taskpane.html",
      template: "./src/taskpane/taskpane.html",
      chunks: ["taskpane"],
      officeJs,
      favicon,
    }),
  ];
  if (!production || env.harness) {
    entry.harness = "./dev/harness/index.tsx";
    entry["harness-office"] = "./dev/harness/office-shim.ts";
    entry["home-bench"] = "./dev/harness/home-bench.tsx";
    pages.push(
      new HtmlWebpackPlugin({ filename: "harness.html", template: "./dev/harness/harness.html", chunks: ["harness"], favicon }),
      // The workbook home with 2,000 placements, for bench/ui.bench.ts.
      new HtmlWebpackPlugin({
        filename: "home-bench.html",
        template: "./dev/harness/harness-taskpane.html",
        chunks: ["home-bench"],
        officeJs,
        favicon,
      }),
      // The real task-pane bundle, with the dev/excel Office shim loaded first instead of the CDN.
      new HtmlWebpackPlugin({
        filename: "harness-taskpane.html",
        template: "./dev/harness/harness-taskpane.html",
        chunks: ["harness-office", "taskpane"],
        chunksSortMode: "manual",
        officeJs,
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
    devtool: production ? "source-map" : "eval-cheap-module-source-map",
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
