// Shared building blocks of every API family's schemas: the publicId rule, the
// platform's limits (seeds 01 §8), the error body, and the cursor page.
import { z } from "zod";

/** Seeds 01 §8. Every number here is a documented limit; nothing else lives here. */
export const LIMITS = {
  nameMax: 255,
  titleMax: 255,
  publicIdLength: 12,
  checksumPayloadMin: 1,
  checksumPayloadMax: 128,
  placedExplorationsMax: 500,
  placementsMax: 2000,
  tokenExpiresInMin: 60,
  tokenExpiresInMax: 86_400,
  tokenExpiresInDefault: 86_400,
  /** Page size bounds for cursor-paged lists (our choice, docs/API.md). */
  pageSizeMax: 1000,
} as const;

export const PUBLIC_ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const PUBLIC_ID_PATTERN = /^[0-9A-Za-z]{12}$/;

/** Exactly 12 characters of [0-9A-Za-z] (seeds 01 §2.1, §8). */
export const PublicId = z
  .string()
  .length(LIMITS.publicIdLength, { error: "publicId must be exactly 12 characters" })
  .regex(/^[0-9A-Za-z]+$/, { error: "publicId must match ^[0-9A-Za-z]+$" });

/** Any control character (Unicode category Cc: U+0000–U+001F, U+007F–U+009F). */
export const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * An identifier (a tenant name, an external or internal user id, a branch, a session, chat,
 * workbook, sheet or placement id): 1..`max` characters, none of them a control character. Our
 * choice where the seeds say "not shown" (docs/API.md §4): a NUL or a newline inside an id is never
 * meant, and a store or a log that cuts or splits on it would merge two ids into one.
 */
export const identifier = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !CONTROL_CHARACTER.test(v), { error: "must not contain control characters (U+0000–U+001F, U+007F–U+009F)" });

/** ISO 8601 timestamp as the platform sends it (with a zone). */
export const Timestamp = z.iso.datetime({ offset: true });

/**
 * Error body of every management-API error response (shape "not shown" in the seeds;
 * our choice, docs/API.md §Errors). `code` is present only where a cause needs it.
 */
export const ErrorBody = z.object({
  error: z.string(),
  code: z.string().optional(),
  field: z.string().optional(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const PageInfo = z.object({
  hasNextPage: z.boolean(),
  endCursor: z.string().nullable(),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** A cursor page: `{ items, pageInfo }` (seeds 01 §2.8, §4.4). */
export function cursorPage<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), pageInfo: PageInfo });
}
export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}

/** Cursor params `first` (page size) and `after` (opaque cursor), as query-string values. */
export const PageQuery = z.strictObject({
  first: z.coerce.number().int().min(1).max(LIMITS.pageSizeMax).optional(),
  after: z.string().min(1).max(200).optional(),
});
export type PageQuery = z.infer<typeof PageQuery>;
