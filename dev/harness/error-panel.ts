// The harness's runtime-error panel: an uncaught error (of the harness page or of the pane inside it)
// shows in a small dismissible box at the bottom left — never an overlay that blocks every click
// (webpack's overlay is off for runtime errors, see webpack.config.js). Repeated messages count up
// instead of piling up.

export interface ErrorPanel {
  show(e: unknown): void;
  watch(win: Window): void;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return typeof e === "string" ? e : (JSON.stringify(e) ?? String(e));
}

export function installErrorPanel(doc: Document): ErrorPanel {
  const seen = new Map<string, number>();
  let box: HTMLElement | null = null;
  const draw = () => {
    if (seen.size === 0) {
      box?.remove();
      box = null;
      return;
    }
    if (!box) {
      box = doc.createElement("div");
      box.className = "hx-errors";
      box.setAttribute("role", "alert");
      doc.body.append(box);
    }
    box.replaceChildren();
    const title = doc.createElement("strong");
    title.textContent = "Runtime error (see the browser console for the stack)";
    const list = doc.createElement("pre");
    list.textContent = [...seen].map(([m, n]) => (n > 1 ? `${m} (×${n})` : m)).join("\n");
    const dismiss = doc.createElement("button");
    dismiss.type = "button";
    dismiss.textContent = "Dismiss";
    dismiss.addEventListener("click", () => {
      seen.clear();
      draw();
    });
    box.append(title, list, dismiss);
  };
  const show = (e: unknown) => {
    const m = messageOf(e);
    seen.set(m, (seen.get(m) ?? 0) + 1);
    draw();
  };
  return {
    show,
    watch(win) {
      win.addEventListener("error", (e) => show(e.error ?? e.message));
      win.addEventListener("unhandledrejection", (e) => show(e.reason));
    },
  };
}
