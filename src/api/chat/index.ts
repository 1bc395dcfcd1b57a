// Public surface of the agent chat API family (seed 03): schemas, the NDJSON parser, the
// conversation reducer and the client. Imported as "src/api/chat" (or through "src/api").
export * from "./schemas";
export * from "./errors";
export { ChartSpecSubset, outsideSubset } from "./chart-spec";
export { NdjsonDecoder, MalformedLineError, decodeChunks, readNdjson, type NdjsonItem } from "./ndjson";
export {
  applyFrame,
  chartSpec,
  EMPTY_CONVERSATION,
  isFinalAnswer,
  isSentinelId,
  toolPart,
  turnsOf,
  type ChartSpec,
  type ChatMessage,
  type Conversation,
  type ToolPart,
  type ToolState,
  type Turn,
} from "./conversation";
export {
  createChatClient,
  createChatSettingsClient,
  newMessageId,
  type ChatAuthOptions,
  type ChatClient,
  type ChatClientOptions,
  type ChatSettingsClient,
  type SendOptions as ChatSendOptions,
  type SendResult as ChatSendResult,
} from "./client";
