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
  /** The comments users the harness can switch between ("Comments as"), so a conversation can be tried. */
  embedViewers?: { externalId: string; name: string }[];
  /** The stand-in's default agent (its start line's chat.agentId): the chat's agent id when the user has none. */
  chatAgentId?: string;
}

export const CONFIG_PATH = "/harness-config.json";

/** The demo's comments users (embed viewers of the stand-in's first tenant): "Comments as" switches between them. */
export const DEMO_COMMENTS_USERS = [
  { externalId: "ana", firstName: "Ana", email: "ana@acme-retail.example" },
  { externalId: "ben", firstName: "Ben", email: "ben@acme-retail.example" },
] as const;

/**
 * Give each demo comments user its embed user now (through the stand-in's dev session broker), so
 * @mentions offer a colleague from the start; answers the harness config's embedViewer(s).
 */
export async function demoCommentsUsers(baseUrl: string, tenant: string): Promise<Pick<HarnessConfig, "embedViewer" | "embedViewers">> {
  for (const v of DEMO_COMMENTS_USERS) {
    const res = await fetch(`${baseUrl}/__dev/embed-session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...v, embedTenantName: tenant }),
    });
    if (!res.ok) throw new Error(`the dev session broker refused ${v.externalId}: ${res.status}`);
  }
  return {
    embedViewer: { externalId: DEMO_COMMENTS_USERS[0].externalId, embedTenantName: tenant },
    embedViewers: DEMO_COMMENTS_USERS.map((v) => ({ externalId: v.externalId, name: v.firstName })),
  };
}

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
  const vs = o.embedViewers;
  if (vs !== undefined) {
    if (
      !Array.isArray(vs) ||
      !vs.every(
        (x) =>
          !!x &&
          typeof x === "object" &&
          typeof (x as Record<string, unknown>).externalId === "string" &&
          typeof (x as Record<string, unknown>).name === "string",
      )
    )
      throw new Error("harness config: embedViewers must be [{externalId, name}]");
    out.embedViewers = (vs as { externalId: string; name: string }[]).map((x) => ({ externalId: x.externalId, name: x.name }));
  }
  return out;
}
