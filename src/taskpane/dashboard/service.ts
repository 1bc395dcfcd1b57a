// What the dashboard pane needs from the world (dashboard/live.ts over src/api, src/sync and the
// Office.js port; scripted in the view tests). Plain view shapes: the pane never sees the wire.
import type { DashboardChoice, LinkedDashboards, PlaceOutcome } from "../types";

/** An event from the embed, reduced to what the pane shows. */
export type EmbedNews =
  | { kind: "ready" }
  | { kind: "loaded"; widgetCount: number | null }
  | { kind: "download"; format: string; title: string | null; rowCount: number | null }
  | { kind: "drilldown"; member: string; value: unknown; widgetId: string | null }
  | { kind: "renewing"; reason: "expiring" | "expired" }
  | { kind: "renewed" }
  | { kind: "error"; message: string; context: string | null };

export interface EmbedHandle {
  setFilter(member: string, values: Array<string | number | boolean>): void;
  setScheme(scheme: "light" | "dark"): void;
  setBrandColor(color: string): void;
  setTimezone(timezone: string): void;
  refresh(): void;
  close(): void;
}

export interface CellFilter {
  member: string;
  value: string | number | boolean;
  /** "orders.status = cancelled (Sheet1!B3)" */
  label: string;
}

export interface PictureProgress {
  status: "queued" | "running" | "done" | "failed" | "downloading" | "inserting";
}

export interface DashboardService {
  /** The session URL the organisation provides (shared with comments), or null. */
  sessionUrl(): string | null;
  linkedDashboards(signal?: AbortSignal): Promise<LinkedDashboards>;
  dashboard(publicId: string, signal?: AbortSignal): Promise<DashboardChoice>;
  /** Mounts the embed in `host`; `onNews` hears every accepted event (and renewal outcomes). */
  open(host: HTMLElement, publicId: string, onNews: (n: EmbedNews) => void): Promise<EmbedHandle>;
  /** The selected cell's value and the dimension of its placement column; an Error says why not. */
  cellFilter(signal?: AbortSignal): Promise<CellFilter>;
  /** Saves the drilled query as a report and places it at the selection through the sync engine. */
  placeDrilldown(
    publicId: string,
    drill: { member: string; value: unknown; widgetId: string | null },
    confirmed: boolean,
    signal?: AbortSignal,
  ): Promise<PlaceOutcome>;
  /** Runs a PNG export and puts it at the selection (or replaces `refreshName` in place). */
  insertPicture(
    publicId: string,
    o: { refreshName?: string; onProgress: (p: PictureProgress) => void; signal: AbortSignal; title?: string },
  ): Promise<{ name: string }>;
  /** The name of this dashboard's picture on the active sheet, if one was inserted (so it can be refreshed). */
  pictureOnSheet(publicId: string): Promise<string | null>;
  /** Member key → title from the data model ("orders.status" → "Status"), so messages use words; {} when unknown. */
  memberTitles?(signal?: AbortSignal): Promise<Record<string, string>>;
  /** The user's time zone (IANA) and Office's theme, followed by the embed. */
  look(): { timezone: string; scheme: "light" | "dark"; locale: string | null };
}
