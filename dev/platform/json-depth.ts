// Refuses JSON bodies nested deeper than MAX_JSON_DEPTH before anything parses or validates them.
// JSON.parse copes with deep nesting, but what walks the value afterwards (zod, JSON.stringify,
// structured clones) recurses and overflows the stack: a 500, which clients retry. A careful
// platform answers 400 at the door; no body of this API needs more than a handful of levels.
import type { MiddlewareHandler } from "hono";

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

/** Middleware: a body nested deeper than MAX_JSON_DEPTH is a 400 naming the body. (Hono caches the text for the handler.) */
export function jsonDepthLimit(): MiddlewareHandler {
  return async (c, next) => {
    // Handlers parse the text as JSON whatever the Content-Type says; only binary uploads are skipped.
    const type = c.req.header("Content-Type") ?? "";
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && !/multipart|octet-stream|image\//i.test(type)) {
      if (jsonDepth(await c.req.text()) > MAX_JSON_DEPTH) {
        return c.json({ error: `The body is nested deeper than ${MAX_JSON_DEPTH} levels`, code: "invalid", field: "(body)" }, 400);
      }
    }
    await next();
  };
}
