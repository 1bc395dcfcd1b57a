// Draws a checked Vega-Lite spec (conversation.ts chartSpec: inside the subset the pane draws, the
// answer's rows inline) with vega-embed. Loaded on demand (dynamic import from ChartPart): vega is
// large and stays out of the pane's first bundle.
// The embedding is fixed here and nothing in the spec can change it (issue #26): vega-embed merges a
// spec's `usermeta.embedOptions` over the caller's options (actions menu with a "View Source" page
// of the spec's own HTML, another loader, expression functions), so usermeta is dropped before embed
// and the result is checked for an actions menu afterwards. CSP-safe: the expression interpreter
// instead of generated functions (ast + expr). A loader that refuses every fetch. Tooltips are the
// pane's own and show values as text (vega-tooltip's default turns a field named "image" into
// <img src=…>, a request to any host).
import embed, { vega, type EmbedOptions, type Result } from "vega-embed";
import { expressionInterpreter } from "vega-interpreter";

const refused = () => Promise.reject(new Error("Cellbound charts draw only the answer's own rows; loading other data is refused."));

export async function renderChart(el: HTMLElement, spec: Record<string, unknown>, dark: boolean): Promise<() => void> {
  const loader = vega.loader();
  loader.load = refused;
  loader.sanitize = refused;
  loader.http = refused;
  loader.file = refused;
  const tooltip = new TextTooltip(el);
  // Never handed to vega-embed, whatever the caller passed: its embedOptions would override ours.
  const { usermeta: _ignored, ...drawn } = spec;
  const options: EmbedOptions = {
    mode: "vega-lite",
    actions: false,
    renderer: "svg",
    ast: true,
    expr: expressionInterpreter,
    loader,
    tooltip: tooltip.show,
    ...(dark ? { theme: "dark" as const } : {}),
    logLevel: vega.Warn,
  };
  let result: Result;
  try {
    result = await embed(el, drawn as Parameters<typeof embed>[1], options);
  } catch (e) {
    tooltip.remove();
    throw e;
  }
  const finalize = () => {
    result.finalize();
    tooltip.remove();
  };
  if (el.querySelector(".vega-actions, details") || result.embedOptions.actions !== false) {
    finalize();
    el.replaceChildren();
    throw new Error("the chart asked for an actions menu, which the pane never shows.");
  }
  return finalize;
}

/** A value of a tooltip as text: vega-lite hands over strings and numbers already formatted. */
function asText(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/**
 * vega's tooltip hook (handler, event, item, value), drawn with text nodes only: no markup, no
 * image, no link, whatever a value holds. One element per chart, created on first hover.
 */
class TextTooltip {
  private box: HTMLDivElement | null = null;
  constructor(private readonly owner: HTMLElement) {}

  readonly show = (_handler: unknown, event: MouseEvent, _item: unknown, value: unknown): void => {
    if (value === null || value === undefined || value === "") {
      if (this.box) this.box.hidden = true;
      return;
    }
    const box = this.box ?? this.create();
    const lines: [string | null, string][] =
      typeof value === "object" && !Array.isArray(value)
        ? Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, asText(v)])
        : [[null, asText(value)]];
    box.replaceChildren(
      ...lines.map(([k, v]) => {
        const row = document.createElement("div");
        if (k !== null) {
          const key = document.createElement("span");
          key.className = "cb-chart-tooltip-key";
          key.textContent = `${k}: `;
          row.append(key);
        }
        row.append(document.createTextNode(v));
        return row;
      }),
    );
    box.hidden = false;
    const x = Math.min(event.clientX + 12, window.innerWidth - box.offsetWidth - 4);
    const y = event.clientY + 12 + box.offsetHeight > window.innerHeight ? event.clientY - box.offsetHeight - 12 : event.clientY + 12;
    box.style.left = `${Math.max(4, x)}px`;
    box.style.top = `${Math.max(4, y)}px`;
  };

  private create(): HTMLDivElement {
    const box = document.createElement("div");
    box.className = "cb-chart-tooltip";
    box.setAttribute("role", "tooltip");
    box.hidden = true;
    this.owner.append(box);
    this.box = box;
    return box;
  }

  remove(): void {
    this.box?.remove();
    this.box = null;
  }
}
