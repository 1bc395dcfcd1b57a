// The comments pane's own rules, on the theme's tokens only (so dark mode and Office themes follow).
export const COMMENTS_CSS = `
.cb-comments-toolbar { display: flex; flex-wrap: wrap; gap: var(--spacingS); align-items: center; margin: var(--spacingS) 0; }
.cb-thread { border: 1px solid var(--colorNeutralStroke1); border-radius: var(--borderRadiusMedium); padding: var(--spacingS); margin: 0 0 var(--spacingS); background: var(--colorNeutralBackground1); }
.cb-thread-resolved { opacity: .85; }
.cb-comment { margin: 0 0 var(--spacingS); }
.cb-comment-head { display: flex; gap: var(--spacingS); align-items: baseline; flex-wrap: wrap; color: var(--colorNeutralForeground2); font-size: var(--fontSizeBase200); }
.cb-comment-head strong { color: var(--colorNeutralForeground1); }
.cb-comment-body { white-space: pre-wrap; overflow-wrap: anywhere; margin: var(--spacingXS) 0; }
.cb-mention { font-weight: 600; color: var(--colorBrandForeground1); }
.cb-replies { border-left: 2px solid var(--colorNeutralStroke1); padding-left: var(--spacingS); margin-left: var(--spacingXS); }
.cb-compose { position: relative; margin: var(--spacingS) 0; }
.cb-compose textarea { width: 100%; min-height: 4.5em; box-sizing: border-box; resize: vertical; }
.cb-counter { font-size: var(--fontSizeBase200); color: var(--colorNeutralForeground2); }
.cb-counter-over { color: var(--colorStatusDangerForeground1); font-weight: 600; }
.cb-suggest { position: absolute; z-index: 2; left: 0; right: 0; margin: 0; padding: 0; list-style: none; border: 1px solid var(--colorNeutralStroke1); border-radius: var(--borderRadiusMedium); background: var(--colorNeutralBackground1); max-height: 12em; overflow: auto; }
.cb-suggest li { padding: var(--spacingXS) var(--spacingS); cursor: pointer; }
.cb-suggest li[aria-selected="true"] { background: var(--colorNeutralBackground1Hover); outline: 2px solid var(--colorStrokeFocus2); outline-offset: -2px; }
`;
