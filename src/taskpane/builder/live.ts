// The builder's live side: the pure helpers of src/api and src/sync its state uses (the date ranges
// the data API accepts, the filter operators in words), re-exported so the builder's views and state
// never import src/api or src/sync. Its data model, previews and saving go through the Workspace
// (reports/live.ts, the catalog).
export { parseDateRange } from "../../api/date-range";
export { OPERATORS } from "../../sync/filters";
