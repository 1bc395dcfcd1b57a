// npm start: the platform stand-in and the harness dev server, side by side.
//   1. starts dev/platform in-process (data kept in .cellbound-data/ so it survives restarts);
//      on a fixed port, http://127.0.0.1:3001 (PLATFORM_PORT to change), so a restart keeps an open pane
//      and its stored sign-in working;
//   2. serves the task pane + harness with webpack-dev-server on http://127.0.0.1:3000 (PORT to change),
//      answering /harness-config.json with the stand-in's URLs and the analyst's demo key;
//   3. prints the harness URL and the demo credentials. Ctrl+C stops both.
import path from "node:path";
import { fileURLToPath } from "node:url";
import webpack from "webpack";
import WebpackDevServer from "webpack-dev-server";
import { startPlatform } from "./platform/server.ts";
import { CONFIG_PATH, demoCommentsUsers, type HarnessConfig } from "./harness/config.ts";
import { answersCors } from "./harness/serve.ts";
import { handleXlsxBridge } from "./harness/xlsx-bridge.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function main(): Promise<void> {
  const port = portFrom("PORT", 3000);
  const platformPort = portFrom("PLATFORM_PORT", 3001);
  const platform = await startPlatform({
    dataDir: path.join(root, ".cellbound-data"),
    devHooks: true,
    port: platformPort,
    fixtures: false,
  }).catch((e: unknown) => {
    if ((e as { code?: string }).code === "EADDRINUSE")
      throw new Error(`Port ${platformPort} is taken (is npm start already running?). Stop the other process or set PLATFORM_PORT.`);
    if (/Could not set lock/i.test(String((e as Error)?.message)))
      throw new Error("Another process holds .cellbound-data (is npm start already running?). Stop it first.");
    throw e;
  });
  const info = platform.info;
  // Two comments users of the demo tenant: @mentions offer a colleague, and "Comments as" switches.
  const viewers = await demoCommentsUsers(info.baseUrl, info.embed.tenants[0]!);
  const own = `http://127.0.0.1:${port}`;
  // The pane (this origin) calls the stand-in (another origin): that needs CORS. Without it, pass the
  // stand-in through this server under /_platform and say so.
  const target = new URL(info.baseUrl).origin;
  const proxied = !(await answersCors(info.baseUrl));
  const via = (u: string) => (proxied && new URL(u).origin === target ? own + "/_platform" + u.slice(target.length) : u);
  const harnessConfig: HarnessConfig = {
    baseUrl: via(info.baseUrl),
    dataUrl: via(info.dataUrl),
    credential: info.apiKeys.analyst,
    persona: "analyst",
    // Comments sign in through the stand-in's dev session broker (a customer's backend in production).
    sessionUrl: via(`${info.baseUrl}/__dev/embed-session`),
    ...viewers,
    // The agent form (deployments whose token sign-in for chat is off) needs an agent id: the stand-in's default.
    chatAgentId: info.chat.agentId,
  };

  const { default: configFn } = (await import(path.join(root, "webpack.config.js"))) as {
    default: (env: object, argv: object) => Promise<webpack.Configuration & { devServer: WebpackDevServer.Configuration }>;
  };
  const config = await configFn({}, { mode: "development" });
  const compiler = webpack({ ...config, context: root, infrastructureLogging: { level: "warn" }, stats: "errors-warnings" });
  const server = new WebpackDevServer(
    {
      ...config.devServer,
      ...(proxied ? { proxy: [{ context: ["/_platform"], target, pathRewrite: { "^/_platform": "" }, changeOrigin: true }] } : {}),
      setupMiddlewares: (middlewares, devServer) => {
        // The harness's "Open .xlsx…" / "Save as .xlsx" (dev/harness/xlsx-bridge.ts).
        devServer.app?.use((req, res, next) => {
          if (!handleXlsxBridge(req, res)) next();
        });
        devServer.app?.get(CONFIG_PATH, (_req, res) => {
          res.setHeader("cache-control", "no-store");
          res.json(harnessConfig);
        });
        devServer.app?.get("/", (_req, res) => res.redirect("/harness.html"));
        return middlewares;
      },
    },
    compiler,
  );
  await server.start().catch(async (e: unknown) => {
    await platform.close();
    throw (e as { code?: string }).code === "EADDRINUSE"
      ? new Error(`Port ${port} is taken (is npm start already running?). Stop the other process or set PORT.`)
      : e;
  });
  const url = `${own}/harness.html`;
  console.log(
    [
      "",
      "Cellbound is running.",
      `  Harness (simulated workbook + task pane):  ${url}`,
      `  Platform stand-in:                          ${info.baseUrl}`,
      `  Data API:                                   ${info.dataUrl}`,
      ...(proxied ? ["  (the stand-in does not answer CORS: the harness reaches it through /_platform on this server)"] : []),
      "  Demo credentials (API keys of the stand-in's personas; the harness pre-fills the analyst's):",
      ...Object.entries(info.apiKeys).map(([persona, key]) => `    ${persona.padEnd(9)} ${String(key)}`),
      "  Press Ctrl+C to stop.",
      "",
    ].join("\n"),
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    await platform.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

/** A port from the environment, or the fixed default (the pane's stored sign-in names the stand-in's URL). */
function portFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number (1–65535), not ${JSON.stringify(raw)}.`);
  return n;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
