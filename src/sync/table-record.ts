// What a table placement's record keeps (issue 33; state.ts LocalPlacement.table, table.ts): a leaf, so the
// record's schema needs nothing of the table logic.
import { z } from "zod";

/** What a table placement's record keeps (state.ts LocalPlacement.table). */
export const TableRecord = z.object({
  /** The table's name in the workbook (a person may rename it: followed, see tableOf). */
  name: z.string().min(1).max(255),
  /** The report's columns as last written, left to right: their member names (SQL reports: their titles). */
  columns: z.array(z.string().max(1000)).max(16_384),
});
export type TableRecord = z.infer<typeof TableRecord>;
