// Cursor paging of the stand-in's lists: `first` (page size; omitted = every item) and
// `after` (opaque cursor = base64url of {"o": offset into the sorted list}).
import type { PageInfo } from "../../src/api/schemas/common";
import { ERROR_CODES } from "../../src/api/management-client";
import { HttpProblem } from "./service";

export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString("base64url");
}

export function decodeCursor(after: string): number {
  try {
    const v = JSON.parse(Buffer.from(after, "base64url").toString()) as { o?: unknown };
    if (typeof v.o === "number" && Number.isInteger(v.o) && v.o >= 0) return v.o;
  } catch {
    /* fall through */
  }
  throw new HttpProblem(400, "after is not a cursor this server issued", ERROR_CODES.invalid, "after");
}

export function page<T>(all: T[], first: number | undefined, after: string | undefined): { items: T[]; pageInfo: PageInfo } {
  const start = after === undefined ? 0 : decodeCursor(after);
  const end = first === undefined ? all.length : Math.min(all.length, start + first);
  const items = all.slice(start, end);
  const hasNextPage = end < all.length;
  return { items, pageInfo: { hasNextPage, endCursor: items.length ? encodeCursor(end) : (after ?? null) } };
}
