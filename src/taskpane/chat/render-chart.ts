// Draws a checked Vega-Lite spec (conversation.ts chartSpec: the answer's rows inline, no URL or
// link anywhere) with vega-embed. Loaded on demand (dynamic import from ChartPart): vega is large
// and stays out of the pane's first bundle. CSP-safe: the expression interpreter instead of
// generated functions (ast + expr). Defence in depth: a loader that refuses every fetch, and no
// actions menu (no export or editor links).
import embed, { vega, type Result } from "vega-embed";
import { expressionInterpreter } from "vega-interpreter";

const refused = () => Promise.reject(new Error("Cellbound charts draw only the answer's own rows; loading other data is refused."));

export async function renderChart(el: HTMLElement, spec: Record<string, unknown>, dark: boolean): Promise<() => void> {
  const loader = vega.loader();
  loader.load = refused;
  loader.sanitize = refused;
  loader.http = refused;
  loader.file = refused;
  const result: Result = await embed(el, spec as Parameters<typeof embed>[1], {
    actions: false,
    renderer: "svg",
    ast: true,
    expr: expressionInterpreter,
    loader,
    tooltip: true,
    ...(dark ? { theme: "dark" as const } : {}),
    logLevel: vega.Warn,
  });
  return () => result.finalize();
}
