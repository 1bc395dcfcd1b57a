// Management API schemas (seeds 01 §2, §4.1, §4.4): written once, and from them come the
// TypeScript types (z.infer), the client's response validation, the stand-in's request
// validation, and the OpenAPI document (src/api/openapi.ts).
import { z } from "zod";
import { LIMITS, PublicId, Timestamp, cursorPage, identifier } from "./common";

export const Host = z.enum(["SHEETS_CLOUD", "SHEETS_DESKTOP"]);
export type Host = z.infer<typeof Host>;
export const ReportType = z.enum(["FOLDER", "WORKBOOK", "REPORT"]);
export const ReportSource = z.enum(["SHEETS_CLOUD", "SHEETS_DESKTOP", "PLAYGROUND", "CHART_LIB"]);
export type ReportSource = z.infer<typeof ReportSource>;
export const SyncStatus = z.enum(["UP_TO_DATE", "CHANGED", "UNKNOWN"]);
export type SyncStatus = z.infer<typeof SyncStatus>;

const Name = z.string().max(LIMITS.nameMax, { error: `name must be at most ${LIMITS.nameMax} characters` });
const Title = z.string().max(LIMITS.titleMax, { error: `title must be at most ${LIMITS.titleMax} characters` });
const Id = z.number().int().nonnegative();
/** Workbook, sheet and placement ids: no control characters (docs/API.md §4). */
const Ident = identifier(LIMITS.nameMax);

/** §2.3: a client-computed fingerprint of the cells a write placed. */
export const ResultChecksum = z.object({
  v: z.number().int(),
  chunks: z.array(z.object({ from: z.number().int(), to: z.number().int(), hash: z.string() })),
  payload: z.string().min(LIMITS.checksumPayloadMin).max(LIMITS.checksumPayloadMax).optional(),
});
export type ResultChecksum = z.infer<typeof ResultChecksum>;

/** §2.4 */
export const PivotItems = z.object({
  columns: z.array(z.string()),
  filters: z.array(z.string()),
  measures: z.array(z.string()),
  rows: z.array(z.string()),
  displayScale: z.enum(["model", "absolute", "thousands", "millions", "billions"]).optional(),
  measuresAxis: z.enum(["columns", "rows"]).optional(),
  measuresPosition: z.enum(["before", "after"]).optional(),
  showAppliedFilters: z.boolean().optional(),
  showColumnTotals: z.boolean().optional(),
  showRowTotals: z.boolean().optional(),
});
export type PivotItems = z.infer<typeof PivotItems>;

export const UserRef = z.object({
  email: z.string(),
  id: Id,
  firstName: z.string(),
  picture: z.string(),
});
export type UserRef = z.infer<typeof UserRef>;

/** §2.2: one block of written cells of a report in an external spreadsheet. */
export const Placement = z.object({
  id: z.string(),
  host: Host,
  workbookId: z.string(),
  workbookName: z.string(),
  sheetId: z.string(),
  sheetName: z.string(),
  anchorCell: z.string(),
  endResultCell: z.string(),
  resultLocation: z.string(),
  placedAt: Timestamp,
  refreshedAt: Timestamp,
  placedByUserId: Id,
  refreshedByUserId: Id,
  queryChecksum: z.string(),
  resultChecksum: ResultChecksum,
  syncStatus: SyncStatus,
});
export type Placement = z.infer<typeof Placement>;

/** §2.1: the response of every report endpoint. */
export const Report = z.object({
  id: Id,
  publicId: PublicId,
  deploymentId: Id,
  name: z.string(),
  title: z.string(),
  type: ReportType,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  userId: Id,
  user: UserRef,
  refreshedByUser: UserRef,
  canEdit: z.boolean().optional(),
  canManage: z.boolean().optional(),
  createdBy: Id.optional(),
  refreshedBy: Id.optional(),
  currentQueryChecksum: z.string().optional(),
  description: z.string().optional(),
  endResultCell: z.string().optional(),
  resultLocation: z.string().optional(),
  externalWorkbookId: z.string().optional(),
  externalWorkbookPlacements: z.array(Placement).optional(),
  folderId: Id.optional(),
  folderPath: z.array(z.object({ id: Id, name: z.string() })).optional(),
  jsonQuery: z.string().optional(),
  sqlQuery: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  pivotItems: PivotItems.optional(),
  rolesWithAccess: z.array(z.object({ actions: z.array(z.string()), id: Id, name: z.string() })).optional(),
  source: ReportSource,
  version: z.number().int().optional(),
  workbookId: Id.optional(),
});
export type Report = z.infer<typeof Report>;

