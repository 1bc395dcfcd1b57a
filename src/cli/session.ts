// The signed-in session of one run: the platform client, the data clients per deployment, and the
// engine over a workbook file. Every request goes through the run's fetch (net.ts: its time limit, and
// the stop once the platform has stopped answering).
import {
  createDataClient,
  createDeploymentTokenManager,
  createPlatformClient,
  defaultDataUrl,
  type DataClient,
  type Deadlines,
  type PlatformClient,
  type RetryPolicy,
} from "../api/index.ts";
import type { XlsxPort } from "../host/xlsx/port.ts";
import type { SyncContext } from "../sync/context.ts";
import { SyncEngine, type DeploymentRole } from "../sync/index.ts";
import type { Credentials } from "./args.ts";

/** Tests only: shorter deadlines and retries than the defaults (src/api/deadlines.ts). */
export interface ApiTuning {
  deadlines?: Partial<Deadlines>;
  retry?: Partial<RetryPolicy>;
  dataRetry?: Partial<RetryPolicy>;
}

export interface Session {
  platform: PlatformClient;
  dataUrl: string;
  /** The active deployment (new placements go there). */
  deployment: { id: number; name: string };
  /** Deployments this key can use, id → name. */
  usable: Map<number, string>;
  /** The key's role per deployment (a viewer's placements are view only, known before anything is tried). */
  roles: Map<number, DeploymentRole>;
  dataFor: (deploymentId: number) => DataClient;
}

export async function openSession(
  creds: Credentials,
  deploymentId: number | null,
  o: { fetch: typeof fetch; signal: AbortSignal; api?: ApiTuning },
): Promise<Session> {
  const platform = createPlatformClient({
    baseUrl: creds.platformUrl,
    credential: creds.apiKey,
    fetch: o.fetch,
    ...(o.api?.retry ? { retry: o.api.retry } : {}),
    ...(o.api?.deadlines ? { deadlines: o.api.deadlines } : {}),
  });
  const deployments = await platform.listDeployments(o.signal);
  const usable = new Map(deployments.map((d) => [d.id, d.name]));
  const roles = new Map(deployments.map((d) => [d.id, d.role]));
  const active = deploymentId === null ? deployments[0] : deployments.find((d) => d.id === deploymentId);
  if (!active)
    throw new Error(
      deploymentId === null
        ? "this API key cannot use any deployment"
        : `this API key cannot use deployment ${deploymentId} (it can use ${[...usable.keys()].join(", ") || "none"})`,
    );
  const dataUrl = creds.dataUrl ?? defaultDataUrl(creds.platformUrl);
  const clients = new Map<number, DataClient>();
  const dataFor = (id: number) => {
    let d = clients.get(id);
    if (!d)
      clients.set(
        id,
        (d = createDataClient({
          dataUrl,
          token: createDeploymentTokenManager({ client: platform, deploymentId: id }),
          fetch: o.fetch,
          ...(o.api?.dataRetry ? { retry: o.api.dataRetry } : {}),
          ...(o.api?.deadlines ? { deadlines: o.api.deadlines } : {}),
        })),
      );
    return d;
  };
  return { platform, dataUrl, deployment: { id: active.id, name: active.name }, usable, roles, dataFor };
}

/** The platform calls that change something resolve without doing anything (a dry run). */
export function readOnly(platform: PlatformClient): SyncContext["platform"] {
  const noop = async () => undefined as never;
  return {
    iterateReports: (...a) => platform.iterateReports(...a),
    iterateExternalPlacements: (...a) => platform.iterateExternalPlacements(...a),
    upsertReport: noop,
    updateReport: noop,
    refreshReport: noop,
    connectWorkbook: noop,
    disconnectWorkbook: noop,
  };
}

/**
 * status: what the pane's check records when it opens a workbook — a write that landed but was not
 * recorded, a placement moved or renamed in Excel — and nothing else.
 */
export function checkOnly(platform: PlatformClient): SyncContext["platform"] {
  return {
    ...readOnly(platform),
    refreshReport: (...a) => platform.refreshReport(...a),
    connectWorkbook: (...a) => platform.connectWorkbook(...a),
  };
}

export function engineFor(port: XlsxPort, s: Session, platform: SyncContext["platform"]): SyncEngine {
  return new SyncEngine({
    port,
    platform,
    data: s.dataFor(s.deployment.id),
    deploymentId: s.deployment.id,
    deploymentName: s.deployment.name,
    deploymentNames: (id) => s.usable.get(id),
    roleOf: (id) => s.roles.get(id),
    dataFor: (id) => (s.usable.has(id) ? s.dataFor(id) : undefined),
  });
}
