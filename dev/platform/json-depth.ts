// Refuses JSON bodies nested deeper than MAX_JSON_DEPTH before anything parses or validates them.
// JSON.parse copes with deep nesting, but what walks the value afterwards (zod, JSON.stringify,
// structured clones) recurses and overflows the stack: a 500, which clients retry. A careful
// platform answers 400 at the door; no body of this API needs more than a handful of levels.
// The check runs in request-body.ts, with the other checks of every body.
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in `text` (strings skipped), stopping once past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x5c /* \ */) i++;
        else if (c === 0x22) break;
      }
    } else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) {
      depth--;
    }
  }
  return max;
}
