// What the Excel probes (probes.ts, table-probes.ts) may ask of a stand-in: a leaf, so both import it
// without importing each other.

/** What a stand-in can do that code in real Excel cannot (a person does it there). */
export interface ProbeUserSide {
  /** Put the user in cell-edit mode (typing in a cell) and take them out of it. */
  cellEdit?: { enter(): void; leave(): void };
  /** Office.context.platform ("OfficeOnline" is Excel on the web). */
  platform?: string;
}
