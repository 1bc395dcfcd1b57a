// Data API schemas ({data_url}/v1/load, /v1/svcsql, /v1/meta). Seeds 01 §4.3 leaves the
// shapes "not shown"; these follow the recorded semantic-layer responses in
// /work/shared/fixtures/semantic-layer (docs/API.md §Data API).
import { z } from "zod";

export const Granularity = z.enum(["second", "minute", "hour", "day", "week", "month", "quarter", "year"]);
export type Granularity = z.infer<typeof Granularity>;

export const FilterOperator = z.enum([
  "equals",
  "notEquals",
  "contains",
  "notContains",
  "startsWith",
  "endsWith",
  "gt",
  "gte",
  "lt",
  "lte",
  "set",
  "notSet",
  "inDateRange",
  "notInDateRange",
  "beforeDate",
  "afterDate",
]);
export type FilterOperator = z.infer<typeof FilterOperator>;

const Member = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, {
    error: "a member is <view>.<name>",
  });

export const MemberFilter = z.strictObject({
  member: Member,
  operator: FilterOperator,
  values: z
    .array(z.union([z.string(), z.number(), z.boolean()]).transform(String))
    .max(10_000)
    .optional(),
});
export type MemberFilter = z.infer<typeof MemberFilter>;
export type Filter = MemberFilter | { and: Filter[] } | { or: Filter[] };
export const Filter: z.ZodType<Filter> = z.lazy(() =>
  z.union([MemberFilter, z.strictObject({ and: z.array(Filter) }), z.strictObject({ or: z.array(Filter) })]),
);

const DateRange = z.union([z.string().min(1), z.tuple([z.string().min(1), z.string().min(1)])]);

export const TimeDimension = z.strictObject({
  dimension: Member,
  granularity: Granularity.optional(),
  dateRange: DateRange.optional(),
});
export type TimeDimension = z.infer<typeof TimeDimension>;

const Direction = z.enum(["asc", "desc"]);
/** Order as a map, a list of pairs, or the normalized list of {id, desc}. */
export const OrderInput = z.union([
  z.record(z.string(), Direction),
  z.array(z.tuple([z.string(), Direction])),
  z.array(z.object({ id: z.string(), desc: z.boolean() })),
]);

/** A JSON query in the semantic-layer form (the body of /v1/load is `{ query }`). */
export const LoadQuery = z.strictObject({
  measures: z.array(Member).max(100).optional(),
  dimensions: z.array(Member).max(100).optional(),
  timeDimensions: z.array(TimeDimension).max(10).optional(),
  filters: z.array(Filter).max(100).optional(),
  order: OrderInput.optional(),
  limit: z.number().int().min(1).max(50_000).optional(),
  offset: z.number().int().min(0).optional(),
  total: z.boolean().optional(),
  timezone: z.string().min(1).max(64).optional(),
});
export type LoadQuery = z.infer<typeof LoadQuery>;
export const LoadRequest = z.strictObject({ query: LoadQuery });

/** The normalized query the data API echoes back. */
export const NormalizedQuery = z.object({
  measures: z.array(z.string()).default([]),
  dimensions: z.array(z.string()).default([]),
  timeDimensions: z
    .array(
      z.object({
        dimension: z.string(),
        granularity: Granularity.optional(),
        dateRange: z.union([z.string(), z.array(z.string())]).optional(),
      }),
    )
    .default([]),
  filters: z.array(z.unknown()).default([]),
  order: z.array(z.object({ id: z.string(), desc: z.boolean() })).default([]),
  limit: z.number().int().optional(),
  rowLimit: z.number().int().optional(),
  offset: z.number().int().optional(),
  total: z.boolean().optional(),
  timezone: z.string().default("UTC"),
});
export type NormalizedQuery = z.infer<typeof NormalizedQuery>;

/**
 * A member's display format from the semantic model: "currency", "percent", "number", "id",
 * "link", "imageUrl", or an object with a `type` (a link with a label, a custom numeric format).
 * Absent when the model sets none (the recorded fixtures have none).
 */
export const MemberFormat = z.union([z.string(), z.looseObject({ type: z.string() })]);
export type MemberFormat = z.infer<typeof MemberFormat>;

export const AnnotationEntry = z.object({
  title: z.string(),
  shortTitle: z.string(),
  type: z.string(),
  format: MemberFormat.optional(),
});
export const Annotation = z.object({
  measures: z.record(z.string(), AnnotationEntry),
  dimensions: z.record(z.string(), AnnotationEntry),
  segments: z.record(z.string(), z.unknown()).optional(),
  timeDimensions: z.record(z.string(), AnnotationEntry),
});
export type Annotation = z.infer<typeof Annotation>;

/**
 * Result rows: an array of plain objects. Checked with one cheap loop rather than a zod
 * schema per row (10,000-row results); each value is then checked by its column's decoder.
 */
export const DataRows = z
  .custom<Array<Record<string, unknown>>>(
    (v) => Array.isArray(v) && v.every((r) => typeof r === "object" && r !== null && !Array.isArray(r)),
    { error: "data must be an array of row objects" },
  )
  .meta({ type: "array", items: { type: "object", additionalProperties: true } });

/** A finished /v1/load answer. */
export const LoadResponse = z.object({
  query: NormalizedQuery,
  data: DataRows,
  annotation: Annotation,
  lastRefreshTime: z.string().optional(),
  total: z.number().int().nullable().optional(),
});
export type LoadResponse = z.infer<typeof LoadResponse>;

/** HTTP 200 while the query is still running; the client asks again. */
export const ContinueWait = z.object({ error: z.literal("Continue wait") });

/** Any data-API error body: `{error}` or `{type: "UserError", error}`. */
export const DataErrorBody = z.object({ error: z.string(), type: z.string().optional() });

/** POST /v1/svcsql: SQL over the semantic views. */
export const SqlRequest = z.strictObject({
  query: z.string().min(1).max(100_000),
  timezone: z.string().min(1).max(64).optional(),
});
export type SqlRequest = z.infer<typeof SqlRequest>;
export const SqlColumnType = z.enum(["string", "number", "boolean", "time"]);
/**
 * svcsql rows: one array of values per row, in `schema` order (as a SQL API returns them:
 * column names are not repeated in every row, and duplicate names cannot clash). One cheap
 * loop checks the shape; each value is then checked by its column's decoder.
 */
export const DataArrayRows = z
  .custom<unknown[][]>((v) => Array.isArray(v) && v.every((r) => Array.isArray(r)), {
    error: "data must be an array of rows, each an array of values",
  })
  .meta({ type: "array", items: { type: "array", items: {} } });
export const SqlResponse = z.object({
  schema: z.array(z.object({ name: z.string(), type: SqlColumnType })),
  data: DataArrayRows,
});
export type SqlResponse = z.infer<typeof SqlResponse>;

export const MetaMember = z.object({
  name: z.string(),
  title: z.string(),
  shortTitle: z.string(),
  type: z.string(),
  aggType: z.string().optional(),
  format: MemberFormat.optional(),
  isVisible: z.boolean().optional(),
});
export const MetaResponse = z.object({
  cubes: z.array(
    z.object({
      name: z.string(),
      title: z.string(),
      type: z.string().optional(),
      public: z.boolean().optional(),
      measures: z.array(MetaMember),
      dimensions: z.array(MetaMember),
      segments: z.array(z.unknown()),
    }),
  ),
});
export type MetaResponse = z.infer<typeof MetaResponse>;
