// `npm run platform -- [--port N] [--data-dir DIR] [--slow-query-ms N] [--dev-hooks] [--chaos SEED [--chaos-rates k=p,…]]
//   [--chat-delta-ms N] [--no-chat] [--ai-paywalled] [--no-dashboard-apps] [--restrict-data-download] [--timezone TZ] [--no-scheduled-tasks]` (--no-chat … --timezone set app-config; --no-scheduled-tasks turns scheduled tasks off for the account): starts the
// stand-in, prints exactly one JSON line (PlatformInfo) on stdout when ready, logs to
// stderr, and stops cleanly (connections closed, database checkpointed) on SIGTERM/SIGINT.
import { parseArgs } from "node:util";
import { startPlatform } from "./server";
import { DEFAULT_CHAOS_RATES, parseRates } from "./chaos";

function usage(msg: string): never {
  process.stderr.write(
    `${msg}\nusage: npm run platform -- [--port N] [--data-dir DIR] [--slow-query-ms N] [--dev-hooks] [--chaos SEED [--chaos-rates kind=chance,…]] [--chat-delta-ms N] [--no-chat] [--ai-paywalled] [--no-dashboard-apps] [--restrict-data-download] [--timezone TZ] [--no-scheduled-tasks]\n`,
  );
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      port: { type: "string" },
      "data-dir": { type: "string" },
      "slow-query-ms": { type: "string" },
      "dev-hooks": { type: "boolean" },
      chaos: { type: "string" },
      "chaos-rates": { type: "string" },
      "chat-delta-ms": { type: "string" },
      "no-chat": { type: "boolean" },
      "ai-paywalled": { type: "boolean" },
      "no-dashboard-apps": { type: "boolean" },
      "restrict-data-download": { type: "boolean" },
      timezone: { type: "string" },
      "no-scheduled-tasks": { type: "boolean" },
    },
    strict: true,
  }).values;
} catch (e) {
  usage((e as Error).message);
}
const num = (v: string | undefined, name: string, max: number) => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) > max) usage(`--${name} must be an integer from 0 to ${max}`);
  return Number(v);
};

const chaosSeed = num(args.chaos, "chaos", 2 ** 32 - 1);
if (args["chaos-rates"] !== undefined && chaosSeed === undefined) usage("--chaos-rates needs --chaos SEED");
let rates = DEFAULT_CHAOS_RATES as Record<string, number>;
try {
  if (args["chaos-rates"] !== undefined) rates = parseRates(args["chaos-rates"]);
} catch (e) {
  usage((e as Error).message);
}

const platform = await startPlatform({
  port: num(args.port, "port", 65535),
  dataDir: args["data-dir"],
  slowQueryMs: num(args["slow-query-ms"], "slow-query-ms", 600_000),
  devHooks: args["dev-hooks"] === true,
  ...(chaosSeed !== undefined ? { chaos: { seed: chaosSeed, rates } } : {}),
  chatDeltaMs: num(args["chat-delta-ms"], "chat-delta-ms", 10_000),
  scheduledTasks: args["no-scheduled-tasks"] !== true,
  appConfig: {
    ...(args["no-chat"] ? { sheetsAgentChatEnabled: false } : {}),
    ...(args["ai-paywalled"] ? { aiPaywalled: true } : {}),
    ...(args["no-dashboard-apps"] ? { dashboardAppsEnabled: false } : {}),
    ...(args["restrict-data-download"] ? { restrictDataDownload: true } : {}),
    ...(args.timezone ? { timezoneSettings: { timezone: args.timezone } } : {}),
  },
});
process.stdout.write(JSON.stringify(platform.info) + "\n");

let stopping = false;
for (const sig of ["SIGTERM", "SIGINT"] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`platform: ${sig}, stopping\n`);
    platform.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`platform: close failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  });
}
