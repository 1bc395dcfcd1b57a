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

/** Above this size a hash is fed to the kernel in pieces of this size (the same hash). */
const PIECE = 1 << 20;

/**
 * xxh64 of `bytes` with seed 0, as 16 lowercase hex characters. Needs `await ready()` first. Large
 * inputs (a query's answer) are hashed a piece at a time: the kernel's WebAssembly memory, which never
 * shrinks, grows only to a piece, not to the whole input (issue 35 §3).
 */
export function h64Hex(bytes: Uint8Array): string {
  if (api === null) throw new Error("checksum: the hash kernel is not ready; await ready() first");
  if (bytes.length <= PIECE) return api.h64Raw(bytes, 0n).toString(16).padStart(16, "0");
  const h = api.create64(0n);
  for (let at = 0; at < bytes.length; at += PIECE) h.update(bytes.subarray(at, at + PIECE));
  return h.digest().toString(16).padStart(16, "0");
}
