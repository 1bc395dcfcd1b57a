// Public surface of the API layer. Other modules import from "src/api" only.
export * from "./errors";
export * from "./public-id";
export * from "./schemas/common";
export * from "./schemas/management";
export * from "./schemas/data";
export { createPlatformClient, managementError, ERROR_CODES } from "./management-client";
export type { PlatformClient, PlatformClientOptions, ListReportsOptions } from "./management-client";
export { createDataClient, dataError, DEFAULT_DATA_RETRY } from "./data-client";
export type { DataClient, DataClientOptions, FetchedResult, LoadResult, TokenProvider } from "./data-client";
export { createDeploymentTokenManager, renewAt } from "./token-manager";
export type { DeploymentTokenManager, DeploymentTokenManagerOptions } from "./token-manager";
export { DEFAULT_RETRY, backoffDelay, withRetry } from "./retry";
export type { RetryPolicy } from "./retry";
export type { Credential, FetchLike } from "./http";
export { toTypedResult, decodeNumber, decodeTime, decodeBoolean, significantDigits } from "./typed-result";
export { buildOpenApiDocument } from "./openapi";
