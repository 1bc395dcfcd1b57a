// The composition root, its first half — the live Backend: Connect over src/api's platform client; each
// Workspace (workspace.ts) wires every room's live service to the API layer, the sync engine (src/sync)
// and the Office.js adapter (src/host/excel). It is the root of the chunk "backend" (backend-on-demand.ts).
// First, the settings the Content-Security-Policy needs before any of zod's schemas is made.
import "../csp";
import {
  ApiError,
  createPlatformClient,
  DataUrlError,
  LIMITS,
  InvalidResponseError,
  NotFoundError,
  PlatformUrlError,
  probeDataUrl,
  type Deployment as ApiDeployment,
  type Me,
  type PlatformClient,
} from "../../api";
import type { Backend, ConnectInput, Workspace } from "./model";
import type { Deployment, EmbedConfig } from "../types";
import { defaultDataUrl, openWorkspace } from "./workspace";
import type { ChatDefaults } from "../chat/live";

/**
 * `embed`: the comments pane's default session URL (and broker request), e.g. from the harness;
 * `chat`: the chat's defaults (the harness gives the stand-in's default agent id).
 */
export function createLiveBackend(fetchImpl?: typeof fetch, embed: EmbedConfig = {}, chat: ChatDefaults = {}): Backend {
  return {
    async signIn(input: ConnectInput, signal?: AbortSignal) {
      const client = createPlatformClient({
        baseUrl: input.baseUrl,
        credential: input.credential,
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      });
      const [me, deployments] = await checkPlatformUrl(input.baseUrl, () =>
        Promise.all([client.getMe(signal), client.listDeployments(signal)]),
      );
      const first = deployments[0];
      if (first) await checkDataUrl(client, input, first.id, signal, fetchImpl);
      const name = `${me.firstName} ${me.lastName}`.trim();
      return {
        user: { name: name || me.email, email: me.email },
        deployments: deployments.map((d) => ({ id: d.id, name: d.name, role: d.role })),
      };
    },
    open(input: ConnectInput, deployment: Deployment, deployments?: readonly Deployment[]): Promise<Workspace> {
      return openWorkspace(input, deployment, fetchImpl, deployments, embed, chat);
    },
  };
}

/**
 * A platform URL that answers with nothing (404) or with a web page instead of the API is the
 * URL's fault, not a missing report: most often it carries a path (https://host/app).
 */
async function checkPlatformUrl(baseUrl: string, f: () => Promise<[Me, ApiDeployment[]]>): Promise<[Me, ApiDeployment[]]> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof NotFoundError || e instanceof InvalidResponseError)) throw e;
    const url = new URL(baseUrl);
    const hint =
      url.pathname.replace(/\/+$/, "") !== ""
        ? ` The platform URL is the platform's address without a path: try ${url.origin}.`
        : " Check that it is your platform's address.";
    throw new PlatformUrlError(`No platform API answers at ${baseUrl} (${e.message}).${hint}`, baseUrl, e);
  }
}

/**
 * Sign-in finds a wrong data API URL now, not at the first refresh: it mints a short-lived token
 * for the first deployment and asks {dataUrl}/v1/meta. Only an answer that is not a data API's is
 * blamed on the URL (DataUrlError); a failed mint or a server error there is left to the first real
 * use, where it is reported as what it is.
 */
async function checkDataUrl(
  client: PlatformClient,
  input: ConnectInput,
  deploymentId: number,
  signal: AbortSignal | undefined,
  fetchImpl?: typeof fetch,
): Promise<void> {
  const dataUrl = input.dataUrl ?? defaultDataUrl(input.baseUrl);
  let token: string;
  try {
    token = (await client.createDeploymentToken(deploymentId, { expiresIn: LIMITS.tokenExpiresInMin }, signal)).token;
  } catch (e) {
    if (signal?.aborted || !(e instanceof ApiError)) throw e;
    return;
  }
  try {
    await probeDataUrl({ dataUrl, token, ...(fetchImpl ? { fetch: fetchImpl } : {}), ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) throw e;
    if (!(e instanceof DataUrlError)) return; // e.g. a 5xx: the data API is there, reported on first use
    if (input.dataUrl !== null) throw e;
    // The default address was tried: say so, and where to enter the right one.
    throw new DataUrlError(
      `${e.message} This is the default data API address; enter your deployment's data API URL under Advanced.`,
      dataUrl,
      e.cause,
    );
  }
}
