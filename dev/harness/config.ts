// The harness page's configuration, served as /harness-config.json by `npm start` and by the e2e and
// bench servers: where the platform stand-in is and the analyst's demo credential to pre-fill
// (harness only — the production pane never receives one). Validated when read by the page.

export interface HarnessConfig {
  baseUrl: string;
  dataUrl: string;
  /** The stand-in's analyst API key, pre-filled in Connect. */
  credential: string;
  persona: string;
  /** The comments pane's session URL (the stand-in's dev broker, POST /__dev/embed-session). */
  sessionUrl?: string;
  /** Who the dev broker signs in as (the harness page's ?embedUser=&embedTenant= override it). */
  embedViewer?: { externalId: string; embedTenantName?: string };
  /** The stand-in's default agent (its start line's chat.agentId): the chat's agent id when the user has none. */
  chatAgentId?: string;
}

export const CONFIG_PATH = "/harness-config.json";

export function parseHarnessConfig(x: unknown): HarnessConfig {
  const o = x as Record<string, unknown> | null;
  if (!o || typeof o !== "object") throw new Error("harness config is not an object");
  for (const k of ["baseUrl", "dataUrl", "credential", "persona"] as const) {
    if (typeof o[k] !== "string") throw new Error(`harness config: ${k} must be a string`);
  }
  const out: HarnessConfig = {
    baseUrl: o.baseUrl as string,
    dataUrl: o.dataUrl as string,
    credential: o.credential as string,
    persona: o.persona as string,
  };
  if (o.sessionUrl !== undefined) {
    if (typeof o.sessionUrl !== "string") throw new Error("harness config: sessionUrl must be a string");
    out.sessionUrl = o.sessionUrl;
  }
  if (o.chatAgentId !== undefined) {
    if (typeof o.chatAgentId !== "string" || o.chatAgentId === "")
      throw new Error("harness config: chatAgentId must be a non-empty string");
    out.chatAgentId = o.chatAgentId;
  }
  const v = o.embedViewer as Record<string, unknown> | undefined;
  if (v !== undefined) {
    if (
      typeof v !== "object" ||
      v === null ||
      typeof v.externalId !== "string" ||
      (v.embedTenantName !== undefined && typeof v.embedTenantName !== "string")
    ) {
      throw new Error("harness config: embedViewer must be {externalId, embedTenantName?}");
    }
    out.embedViewer = {
      externalId: v.externalId,
      ...(typeof v.embedTenantName === "string" ? { embedTenantName: v.embedTenantName } : {}),
    };
  }
  return out;
}
