// The pane's stylesheet: Fluent 2 design tokens (web light and web dark themes, as CSS custom
// properties) and the few component styles the pane uses. Kept in a TS string so webpack, vitest's
// browser runner and the harness all load it the same way (no CSS loader involved).
//
// Theme switching: <html data-theme="light|dark"> (set by theme.ts from Office's theme, or from
// prefers-color-scheme outside Office). Everything below reads only the tokens.

const light = `
  --colorNeutralBackground1: #ffffff;
  --colorNeutralBackground2: #fafafa;
  --colorNeutralBackground3: #f5f5f5;
  --colorNeutralBackground1Hover: #f5f5f5;
  --colorNeutralBackground1Pressed: #e0e0e0;
  --colorNeutralForeground1: #242424;
  --colorNeutralForeground2: #424242;
  --colorNeutralForeground3: #616161;
  --colorNeutralForegroundDisabled: #bdbdbd;
  --colorNeutralStroke1: #d1d1d1;
  --colorNeutralStroke2: #e0e0e0;
  --colorBrandBackground: #0f6cbd;
  --colorBrandBackgroundHover: #115ea3;
  --colorBrandBackgroundPressed: #0c3b5e;
  --colorBrandForeground1: #0f6cbd;
  --colorNeutralForegroundOnBrand: #ffffff;
  --colorStrokeFocus1: #ffffff;
  --colorStrokeFocus2: #000000;
  --colorStatusSuccessBackground1: #f1faf1;
  --colorStatusSuccessForeground1: #0e700e;
  --colorStatusSuccessBorder1: #9fd89f;
  --colorStatusWarningBackground1: #fff9f5;
  --colorStatusWarningForeground1: #8a3707;
  --colorStatusWarningBorder1: #fdcfb4;
  --colorStatusDangerBackground1: #fdf3f4;
  --colorStatusDangerForeground1: #b10e1c;
  --colorStatusDangerBorder1: #eeacb2;
  --colorNeutralInfoBackground: #ebf3fc;
  --colorNeutralInfoForeground: #0e4775;
  --shadow4: 0 0 2px rgba(0,0,0,0.12), 0 2px 4px rgba(0,0,0,0.14);
`;

const dark = `
  --colorNeutralBackground1: #292929;
  --colorNeutralBackground2: #1f1f1f;
  --colorNeutralBackground3: #141414;
  --colorNeutralBackground1Hover: #3d3d3d;
  --colorNeutralBackground1Pressed: #1f1f1f;
  --colorNeutralForeground1: #ffffff;
  --colorNeutralForeground2: #d6d6d6;
  --colorNeutralForeground3: #adadad;
  --colorNeutralForegroundDisabled: #5c5c5c;
  --colorNeutralStroke1: #666666;
  --colorNeutralStroke2: #525252;
  --colorBrandBackground: #115ea3;
  --colorBrandBackgroundHover: #0f6cbd;
  --colorBrandBackgroundPressed: #0c3b5e;
  --colorBrandForeground1: #479ef5;
  --colorNeutralForegroundOnBrand: #ffffff;
  --colorStrokeFocus1: #000000;
  --colorStrokeFocus2: #ffffff;
  --colorStatusSuccessBackground1: #052505;
  --colorStatusSuccessForeground1: #54b054;
  --colorStatusSuccessBorder1: #107c10;
  --colorStatusWarningBackground1: #411200;
  --colorStatusWarningForeground1: #faa06b;
  --colorStatusWarningBorder1: #da3b01;
  --colorStatusDangerBackground1: #3b0509;
  --colorStatusDangerForeground1: #dc626d;
  --colorStatusDangerBorder1: #d13438;
  --colorNeutralInfoBackground: #082338;
  --colorNeutralInfoForeground: #96c6fa;
  --shadow4: 0 0 2px rgba(0,0,0,0.24), 0 2px 4px rgba(0,0,0,0.28);
`;

