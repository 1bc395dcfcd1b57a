// The live backend on demand: backend.ts and all it reaches (the API layer's clients, the sync engine,
// the Office.js adapter, zod's schemas) come in their own chunk, "backend", loaded when the first
// sign-in needs it (Sign in, or a stored connection at start) — the first paint does not wait for it.
import type { Backend } from "./model";
import type { EmbedConfig } from "../types";
import type { ChatDefaults } from "../chat/live";

/** A Backend whose calls wait for `load`: once, and again at the next call if it failed (offline). */
export function backendOnDemand(load: () => Promise<Backend>): Backend {
  let loading: Promise<Backend> | null = null;
  const backend = () =>
    (loading ??= load().catch((e: unknown) => {
      loading = null;
      throw e;
    }));
  return {
    signIn: async (input, signal) => (await backend()).signIn(input, signal),
    open: async (input, deployment, deployments) => (await backend()).open(input, deployment, deployments),
  };
}

/** The pane's live backend (app/backend.ts), in the chunk "backend". */
export function liveBackendOnDemand(embed: EmbedConfig, chat: ChatDefaults): Backend {
  return backendOnDemand(() =>
    import(/* webpackChunkName: "backend" */ "./backend").then((m) => m.createLiveBackend(undefined, embed, chat)),
  );
}
