// xxh64 (seed 0) from xxhash-wasm, initialised once. The WebAssembly module compiles
// asynchronously: `await ready()` before the synchronous helpers (the async API does it for you).
import xxhash from "xxhash-wasm";
import type { XXHashAPI } from "xxhash-wasm";

let api: XXHashAPI | null = null;
let loading: Promise<XXHashAPI> | null = null;

/** Resolve once the hash kernel is ready. Safe to call any number of times. */
export async function ready(): Promise<void> {
  if (api !== null) return;
  loading ??= xxhash();
  api = await loading;
}

/** xxh64 of `bytes` with seed 0, as 16 lowercase hex characters. Needs `await ready()` first. */
export function h64Hex(bytes: Uint8Array): string {
  if (api === null) throw new Error("checksum: the hash kernel is not ready; await ready() first");
  return api.h64Raw(bytes, 0n).toString(16).padStart(16, "0");
}
