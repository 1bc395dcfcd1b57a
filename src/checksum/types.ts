// Shared value types of the pure core. The data-API client (src/api) produces
// TypedResult; the checksum's cell model (toCell) and the layout consume it.

/** Column types as the data API's annotation gives them. */
export type ColumnType = "string" | "number" | "boolean" | "time";

/**
 * One value of a typed column, as the data-API client returns it:
 *   - number:  a JS number when the value fits Excel's 15 significant digits exactly,
 *              otherwise the decimal string as received (e.g. an id with 19 digits);
 *   - time:    "YYYY-MM-DDTHH:mm:ss.sss" wall-clock time in the query's timezone (no zone);
 *   - string:  the string; boolean: the boolean;
 *   - null:    SQL NULL.
 */
export type RawValue = string | number | boolean | null;

export interface ResultColumn {
  /** Member name, e.g. "orders.created_at.month" or "orders.count". */
  key: string;
  title: string;
  shortTitle: string;
  type: ColumnType;
  kind: "measure" | "dimension" | "timeDimension";
  /** For a time dimension with a granularity. */
  granularity?: string;
  /** The semantic model's display format ("currency", "percent", "number", …); never part of a fingerprint. */
  format?: string;
}

export interface TypedResult {
  columns: ResultColumn[];
  /** rows[r][c] is the value of columns[c]. */
  rows: RawValue[][];
  /** Full row count when the query asked for total: true; otherwise null. */
  total: number | null;
  /** The query's timezone (IANA), "UTC" by default. */
  timezone: string;
}

/** A placement's fingerprint, as seeds 01 §2.3 defines it. */
export interface ResultChecksum {
  v: number;
  chunks: { from: number; to: number; hash: string }[];
  payload?: string;
}
