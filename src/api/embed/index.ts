// Embed sessions and the embeddable dashboard (seeds 02 §2.4, §3.3, §4.2, §5).
export * from "./schemas";
export { createEmbedSession, EmbedSessionError } from "./session";
export type { EmbedSession, EmbedSessionOptions } from "./session";
export { createEmbedClient } from "./client";
export type { EmbedClient, EmbedClientOptions } from "./client";
export * from "./protocol";
export { createEmbedBridge, EmbedSessionExchangeError } from "./bridge";
export type { EmbedBridge, EmbedPort, BridgeOptions, IncomingMessage } from "./bridge";