export const PANE_CSS = `
:root, [data-theme="light"] {${light}}
[data-theme="dark"] {${dark}}
:root {
  --fontFamilyBase: "Segoe UI", "Segoe UI Web (West European)", -apple-system, BlinkMacSystemFont, Roboto, "Helvetica Neue", sans-serif;
  --fontSizeBase200: 12px; --lineHeightBase200: 16px;
  --fontSizeBase300: 14px; --lineHeightBase300: 20px;
  --fontSizeBase400: 16px; --lineHeightBase400: 22px;
  --fontSizeBase500: 20px; --lineHeightBase500: 28px;
  --borderRadiusMedium: 4px; --borderRadiusLarge: 8px; --borderRadiusCircular: 10000px;
  --spacingS: 8px; --spacingM: 12px; --spacingL: 16px; --spacingXS: 4px;
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; }
body {
  font-family: var(--fontFamilyBase); font-size: var(--fontSizeBase300); line-height: var(--lineHeightBase300);
  color: var(--colorNeutralForeground1); background: var(--colorNeutralBackground1); min-width: 280px;
}
h1 { font-size: var(--fontSizeBase500); line-height: var(--lineHeightBase500); font-weight: 600; margin: 0 0 var(--spacingS); }
h2 { font-size: var(--fontSizeBase400); line-height: var(--lineHeightBase400); font-weight: 600; margin: var(--spacingM) 0 var(--spacingS); }
h3 { font-size: var(--fontSizeBase300); font-weight: 600; margin: var(--spacingS) 0 var(--spacingXS); }
p { margin: 0 0 var(--spacingS); }
a { color: var(--colorBrandForeground1); }
:focus-visible { outline: 2px solid var(--colorStrokeFocus2); outline-offset: 1px; box-shadow: 0 0 0 3px var(--colorStrokeFocus1); border-radius: var(--borderRadiusMedium); }
.cb-sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.cb-app { display: flex; flex-direction: column; min-height: 100vh; }
.cb-header { display: flex; align-items: center; gap: var(--spacingS); padding: var(--spacingS) var(--spacingM);
  border-bottom: 1px solid var(--colorNeutralStroke2); background: var(--colorNeutralBackground2); flex-wrap: wrap; }
.cb-header .cb-brand { font-weight: 600; margin-right: auto; }
.cb-nav { display: flex; gap: var(--spacingXS); padding: var(--spacingXS) var(--spacingM) 0; border-bottom: 1px solid var(--colorNeutralStroke2); flex-wrap: wrap; }
.cb-nav button { border: none; background: none; padding: var(--spacingS) var(--spacingS); color: var(--colorNeutralForeground2);
  border-bottom: 2px solid transparent; font: inherit; cursor: pointer; }
.cb-nav button[aria-current="page"] { color: var(--colorNeutralForeground1); border-bottom-color: var(--colorBrandBackground); font-weight: 600; }
.cb-main { padding: var(--spacingM); flex: 1; }
.cb-footer { position: sticky; bottom: 0; padding: var(--spacingS) var(--spacingM); border-top: 1px solid var(--colorNeutralStroke2);
  background: var(--colorNeutralBackground2); display: flex; align-items: center; gap: var(--spacingS); flex-wrap: wrap; }

.cb-btn { font: inherit; font-weight: 600; min-height: 32px; padding: 5px 12px; border-radius: var(--borderRadiusMedium);
  border: 1px solid var(--colorNeutralStroke1); background: var(--colorNeutralBackground1); color: var(--colorNeutralForeground1); cursor: pointer; }
.cb-btn:hover { background: var(--colorNeutralBackground1Hover); }
.cb-btn:active { background: var(--colorNeutralBackground1Pressed); }
.cb-btn[disabled] { color: var(--colorNeutralForegroundDisabled); cursor: default; background: var(--colorNeutralBackground1); }
.cb-btn.cb-primary { background: var(--colorBrandBackground); border-color: transparent; color: var(--colorNeutralForegroundOnBrand); }
.cb-btn.cb-primary:hover { background: var(--colorBrandBackgroundHover); }
.cb-btn.cb-primary[disabled] { background: var(--colorNeutralBackground3); color: var(--colorNeutralForegroundDisabled); }
.cb-btn.cb-small { min-height: 24px; padding: 1px 8px; font-weight: 400; font-size: var(--fontSizeBase200); }
.cb-btn.cb-subtle { border-color: transparent; background: transparent; }
/* Destructive actions: a secondary button in the danger colour, never the primary one. */
.cb-btn.cb-danger { color: var(--colorStatusDangerForeground1); border-color: var(--colorStatusDangerBorder1); }
.cb-btn.cb-danger:hover { background: var(--colorStatusDangerBackground1); }
.cb-message { position: relative; }
.cb-check { display: flex; align-items: baseline; gap: var(--spacingXS); margin-bottom: var(--spacingS); }
.cb-check .cb-meta { margin: 0; }
.cb-num { text-align: right; font-variant-numeric: tabular-nums; }
.cb-confirm { display: flex; flex-wrap: wrap; align-items: center; gap: var(--spacingXS); width: 100%; }
.cb-message .cb-dismiss { position: absolute; top: 4px; right: 4px; }
.cb-message > strong { padding-right: 28px; }
.cb-actions { display: flex; gap: var(--spacingXS); flex-wrap: wrap; }

.cb-field { display: flex; flex-direction: column; gap: 2px; margin-bottom: var(--spacingM); }
.cb-field label { font-weight: 600; }
.cb-field-error { margin: 2px 0 0; color: var(--colorStatusDangerForeground1); }
.cb-field .cb-hint { color: var(--colorNeutralForeground3); font-size: var(--fontSizeBase200); }
.cb-input, .cb-select { font: inherit; min-height: 32px; padding: 4px 8px; border-radius: var(--borderRadiusMedium);
  border: 1px solid var(--colorNeutralStroke1); border-bottom-color: var(--colorNeutralForeground3);
  background: var(--colorNeutralBackground1); color: var(--colorNeutralForeground1); width: 100%; }
.cb-check { display: flex; gap: var(--spacingS); align-items: center; margin-bottom: var(--spacingXS); }

.cb-badge { display: inline-block; font-size: var(--fontSizeBase200); line-height: 16px; padding: 1px 6px; border-radius: var(--borderRadiusCircular);
  border: 1px solid var(--colorNeutralStroke1); white-space: nowrap; }
.cb-badge-ok { background: var(--colorStatusSuccessBackground1); color: var(--colorStatusSuccessForeground1); border-color: var(--colorStatusSuccessBorder1); }
.cb-badge-warn { background: var(--colorStatusWarningBackground1); color: var(--colorStatusWarningForeground1); border-color: var(--colorStatusWarningBorder1); }
.cb-badge-danger { background: var(--colorStatusDangerBackground1); color: var(--colorStatusDangerForeground1); border-color: var(--colorStatusDangerBorder1); }
.cb-badge-info { background: var(--colorNeutralInfoBackground); color: var(--colorNeutralInfoForeground); border-color: transparent; }
.cb-badge-muted { color: var(--colorNeutralForeground3); }

.cb-message { border: 1px solid var(--colorNeutralStroke1); border-radius: var(--borderRadiusMedium); padding: var(--spacingS) var(--spacingM); margin-bottom: var(--spacingM); }
.cb-message-error { background: var(--colorStatusDangerBackground1); border-color: var(--colorStatusDangerBorder1); }
.cb-message-warning { background: var(--colorStatusWarningBackground1); border-color: var(--colorStatusWarningBorder1); }
.cb-message-info { background: var(--colorNeutralInfoBackground); border-color: transparent; }
.cb-message-success { background: var(--colorStatusSuccessBackground1); border-color: var(--colorStatusSuccessBorder1); }
.cb-message strong { display: block; }
.cb-notice { position: sticky; top: 0; z-index: 2; box-shadow: 0 2px 4px rgba(0, 0, 0, .12); }
.cb-card:focus, #cb-home-title:focus { outline: 2px solid var(--colorBrandBackground); outline-offset: 2px; }

.cb-sheet { margin-bottom: var(--spacingM); }
.cb-sheet > h3 { color: var(--colorNeutralForeground2); }
.cb-list { list-style: none; margin: 0; padding: 0; }
.cb-card { border: 1px solid var(--colorNeutralStroke2); border-radius: var(--borderRadiusLarge); padding: var(--spacingS) var(--spacingM);
  margin-bottom: var(--spacingS); background: var(--colorNeutralBackground1); box-shadow: var(--shadow4); }
.cb-card-head { display: flex; justify-content: space-between; gap: var(--spacingS); align-items: flex-start; }
.cb-card-title { font-weight: 600; overflow-wrap: anywhere; }
.cb-meta { color: var(--colorNeutralForeground3); font-size: var(--fontSizeBase200); margin-bottom: var(--spacingXS); overflow-wrap: anywhere; }
.cb-rowstatus { font-size: var(--fontSizeBase200); color: var(--colorNeutralForeground2); margin-bottom: var(--spacingXS); }
.cb-rowstatus.cb-input-problem { color: var(--colorStatusDangerForeground1); }
.cb-inputs { border-top: 1px solid var(--colorNeutralStroke2); margin-top: var(--spacingS); padding-top: var(--spacingS); }
.cb-inputs h4 { margin: 0 0 var(--spacingXS); }
.cb-inputs h4:focus { outline: 2px solid var(--colorBrandBackground); outline-offset: 2px; }
.cb-input-row { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: var(--spacingXS);
  padding: 2px 0; border-bottom: 1px solid var(--colorNeutralStroke2); }
.cb-input-row > .cb-field-error { flex-basis: 100%; }

.cb-footer > .cb-row { flex: 1; }
.cb-progress { flex: 1; min-width: 120px; height: 4px; background: var(--colorNeutralStroke2); border-radius: 2px; overflow: hidden; }
.cb-progress > span { display: block; height: 100%; background: var(--colorBrandBackground); transition: width .2s; }

.cb-table-wrap { overflow-x: auto; margin-bottom: var(--spacingS); }
.cb-table { border-collapse: collapse; font-size: var(--fontSizeBase200); width: 100%; }
.cb-table th, .cb-table td { border: 1px solid var(--colorNeutralStroke2); padding: 2px 6px; text-align: left; white-space: nowrap; }
.cb-table th { background: var(--colorNeutralBackground3); font-weight: 600; }
.cb-table td.cb-changed { background: var(--colorStatusWarningBackground1); }

.cb-chips { display: flex; flex-wrap: wrap; gap: var(--spacingXS); }
.cb-fieldset { border: 1px solid var(--colorNeutralStroke2); border-radius: var(--borderRadiusMedium); padding: var(--spacingS); margin: 0 0 var(--spacingM); }
.cb-fieldset legend { font-weight: 600; padding: 0 var(--spacingXS); }
.cb-row { display: flex; gap: var(--spacingS); align-items: center; flex-wrap: wrap; }
.cb-row > * { flex: 1; min-width: 0; }
.cb-loading { padding: var(--spacingM); color: var(--colorNeutralForeground3); }
`;
