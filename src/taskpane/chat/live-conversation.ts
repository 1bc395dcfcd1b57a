// The chat's pure half of the API layer: the conversation reducer (frames → messages → turns) and the
// chart check, re-exported so the pane's state and views use them without importing src/api.
export { applyFrame, chartSpec, EMPTY_CONVERSATION, isFinalAnswer, turnsOf } from "../../api/chat";
export type { ChartSpec, ChatFrame, ChatMessage, Conversation, SqlToolResult, ToolPart, Turn, Usage } from "../../api/chat";
