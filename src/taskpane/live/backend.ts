// The live Backend: Connect over src/api's platform client; each Workspace wires the sync engine
// (src/sync) to the Office.js adapter (src/host/excel) and the API layer.
import { createPlatformClient } from "../../api";
import type { Backend, ConnectInput, Deployment, Workspace } from "../model";
import { openWorkspace } from "./workspace";
import type { EmbedConfig } from "./comments";

/** `embed`: the comments pane's default session URL (and broker request), e.g. from the harness. */
export function createLiveBackend(fetchImpl?: typeof fetch, embed: EmbedConfig = {}): Backend {
  return {
    async signIn(input: ConnectInput, signal?: AbortSignal) {
      const client = createPlatformClient({ baseUrl: input.baseUrl, credential: input.credential, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
      const [me, deployments] = await Promise.all([client.getMe(signal), client.listDeployments(signal)]);
      const name = `${me.firstName} ${me.lastName}`.trim();
      return { user: { name: name || me.email, email: me.email }, deployments: deployments.map((d) => ({ id: d.id, name: d.name })) };
    },
    open(input: ConnectInput, deployment: Deployment): Promise<Workspace> {
      return openWorkspace(input, deployment, fetchImpl, embed);
    },
  };
}