/**
 * §2.5: report input of create, update and upsert. Strict: an unknown field is a 400
 * (our choice). No field is required on create (docs/API.md §Create).
 */
export const ReportInput = z.strictObject({
  name: Name.optional(),
  title: Title.optional(),
  publicId: PublicId.optional(),
  folderId: Id.optional(),
  workbookId: Id.optional(),
  workbookName: z.string().max(LIMITS.nameMax).optional(),
  externalWorkbookId: Ident.optional(),
  host: Host.optional(),
  sheetId: Ident.optional(),
  resultLocation: z.string().min(1).max(LIMITS.nameMax).optional(),
  endResultCell: z.string().min(1).max(LIMITS.nameMax).optional(),
  jsonQuery: z.string().max(1_000_000).optional(),
  sqlQuery: z.string().max(1_000_000).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  pivotItems: PivotItems.optional(),
  resultChecksum: ResultChecksum.optional(),
  source: ReportSource.optional(),
  placementId: Ident.optional(),
});
export type ReportInput = z.infer<typeof ReportInput>;

const Address = z.string().min(1).max(LIMITS.nameMax);

/** §2.6: addresses one placement (placementId, or externalWorkbookId + sheetName|sheetId + anchorCell). */
export const RefreshInput = z.strictObject({
  placementId: Ident.optional(),
  externalWorkbookId: Ident.optional(),
  sheetName: Address.optional(),
  sheetId: Ident.optional(),
  anchorCell: Address.optional(),
  resultChecksum: ResultChecksum.optional(),
  resultLocation: Address.optional(),
  endResultCell: Address.optional(),
});
export type RefreshInput = z.infer<typeof RefreshInput>;

/**
 * §4.1 connect input. externalWorkbookId, resultLocation and endResultCell are our
 * documented additions (docs/API.md §Connect): a placement needs them and the seeds'
 * connect input does not name them.
 */
export const ConnectInput = z.strictObject({
  placementId: Ident.optional(),
  externalWorkbookId: Ident.optional(),
  sheetId: Ident,
  sheetName: Address,
  anchorCell: Address,
  workbookName: z.string().max(LIMITS.nameMax).optional(),
  host: Host.optional(),
  resultChecksum: ResultChecksum.optional(),
  resultLocation: Address.optional(),
  endResultCell: Address.optional(),
  addressOnly: z.boolean().optional(),
});
export type ConnectInput = z.infer<typeof ConnectInput>;

/** §4.1 disconnect: placementId, or externalWorkbookId + sheetName + anchorCell. */
export const DisconnectInput = z.strictObject({
  placementId: Ident.optional(),
  externalWorkbookId: Ident.optional(),
  sheetName: Address.optional(),
  anchorCell: Address.optional(),
});
export type DisconnectInput = z.infer<typeof DisconnectInput>;

export const PlacementAccess = z.enum(["GRANTED", "DENIED"]);
export type PlacementAccess = z.infer<typeof PlacementAccess>;

/**
 * §4.1 external-document placement entry. A DENIED entry still carries the address, the
 * owning deploymentId and the owner's name and email; only reportName is null.
 */
