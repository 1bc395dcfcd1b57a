// The chat pane's own CSS (in its chunk, on the pane's theme variables: light and dark alike).
export const CHAT_CSS = `
.cb-chat-thread { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: var(--spacingM); }
.cb-chat-user { align-self: flex-end; margin-left: 15%; padding: var(--spacingS); border-radius: var(--borderRadiusLarge);
  background: var(--colorNeutralBackground3); white-space: pre-wrap; }
.cb-chat-answer { margin-top: var(--spacingS); }
.cb-chat-step { border: 1px solid var(--colorNeutralStroke2); border-radius: var(--borderRadiusMedium); padding: var(--spacingXS) var(--spacingS); margin-bottom: var(--spacingXS); }
.cb-chat-step > summary { cursor: pointer; }
.cb-chat-thinking { color: var(--colorNeutralForeground2, inherit); font-style: italic; white-space: pre-wrap; }
.cb-chat-code { overflow-x: auto; padding: var(--spacingS); background: var(--colorNeutralBackground3); border-radius: var(--borderRadiusMedium);
  font-size: var(--fontSizeBase200); white-space: pre; }
.cb-chat-md ul, .cb-chat-md ol { padding-left: 20px; margin: 0 0 var(--spacingS); }
.cb-chat-md blockquote { margin: 0 0 var(--spacingS); padding-left: var(--spacingS); border-left: 3px solid var(--colorNeutralStroke2); }
.cb-chat .cb-table-wrap { max-height: 240px; overflow: auto; }
.cb-chat .cb-table th { position: sticky; top: 0; }
.cb-chat-chart { width: 100%; min-height: 120px; margin: var(--spacingS) 0; }
.cb-chat-chart svg { max-width: 100%; height: auto; }
.cb-chart-tooltip { position: fixed; z-index: 10; max-width: 280px; pointer-events: none; padding: var(--spacingXS) var(--spacingS);
  background: var(--colorNeutralBackground1); color: var(--colorNeutralForeground1); border: 1px solid var(--colorNeutralStroke2);
  border-radius: var(--borderRadiusMedium); font-size: var(--fontSizeBase200); overflow-wrap: anywhere; box-shadow: 0 2px 6px rgba(0, 0, 0, 0.25); }
.cb-chart-tooltip-key { font-weight: 600; }
.cb-chat-cursor { animation: cb-blink 1s steps(2) infinite; }
@keyframes cb-blink { 50% { opacity: 0; } }
@media (prefers-reduced-motion: reduce) { .cb-chat-cursor { animation: none; } }
.cb-chat-composer { position: sticky; bottom: 0; background: var(--colorNeutralBackground1); padding-top: var(--spacingS); }
.cb-chat-composer textarea { width: 100%; resize: vertical; font: inherit; }
.cb-chat-threads, .cb-chat-settings { margin-bottom: var(--spacingS); }
.cb-chat-threads button[aria-current="true"] { font-weight: 600; }
.cb-chat-context { margin-top: var(--spacingXS); font-size: var(--fontSizeBase200); }
.cb-chat-context pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.cb-chat-modes { justify-content: flex-start; gap: var(--spacingXS); margin-bottom: var(--spacingS); }
.cb-chat-modes button[aria-pressed="true"] { font-weight: 600; border-color: var(--colorNeutralForeground1); background: var(--colorNeutralBackground3); }
.cb-sched-list { display: flex; flex-direction: column; gap: var(--spacingS); }
.cb-sched-form { margin-bottom: var(--spacingS); }
.cb-sched-form textarea { width: 100%; resize: vertical; font: inherit; }
.cb-sched-runs li { justify-content: flex-start; gap: var(--spacingS); padding: var(--spacingXS) 0; border-top: 1px solid var(--colorNeutralStroke2); }
`;
