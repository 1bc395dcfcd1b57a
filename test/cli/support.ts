// The command line against the platform stand-in (dev/platform, in process, port 0): runCli with an
// environment of the persona's credentials, capturing what it prints.
import { startPlatform, type RunningPlatform } from "../../dev/platform/server.ts";
import { createPlatformClient, type PlatformClient, type Report, type ReportInput } from "../../src/api/index.ts";
import { runCli, type CliIo } from "../../src/cli/run.ts";

export type Persona = "admin" | "analyst" | "viewer" | "outsider";

export interface CliEnv {
  platform: RunningPlatform;
  deploymentId: number;
  env(persona?: Persona): Record<string, string>;
  client(persona?: Persona): PlatformClient;
  createReport(input: ReportInput, persona?: Persona): Promise<Report>;
  /** `o`: more of the run's io (shorter API deadlines and retries, a fetch, more environment). */
  cli(
    args: string[],
    persona?: Persona,
    o?: { api?: CliIo["api"]; fetch?: typeof fetch; env?: Record<string, string> },
  ): Promise<{ code: number; stdout: string; stderr: string; json: () => CliJson }>;
  close(): Promise<void>;
}

export interface CliJson {
  error?: string;
  shard?: { index: number; count: number; workbooks: number; of: number };
  files: Array<{
    file: string;
    error?: string;
    notTried?: string;
    saved?: boolean;
    placements: Array<{
      range: string | null;
      reportId: number | null;
      reportName: string | null;
      outcome: string;
      cellsWritten: number;
      editedCells: string[];
      reason: string | null;
      status?: string;
      owner?: { name: string | null; email: string | null } | null;
    }>;
  }>;
}

export async function startCliEnv(): Promise<CliEnv> {
  const platform = await startPlatform({ log: () => {} });
  const deploymentId = platform.info.deployments[0]!.id;
  const env = (persona: Persona = "analyst") => ({
    CELLBOUND_PLATFORM_URL: platform.info.baseUrl,
    CELLBOUND_API_KEY: platform.info.apiKeys[persona],
    CELLBOUND_DATA_URL: platform.info.dataUrl,
  });
  const client = (persona: Persona = "analyst") =>
    createPlatformClient({
      baseUrl: platform.info.baseUrl,
      credential: platform.info.apiKeys[persona],
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
  let n = 0;
  return {
    platform,
    deploymentId,
    env,
    client,
    async createReport(input, persona = "analyst") {
      n++;
      return client(persona).createReport(deploymentId, { name: `Report ${n}`, title: `Report ${n}`, ...input });
    },
    async cli(args, persona = "analyst", o = {}) {
      let stdout = "";
      let stderr = "";
      const code = await runCli(args, {
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        progress: false,
        env: { ...env(persona), ...o.env },
        ...(o.api ? { api: o.api } : {}),
        ...(o.fetch ? { fetch: o.fetch } : {}),
      });
      return { code, stdout, stderr, json: () => JSON.parse(stdout) as CliJson };
    },
    close: () => platform.close(),
  };
}

/** A small flat report: order counts by status. */
export const byStatus = (limit = 5): ReportInput => ({
  jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit }),
});
export const byCustomer = (limit: number): ReportInput => ({
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["customers.id", "customers.name"],
    order: [["customers.id", "asc"]],
    limit,
  }),
});