export const ExternalPlacement = z.object({
  access: PlacementAccess,
  placementId: z.string(),
  deploymentId: Id,
  reportId: Id,
  reportName: z.string().nullable(),
  ownerName: z.string().nullable(),
  ownerEmail: z.string().nullable(),
  host: Host,
  workbookId: z.string(),
  workbookName: z.string(),
  sheetId: z.string(),
  sheetName: z.string(),
  anchorCell: z.string(),
  endResultCell: z.string(),
  resultLocation: z.string(),
  placedAt: Timestamp,
  refreshedAt: Timestamp,
  syncStatus: SyncStatus,
});
export type ExternalPlacement = z.infer<typeof ExternalPlacement>;

export const ReportPage = cursorPage(Report);
export const ExternalPlacementPage = cursorPage(ExternalPlacement);

/** §4.4 POST /api/v1/deployments/{id}/token input. */
export const DeploymentTokenInput = z.strictObject({
  expiresIn: z.number().int().min(LIMITS.tokenExpiresInMin).max(LIMITS.tokenExpiresInMax).optional(),
});
export type DeploymentTokenInput = z.infer<typeof DeploymentTokenInput>;

/** The deployment (data-API) token. Response shape "not shown": our choice, docs/API.md. */
export const DeploymentToken = z.object({
  token: z.string().min(1),
  expiresIn: z.number().int().positive(),
  expiresAt: Timestamp,
});
export type DeploymentToken = z.infer<typeof DeploymentToken>;

export const DeploymentRole = z.enum(["admin", "editor", "viewer"]);
export type DeploymentRole = z.infer<typeof DeploymentRole>;

export const Deployment = z.object({
  id: Id,
  name: z.string(),
  /** The caller's role in this deployment. */
  role: DeploymentRole,
});
export type Deployment = z.infer<typeof Deployment>;
export const DeploymentPage = cursorPage(Deployment);

/** GET /api/v1/users/me (fields beyond userPolicies "not shown": our choice). */
export const Me = z.object({
  id: Id,
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  picture: z.string(),
  isAdmin: z.boolean(),
  userPolicies: z.array(z.object({ deploymentId: Id, role: DeploymentRole, source: z.enum(["direct", "organization", "group"]) })),
  /** The user's settings; `sheetsSettings` is the add-in's own (seed 01 §4.4; fields: docs/API.md §Chat). */
  settings: z.looseObject({ sheetsSettings: z.record(z.string(), z.unknown()).optional() }).optional(),
});
export type Me = z.infer<typeof Me>;

export const ReportListQuery = z.strictObject({
  externalWorkbookId: Ident.optional(),
  first: z.coerce.number().int().min(1).max(LIMITS.pageSizeMax).optional(),
  after: z.string().min(1).max(200).optional(),
});
export type ReportListQuery = z.infer<typeof ReportListQuery>;

// ---- Dashboard exports (seeds 01 §4 "dashboard exports"; request/response shapes beyond the named
// fields are our choice, docs/API.md §8) ----

export const DashboardExportFormat = z.enum(["png", "pdf"]);
export type DashboardExportFormat = z.infer<typeof DashboardExportFormat>;

/** renderAs: a console user (by email) or an embed user (tenant + externalId), as generate-session names them. */
export const RenderAs = z.union([
  z.strictObject({ internalId: z.email().max(255) }),
  z.strictObject({ externalId: z.string().min(1).max(255), embedTenantName: z.string().min(1).max(255) }),
]);
export type RenderAs = z.infer<typeof RenderAs>;

export const DashboardExportInput = z.strictObject({
  publicId: z.string().min(1).max(255),
  format: DashboardExportFormat,
  renderAs: RenderAs.optional(),
});
export type DashboardExportInput = z.infer<typeof DashboardExportInput>;

export const DashboardExportStatus = z.enum(["queued", "running", "done", "failed"]);
export type DashboardExportStatus = z.infer<typeof DashboardExportStatus>;

export const DashboardExportJob = z.object({
  jobId: z.string().min(1),
  status: DashboardExportStatus,
  error: z.string().nullish(),
});
export type DashboardExportJob = z.infer<typeof DashboardExportJob>;

/** Seeds 01 §8: job and file dropped 5 minutes after submission. */
export const DASHBOARD_EXPORT_TTL_MS = 5 * 60_000;
