// Styles of the harness page (not of the pane): an Excel-like grid, tabs and toolbar.
export const HARNESS_CSS = `
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 13px "Segoe UI", system-ui, sans-serif; color: #242424; background: #f3f3f3; }
.hx-root { display: flex; height: 100vh; }
.hx-book { flex: 1; display: flex; flex-direction: column; min-width: 0; background: #fff; }
.hx-toolbar { display: flex; gap: 4px; padding: 6px; border-bottom: 1px solid #d1d1d1; flex-wrap: wrap; align-items: center; background: #f8f8f8; }
.hx-toolbar button, .hx-tab { font: inherit; padding: 3px 8px; border: 1px solid #c8c8c8; background: #fff; border-radius: 3px; cursor: pointer; }
.hx-toolbar button:focus-visible, .hx-tab:focus-visible, .hx-scroller:focus-visible { outline: 2px solid #000; outline-offset: 1px; }
.hx-docurl { color: #616161; margin-left: auto; font-size: 12px; }
.hx-file { position: relative; padding: 3px 8px; border: 1px solid #c8c8c8; background: #fff; border-radius: 3px; cursor: pointer; }
.hx-file input { position: absolute; inset: 0; opacity: 0; cursor: pointer; width: 100%; }
.hx-file:focus-within { outline: 2px solid #000; outline-offset: 1px; }
.hx-note { font-size: 12px; color: #616161; }
.hx-gridwrap { flex: 1; display: flex; flex-direction: column; min-height: 0; }
.hx-formula { display: flex; gap: 6px; padding: 4px 6px; border-bottom: 1px solid #d1d1d1; align-items: center; min-height: 30px; }
.hx-namebox { width: 110px; padding: 2px 6px; border: 1px solid #d1d1d1; font-family: monospace; font-size: 13px; }
.hx-namebox[aria-invalid="true"] { border-color: #b10e1c; }
.hx-editor { flex: 1; font: inherit; padding: 2px 4px; }
.hx-scroller { flex: 1; overflow: auto; position: relative; }
.hx-canvas { position: relative; }
.hx-cell, .hx-rowhead, .hx-colhead, .hx-corner { position: absolute; height: 22px; line-height: 21px; overflow: hidden; white-space: nowrap; text-overflow: clip; }
.hx-cell { width: 124px; padding: 0 4px; border-right: 1px solid #e1e1e1; border-bottom: 1px solid #e1e1e1; cursor: cell; user-select: none; }
.hx-cell.hx-num { text-align: right; }
.hx-cell.hx-bold { font-weight: 700; }
.hx-cell.hx-frozen { border-bottom: 2px solid #8a8a8a; }
.hx-cell.hx-sel { background: #d6e8fa; outline: 1px solid #0f6cbd; z-index: 1; }
/* Excel tables (sheet-objects.tsx tableLook): --hx-accent is the style's colour. */
.hx-cell.hx-t-medium.hx-t-head { background: var(--hx-accent); color: #fff; font-weight: 700; }
.hx-cell.hx-t-light.hx-t-head { font-weight: 700; border-bottom: 2px solid var(--hx-accent); }
.hx-cell.hx-t-dark.hx-t-head { background: #000; color: #fff; font-weight: 700; }
.hx-cell.hx-t-band { background: color-mix(in srgb, var(--hx-accent) 22%, #fff); }
.hx-cell.hx-t-dark { background: color-mix(in srgb, var(--hx-accent) 75%, #000); color: #fff; }
.hx-cell.hx-t-dark.hx-t-band { background: color-mix(in srgb, var(--hx-accent) 55%, #000); }
.hx-cell.hx-t-head { padding-right: 20px; }
.hx-cell.hx-t.hx-sel { background: #d6e8fa; color: #242424; }
.hx-filter { position: absolute; right: 2px; top: 3px; width: 15px; height: 15px; border: 1px solid #8a8a8a; border-radius: 2px; background: #fff; }
.hx-filter::after { content: ""; position: absolute; left: 3px; top: 5px; border: 4px solid transparent; border-top: 5px solid #424242; }
.hx-chart { position: absolute; z-index: 3; background: #fff; border: 1px solid #c8c8c8; color: #424242; font-size: 10px; }
.hx-chart svg { display: block; font: inherit; }
.hx-chart text { fill: currentColor; }
.hx-chart .hx-chart-title { font-size: 13px; }
.hx-chart .hx-chart-grid { stroke: #d9d9d9; }
.hx-rowhead { width: 56px; text-align: center; background: #f3f3f3; border-right: 1px solid #c8c8c8; border-bottom: 1px solid #e1e1e1; z-index: 2; color: #616161; }
.hx-colhead { width: 124px; text-align: center; background: #f3f3f3; border-bottom: 1px solid #c8c8c8; border-right: 1px solid #e1e1e1; z-index: 3; color: #616161; }
.hx-corner { width: 56px; background: #e8e8e8; z-index: 4; }
.hx-tabs { display: flex; gap: 2px; padding: 4px 6px; border-top: 1px solid #d1d1d1; background: #f8f8f8; }
.hx-tab[aria-selected="true"] { background: #fff; border-bottom: 2px solid #107c41; font-weight: 600; }
.hx-pane { display: flex; flex-direction: column; border-left: 1px solid #c8c8c8; background: #fff; flex: 0 0 auto; }
.hx-panebar { display: flex; flex-wrap: wrap; gap: 4px 12px; justify-content: space-between; padding: 4px 8px; background: #107c41; color: #fff; font-weight: 600; }
.hx-panebar select { font: inherit; font-weight: 400; }
.hx-pane iframe { flex: 1; border: 0; width: 100%; }
.hx-toolbar label { display: inline-flex; gap: 4px; align-items: center; }
.hx-toolbar select, .hx-panebar select { font: inherit; }
.hx-errors { position: fixed; left: 12px; bottom: 12px; max-width: min(640px, 90vw); z-index: 10; background: #fdf3f4; color: #242424;
  border: 1px solid #d13438; border-radius: 4px; padding: 8px 12px; box-shadow: 0 4px 16px rgba(0,0,0,.2); font-size: 12px; }
.hx-errors pre { white-space: pre-wrap; margin: 4px 0; max-height: 30vh; overflow: auto; }
/* Dark theme of the harness page itself (the pane follows Office's theme, which the switch sets). */
html[data-theme="dark"] body { background: #1f1f1f; color: #e6e6e6; }
html[data-theme="dark"] .hx-book, html[data-theme="dark"] .hx-pane { background: #292929; }
html[data-theme="dark"] .hx-toolbar, html[data-theme="dark"] .hx-tabs { background: #2e2e2e; border-color: #474747; }
html[data-theme="dark"] .hx-toolbar button, html[data-theme="dark"] .hx-tab, html[data-theme="dark"] select, html[data-theme="dark"] .hx-namebox, html[data-theme="dark"] .hx-editor { background: #383838; color: #e6e6e6; border-color: #5c5c5c; }
html[data-theme="dark"] .hx-cell { border-color: #3d3d3d; }
html[data-theme="dark"] .hx-cell.hx-sel { background: #1a3a5c; }
html[data-theme="dark"] .hx-cell.hx-t-band { background: color-mix(in srgb, var(--hx-accent) 30%, #292929); }
html[data-theme="dark"] .hx-cell.hx-t-dark { background: color-mix(in srgb, var(--hx-accent) 45%, #000); }
html[data-theme="dark"] .hx-cell.hx-t.hx-sel { background: #1a3a5c; color: #e6e6e6; }
html[data-theme="dark"] .hx-filter { background: #383838; border-color: #8a8a8a; }
html[data-theme="dark"] .hx-filter::after { border-top-color: #e6e6e6; }
html[data-theme="dark"] .hx-chart { background: #1f1f1f; border-color: #5c5c5c; color: #e6e6e6; }
html[data-theme="dark"] .hx-chart .hx-chart-grid { stroke: #474747; }
html[data-theme="dark"] .hx-rowhead, html[data-theme="dark"] .hx-colhead, html[data-theme="dark"] .hx-corner { background: #333; color: #adadad; border-color: #474747; }
html[data-theme="dark"] .hx-formula { border-color: #474747; }
html[data-theme="dark"] .hx-docurl, html[data-theme="dark"] .hx-note { color: #adadad; }
html[data-theme="dark"] .hx-file { background: #383838; color: #e6e6e6; border-color: #5c5c5c; }
html[data-theme="dark"] .hx-file:focus-within { outline-color: #fff; }
html[data-theme="dark"] .hx-tab[aria-selected="true"] { background: #292929; }
`;
