// The engine's errors that say what happened in words (issue 34: a leaf, so every operation and the pane
// can import them without importing an operation).
import { NotRefreshed } from "./queue.ts";

/** A report too large for where it would go: nothing was written (issue 36, item 4). */
export class DoesNotFit extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DoesNotFit";
  }
}

/** A report that cannot be an Excel table (a pivot, issue 33): nothing was written. */
export class CannotPlaceAsTable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CannotPlaceAsTable";
  }
}

/** The signed-in user cannot refresh this placement; the message says why. */
export class NoAccess extends NotRefreshed {
  constructor(reason: string) {
    super(reason);
    this.name = "NoAccess";
  }
}

/** The signed-in user may read this placement's report but not change placements (access.ts). Nothing was left written. */
export class ViewOnly extends NoAccess {
  constructor(reason: string) {
    super(reason);
    this.name = "ViewOnly";
  }
}
