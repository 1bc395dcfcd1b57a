// The shapes more than one room of the pane uses (the Workbook tab, Reports, the builder, chat,
// comments, the dashboard, the composition root in app/). A leaf: it imports no room of the pane,
// only value types of src/host and src/sync. Each room's own types live in the room.
import type { SheetValue } from "../host/port";
import type { StatusFacts } from "../sync/status";

export interface Deployment {
  id: number;
  name: string;
  /** The signed-in user's role there (a viewer's placements are view only); absent when unknown. */
  role?: "admin" | "editor" | "viewer";
}

/**
 * What is known about a placement (from check and the platform list), without what this pane is
 * doing with it. The badge, the card's lines and the banner all come from one function of these
 * facts plus the pane's activity (home/live-status.ts → src/sync/status.ts). Rows are sheet rows.
 */
export type PlacementFacts = Omit<StatusFacts, "activity">;

/** Sheet rows as Excel numbers them (1 = row 1), inclusive. */
export interface RowSpan {
  from: number;
  to: number;
}

export interface Progress {
  done: number;
  total: number;
  label?: string;
  /** The total is what is known so far (rows still arriving): there are at least that many. */
  atLeast?: boolean;
}
export type OnProgress = (p: Progress) => void;

export interface ReportSummary {
  id: number;
  publicId: string;
  name: string;
  title: string;
  updatedAt: string | null;
  ownerName: string | null;
  /** The report's folder path, e.g. "Sales" or "Sales › Monthly" (null at the top level). */
  folder?: string | null;
  /** It has a pivot layout (src/sync/layout.ts isPivot): placed as a range, never as an Excel table (issue 33). */
  pivot?: boolean;
}

export interface Page<T> {
  items: T[];
  /** Cursor for the next page; null at the end. */
  next: string | null;
}

export type PlaceOutcome =
  /** `notices`: what the user must know about the result (e.g. rows cut at the placement's maximum). */
  | { kind: "placed"; placementId: string; range: string; sheetName: string; notices?: string[] }
  /** `at`: where it was going (the cell chosen when Place was pressed); the confirmation places it there. */
  | { kind: "wouldOverwrite"; count: number; addresses: string[]; target: string; at?: { sheetId: string; row: number; col: number } }
  /** The target overlaps another placement: never written. */
  | { kind: "collides"; target: string; placements: string[] };

/** /v1/meta, reduced to what the builder offers. */
export interface MetaMember {
  name: string;
  title: string;
  type: string;
}
export interface MetaView {
  name: string;
  title: string;
  measures: MetaMember[];
  dimensions: MetaMember[];
}

export interface BuilderFilter {
  member: string;
  operator: "equals" | "notEquals" | "contains" | "gt" | "lt" | "set" | "notSet";
  values: string[];
}

export interface PivotItems {
  rows: string[];
  columns: string[];
  measures: string[];
  filters: string[];
  displayScale?: "model" | "absolute" | "thousands" | "millions" | "billions";
  measuresAxis?: "columns" | "rows";
  measuresPosition?: "before" | "after";
  showAppliedFilters?: boolean;
  showColumnTotals?: boolean;
  showRowTotals?: boolean;
}

/** A semantic-layer JSON query as the builder produces it (and the dashboard's drilldown). */
export interface BuilderQuery {
  measures: string[];
  dimensions: string[];
  timeDimensions: { dimension: string; granularity?: string; dateRange?: string | [string, string] }[];
  filters: BuilderFilter[];
  order: [string, "asc" | "desc"][];
  limit?: number;
}

export interface SaveReportInput {
  name: string;
  query: BuilderQuery;
  pivotItems: PivotItems | null;
}

/** The placement under the Excel selection (comments and the dashboard find its linked dashboards). */
export interface SelectedPlacement {
  deploymentId: number;
  reportId: number;
  reportName: string | null;
  range: string;
}

/**
 * The selected cell, and when it lies in a flat placement, the result column it is in (the column's
 * member key: dimensions, then time dimensions with a granularity, then measures, as the flat layout
 * writes them) and whether it is the header row.
 */
export interface SelectedCell {
  address: string;
  value: SheetValue;
  placement:
    | (SelectedPlacement & {
        columnKey: string | null;
        /** The column's title as the sheet shows it (its header cell), when there is one. */
        columnTitle?: string | null;
        measure: boolean;
        header: boolean;
        pivot: boolean;
      })
    | null;
}

/** The organisation's embed sessions (comments and the dashboard share them). */
export interface EmbedConfig {
  /** Default session URL (the harness points it at the stand-in's dev broker). */
  sessionUrl?: string;
  /** JSON body for the session URL (the dev broker needs {externalId, embedTenantName}). */
  sessionRequest?: Record<string, unknown>;
}

export interface DashboardChoice {
  publicId: string;
  title: string;
}

/** The placement under the selection, and the dashboards linked to its report. */
export interface LinkedDashboards {
  placement: { reportName: string | null; range: string } | null;
  dashboards: DashboardChoice[];
}
