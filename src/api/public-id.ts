// publicId generation and validation: 12 characters drawn uniformly from [0-9A-Za-z]
// by rejection sampling over crypto.getRandomValues (62 does not divide 256, so bytes
// ≥ 248 are thrown away rather than folded, which would bias the first 8 characters).
import { PUBLIC_ID_ALPHABET, PUBLIC_ID_PATTERN, LIMITS } from "./schemas/common";

const ACCEPT_BELOW = 256 - (256 % PUBLIC_ID_ALPHABET.length); // 248

export type RandomSource = (bytes: Uint8Array) => Uint8Array;
const cryptoSource: RandomSource = (bytes) => crypto.getRandomValues(bytes);

/** A fresh publicId that is never a synthesized placeholder id. */
export function generatePublicId(random: RandomSource = cryptoSource): string {
  for (;;) {
    const id = drawId(random);
    if (!isPlaceholderPublicId(id)) return id;
  }
}

function drawId(random: RandomSource): string {
  let out = "";
  const buf = new Uint8Array(32);
  while (out.length < LIMITS.publicIdLength) {
    random(buf);
    for (const b of buf) {
      if (b < ACCEPT_BELOW) {
        out += PUBLIC_ID_ALPHABET[b % PUBLIC_ID_ALPHABET.length];
        if (out.length === LIMITS.publicIdLength) break;
      }
    }
  }
  return out;
}

export function isValidPublicId(value: unknown): value is string {
  return typeof value === "string" && PUBLIC_ID_PATTERN.test(value);
}

/**
 * Synthesized placeholder ids of reports that predate stable ids (docs/API.md
 * §Placeholder ids): "LGCY" + 8 decimal digits of floor(internalId / 16), zero-padded.
 * Reports whose internal ids share a bucket of 16 share one placeholder.
 */
export const PLACEHOLDER_PATTERN = /^LGCY[0-9]{8}$/;
export const PLACEHOLDER_BUCKET = 16;

export function isPlaceholderPublicId(value: string): boolean {
  return PLACEHOLDER_PATTERN.test(value);
}

export function placeholderPublicId(internalId: number): string {
  return "LGCY" + String(Math.floor(internalId / PLACEHOLDER_BUCKET)).padStart(8, "0");
}
