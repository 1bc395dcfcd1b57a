// Cell-edit mode (issue 22, item 2). While the user is typing in a cell, Excel refuses API batches with
// InvalidOperationInCellEditMode unless Excel.run is given RunOptions.delayForCellEdit: true, in which
// case the batch waits until the user leaves the cell (Excel.RunOptions; "Delay execution while a cell
// is being edited", learn.microsoft.com/office/dev/add-ins/excel/excel-add-ins-delay-in-cell-edit).
// Every batch of the adapter runs through `runInExcel`, so a Refresh all or the pane's debounced reload
// waits for the person rather than failing.

export const CELL_EDIT_CODE = "InvalidOperationInCellEditMode";

/** Excel.run with delayForCellEdit (plus any other run options, e.g. mergeUndoGroup). */
export function runInExcel<T>(
  X: typeof Excel,
  batch: (ctx: Excel.RequestContext) => Promise<T>,
  extra: Omit<Excel.RunOptions, "delayForCellEdit"> = {},
): Promise<T> {
  return X.run({ ...extra, delayForCellEdit: true }, batch);
}
