// Public surface of src/checksum: the canonical cell model and resultChecksum format v1
// (docs/CHECKSUM.md). Pure: no Office, no DOM, no network. The hash kernel (xxhash-wasm)
// initialises asynchronously: the async functions wait for it; await ready() before GridHasher.
export type { ColumnType, RawValue, ResultChecksum } from "./types.ts";
export {
  toCell,
  columnNumberFormat,
  excelNumber,
  excelText,
  type Cell,
  type ToCellOptions,
  EXCEL_DIGITS,
  EXCEL_MAX_NUMBER,
  EXCEL_MIN_POSITIVE,
  EXCEL_MAX_TEXT,
  TRUNCATION_MARK,
  NOT_A_NUMBER_TEXT,
  DATE_FORMAT,
  DATETIME_FORMAT,
} from "./cell.ts";
export {
  fingerprint,
  chunkRanges,
  chunkIndexOf,
  payloadOf,
  GridHasher,
  CHECKSUM_VERSION,
  CHUNK_ROWS,
  type Grid,
  type GridInput,
  type ChunkRange,
} from "./fingerprint.ts";
export {
  compare,
  compareChecksums,
  planRewrite,
  parseChecksum,
  shapeOf,
  mergeRanges,
  ChecksumFormatError,
  type Comparison,
  type RewritePlan,
  type AreaRange,
} from "./compare.ts";
export { ready } from "./hash.ts";
export type { GridCell } from "./encode.ts";
