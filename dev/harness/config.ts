// The harness page's configuration, served as /harness-config.json by `npm start` and by the e2e and
// bench servers: where the platform stand-in is and the analyst's demo credential to pre-fill
// (harness only — the production pane never receives one). Validated when read by the page.

export interface HarnessConfig {
  baseUrl: string;
  dataUrl: string;
  /** The stand-in's analyst API key, pre-filled in Connect. */
  credential: string;
  persona: string;
}

export const CONFIG_PATH = "/harness-config.json";

export function parseHarnessConfig(x: unknown): HarnessConfig {
  const o = x as Record<string, unknown> | null;
  if (!o || typeof o !== "object") throw new Error("harness config is not an object");
  for (const k of ["baseUrl", "dataUrl", "credential", "persona"] as const) {
    if (typeof o[k] !== "string") throw new Error(`harness config: ${k} must be a string`);
  }
  return { baseUrl: o.baseUrl as string, dataUrl: o.dataUrl as string, credential: o.credential as string, persona: o.persona as string };
}
