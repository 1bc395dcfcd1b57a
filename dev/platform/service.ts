// The management rules of seeds 01 §4.1 over the store: access levels, publicId rules
// (write-once, unique, placeholder ids), upsert with its three 409 causes, placements and
// syncStatus, the external-document listing with its 422 limit. HTTP-free: routes call it.
import { createHash, randomUUID } from "node:crypto";
import { LIMITS } from "../../src/api/schemas/common";
import type {
  ConnectInput,
  DisconnectInput,
  ExternalPlacement,
  Placement,
  RefreshInput,
  Report,
  ReportInput,
  SyncStatus,
  UserRef,
} from "../../src/api/schemas/management";
import { generatePublicId, isPlaceholderPublicId, placeholderPublicId } from "../../src/api/public-id";
import { ERROR_CODES } from "../../src/api/management-client";
import { DEPLOYMENTS, fullName, userById, type User } from "./personas";
import type { Store, StoredPlacement, StoredReport } from "./store";
import type { Clock } from "./clock";
import { FOLDER_PATHS } from "./folders";

/** An error the routes turn into `status` + the documented error body. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface UpsertRaceContext {
  deploymentId: number;
  publicId: string;
  /** The user whose upsert is raced. */ user: User;
}
export type UpsertRaceHook = (ctx: UpsertRaceContext) => Promise<void>;

export function queryChecksum(r: Pick<StoredReport, "jsonQuery" | "sqlQuery" | "pivotItems">): string | undefined {
  if (r.jsonQuery === undefined && r.sqlQuery === undefined) return undefined;
  return createHash("sha256")
    .update(JSON.stringify([r.jsonQuery ?? null, r.sqlQuery ?? null, r.pivotItems ?? null]))
    .digest("hex")
    .slice(0, 16);
}

export class ReportService {
  private lock: Promise<unknown> = Promise.resolve();
  /** Test hook: runs once, between the upsert's decision and its application. */
  private upsertRace: UpsertRaceHook | null = null;

  constructor(
    readonly store: Store,
    readonly clock: Clock,
  ) {}

  onNextUpsert(hook: UpsertRaceHook): void {
    this.upsertRace = hook;
  }

  /** Mutations run one at a time. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.lock.then(fn);
    this.lock = next.catch(() => undefined);
    return next;
  }

  // ---- access -------------------------------------------------------------------------

  role(user: User, deploymentId: number) {
    return user.roles[deploymentId];
  }
  deployment(user: User, deploymentId: number) {
    if (!DEPLOYMENTS.some((d) => d.id === deploymentId)) throw new HttpProblem(404, `Deployment ${deploymentId} not found`);
    const role = this.role(user, deploymentId);
    if (!role) throw new HttpProblem(403, `No access to deployment ${deploymentId}`);
    return role;
  }
  canRead(user: User, r: StoredReport): boolean {
    const role = this.role(user, r.deploymentId);
    if (!role) return false;
    return role === "admin" || r.userId === user.id || r.shared;
  }
  canEdit(user: User, r: StoredReport): boolean {
    const role = this.role(user, r.deploymentId);
    return role === "admin" || (role === "editor" && r.userId === user.id);
  }
  private requireWriter(user: User, deploymentId: number, what: string) {
    const role = this.deployment(user, deploymentId);
    if (role === "viewer") throw new HttpProblem(403, `A viewer cannot ${what}`);
  }
  private readable(user: User, deploymentId: number, reportId: number): StoredReport {
    this.deployment(user, deploymentId);
    const r = this.store.reports.get(reportId);
    if (!r || r.deploymentId !== deploymentId || !this.canRead(user, r)) throw new HttpProblem(404, `Report ${reportId} not found`);
    return r;
  }
  private editable(user: User, deploymentId: number, reportId: number): StoredReport {
    const r = this.readable(user, deploymentId, reportId);
    if (!this.canEdit(user, r)) throw new HttpProblem(403, `No edit access to report ${reportId}`);
    return r;
  }

  // ---- views --------------------------------------------------------------------------

  shownPublicId(r: StoredReport): string {
    return r.publicId ?? placeholderPublicId(r.id);
  }
  syncStatus(r: StoredReport, p: StoredPlacement): SyncStatus {
    if (!r.currentQueryChecksum || !p.queryChecksum) return "UNKNOWN";
    return p.queryChecksum === r.currentQueryChecksum ? "UP_TO_DATE" : "CHANGED";
  }
  placementView(r: StoredReport, p: StoredPlacement): Placement {
    const { reportId: _r, ...rest } = p;
    return { ...rest, syncStatus: this.syncStatus(r, p) };
  }
  private userRef(id: number): UserRef {
    const u = userById(id);
    return u ? { email: u.email, id: u.id, firstName: u.firstName, picture: u.picture } : { email: "", id, firstName: "", picture: "" };
  }
  view(user: User, r: StoredReport, workbookFilter?: string): Report {
    const placements = this.store.placementsOf(r.id).filter((p) => !workbookFilter || p.workbookId === workbookFilter);
    const out: Report = {
      id: r.id,
      publicId: this.shownPublicId(r),
      deploymentId: r.deploymentId,
      name: r.name,
      title: r.title,
      type: "REPORT",
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      userId: r.userId,
      user: this.userRef(r.userId),
      refreshedByUser: this.userRef(r.refreshedBy ?? r.userId),
      canEdit: this.canEdit(user, r),
      canManage: this.canEdit(user, r),
      createdBy: r.userId,
      externalWorkbookPlacements: placements.map((p) => this.placementView(r, p)),
      ...(r.folderId !== undefined
        ? { folderId: r.folderId, ...(FOLDER_PATHS[r.folderId] ? { folderPath: FOLDER_PATHS[r.folderId] } : {}) }
        : {}),
      rolesWithAccess: r.shared ? [{ actions: ["Read"], id: 1, name: "All deployment members" }] : [],
      source: r.source,
      version: r.version,
    };
    const optional = [
      "refreshedBy",
      "currentQueryChecksum",
      "description",
      "endResultCell",
      "resultLocation",
      "externalWorkbookId",
      "folderId",
      "jsonQuery",
      "sqlQuery",
      "meta",
      "pivotItems",
      "workbookId",
    ] as const;
    for (const k of optional) if (r[k] !== undefined) (out as Record<string, unknown>)[k] = r[k];
    return out;
  }

  // ---- reads --------------------------------------------------------------------------

  list(user: User, deploymentId: number, externalWorkbookId: string | undefined): StoredReport[] {
    this.deployment(user, deploymentId);
    return [...this.store.reports.values()]
      .filter((r) => r.deploymentId === deploymentId && this.canRead(user, r))
      .filter((r) => !externalWorkbookId || this.store.placementsOf(r.id).some((p) => p.workbookId === externalWorkbookId))
      .sort((a, b) => a.id - b.id);
  }

  externalPlacements(user: User, workbookId: string): ExternalPlacement[] {
    const entries: Array<{ r: StoredReport; p: StoredPlacement }> = [];
    for (const p of this.store.placements.values()) {
      if (p.workbookId !== workbookId) continue;
      const r = this.store.reports.get(p.reportId);
      if (r) entries.push({ r, p });
    }
    const explorations = new Set(entries.map((e) => e.r.id)).size;
    if (explorations > LIMITS.placedExplorationsMax || entries.length > LIMITS.placementsMax) {
      throw new HttpProblem(
        422,
        `The document holds ${explorations} placed explorations and ${entries.length} placements (limits: ${LIMITS.placedExplorationsMax} and ${LIMITS.placementsMax})`,
        ERROR_CODES.placementLimit,
      );
    }
    entries.sort((a, b) => a.r.id - b.r.id || a.p.id.localeCompare(b.p.id));
    return entries.map(({ r, p }) => {
      const owner = userById(r.userId);
      const granted = this.canRead(user, r);
      return {
        access: granted ? "GRANTED" : "DENIED",
        placementId: p.id,
        deploymentId: r.deploymentId,
        reportId: r.id,
        reportName: granted ? r.name : null,
        ownerName: owner ? fullName(owner) : null,
        ownerEmail: owner ? owner.email : null,
        host: p.host,
        workbookId: p.workbookId,
        workbookName: p.workbookName,
        sheetId: p.sheetId,
        sheetName: p.sheetName,
        anchorCell: p.anchorCell,
        endResultCell: p.endResultCell,
        resultLocation: p.resultLocation,
        placedAt: p.placedAt,
        refreshedAt: p.refreshedAt,
        syncStatus: this.syncStatus(r, p),
      };
    });
  }

  // ---- writes -------------------------------------------------------------------------

  /** The report (any deployment) holding this real publicId, if any. */
  private byPublicId(publicId: string): StoredReport | undefined {
    for (const r of this.store.reports.values()) if (r.publicId === publicId) return r;
    return undefined;
  }
  private legacyMatches(deploymentId: number, publicId: string): StoredReport[] {
    return [...this.store.reports.values()].filter(
      (r) => r.publicId === null && r.deploymentId === deploymentId && placeholderPublicId(r.id) === publicId,
    );
  }
  private checkAssignable(publicId: string, selfId: number | null) {
    if (isPlaceholderPublicId(publicId))
      throw new HttpProblem(
        400,
        `publicId ${publicId} is a synthesized placeholder id; choose your own`,
        ERROR_CODES.placeholderPublicId,
        "publicId",
      );
    const other = this.byPublicId(publicId);
    if (other && other.id !== selfId) throw new HttpProblem(409, `publicId ${publicId} is used by another report`);
  }

  /** Applies input fields onto a report (only the fields sent change). */
  private applyInput(r: StoredReport, input: ReportInput, creating: boolean): StoredReport {
    const next: StoredReport = { ...r };
    const copy = [
      "name",
      "title",
      "folderId",
      "workbookId",
      "workbookName",
      "externalWorkbookId",
      "host",
      "sheetId",
      "resultLocation",
      "endResultCell",
      "jsonQuery",
      "sqlQuery",
      "meta",
      "pivotItems",
    ] as const;
    for (const k of copy) if (input[k] !== undefined) (next as unknown as Record<string, unknown>)[k] = input[k];
    if (creating && input.source !== undefined) next.source = input.source;
    next.currentQueryChecksum = queryChecksum(next);
    return next;
  }
  private changed(a: StoredReport, b: StoredReport) {
    const strip = (r: StoredReport) => JSON.stringify({ ...r, updatedAt: "", version: 0 });
    return strip(a) !== strip(b);
  }
  /** Report-input placement fields update the placement named by placementId (update only). */
  private placementFromInput(user: User, r: StoredReport, input: ReportInput): StoredPlacement | null {
    if (input.placementId === undefined) {
      if (input.resultChecksum !== undefined)
        throw new HttpProblem(400, "resultChecksum needs placementId in a report input", ERROR_CODES.invalid, "placementId");
      return null;
    }
    const p = this.store.placements.get(input.placementId);
    if (!p || p.reportId !== r.id)
      throw new HttpProblem(404, `Placement ${input.placementId} not found on report ${r.id}`, undefined, "placementId");
    const next: StoredPlacement = { ...p };
    if (input.sheetId !== undefined) next.sheetId = input.sheetId;
    if (input.resultLocation !== undefined) next.resultLocation = input.resultLocation;
    if (input.endResultCell !== undefined) next.endResultCell = input.endResultCell;
    if (input.host !== undefined) next.host = input.host;
    if (input.workbookName !== undefined) next.workbookName = input.workbookName;
    if (input.resultChecksum !== undefined) {
      next.resultChecksum = input.resultChecksum;
      next.refreshedAt = this.clock.iso();
      next.refreshedByUserId = user.id;
    }
    return JSON.stringify(next) === JSON.stringify(p) ? null : next;
  }

  create(user: User, deploymentId: number, input: ReportInput): Promise<StoredReport> {
    return this.serial(() => this.createNow(user, deploymentId, input));
  }
  private async createNow(user: User, deploymentId: number, input: ReportInput, forcedPublicId?: string): Promise<StoredReport> {
    this.requireWriter(user, deploymentId, "create reports");
    if (input.placementId !== undefined)
      throw new HttpProblem(400, "placementId is accepted by update only", ERROR_CODES.invalid, "placementId");
    if (input.resultChecksum !== undefined)
      throw new HttpProblem(400, "resultChecksum needs a placement: connect the workbook first", ERROR_CODES.invalid, "resultChecksum");
    let publicId = forcedPublicId ?? input.publicId;
    if (publicId !== undefined) this.checkAssignable(publicId, null);
    else
      do publicId = generatePublicId();
      while (this.byPublicId(publicId));
    const id = this.store.nextReportId();
    const at = this.clock.iso();
    const base: StoredReport = {
      id,
      deploymentId,
      publicId,
      name: input.name ?? "Untitled report",
      title: input.title ?? input.name ?? "Untitled report",
      userId: user.id,
      shared: false,
      source: input.source ?? "SHEETS_DESKTOP",
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    const r = this.applyInput(base, input, true);
    await this.store.commit({ reports: [r] });
    return r;
  }

  update(user: User, deploymentId: number, reportId: number, input: ReportInput): Promise<StoredReport> {
    return this.serial(() => this.updateNow(user, this.editable(user, deploymentId, reportId), input));
  }
  private async updateNow(user: User, r: StoredReport, input: ReportInput, adoptPublicId?: string): Promise<StoredReport> {
    let next = this.applyInput(r, input, false);
    if (adoptPublicId !== undefined) next.publicId = adoptPublicId;
    if (input.publicId !== undefined && input.publicId !== next.publicId) {
      if (next.publicId !== null)
        throw new HttpProblem(
          400,
          `publicId is write-once: report ${r.id} already has ${next.publicId}`,
          ERROR_CODES.publicIdImmutable,
          "publicId",
        );
      this.checkAssignable(input.publicId, r.id);
      next.publicId = input.publicId;
    }
    const placement = this.placementFromInput(user, r, input);
    if (!this.changed(r, next) && !placement) return r;
    next = { ...next, updatedAt: this.clock.iso(), version: r.version + 1 };
    await this.store.commit({ reports: [next], placements: placement ? [placement] : [] });
    return next;
  }

  upsert(user: User, deploymentId: number, publicId: string, input: ReportInput): Promise<StoredReport> {
    return this.serial(async () => {
      this.deployment(user, deploymentId);
      if (input.publicId !== undefined && input.publicId !== publicId) {
        throw new HttpProblem(400, "publicId in the body differs from the path", ERROR_CODES.publicIdImmutable, "publicId");
      }
      // Decision.
      const decide = () => {
        const existing = this.byPublicId(publicId);
        if (existing && existing.deploymentId !== deploymentId)
          throw new HttpProblem(409, `publicId ${publicId} belongs to a report in another deployment`);
        return existing?.id ?? null;
      };
      let targetId = decide();
      let adopt = false;
      if (targetId === null && isPlaceholderPublicId(publicId)) {
        const matches = this.legacyMatches(deploymentId, publicId);
        if (matches.length > 1)
          throw new HttpProblem(
            409,
            `Placeholder id ${publicId} matches ${matches.length} reports; assign a publicId of your own with PUT by reportId`,
            ERROR_CODES.ambiguousLegacyId,
          );
        if (matches.length === 1) {
          targetId = matches[0]!.id;
          adopt = true;
        }
      }
      // Another writer may act here (test hook).
      const race = this.upsertRace;
      if (race) {
        this.upsertRace = null;
        await race({ deploymentId, publicId, user });
      }
      // Application: the decision must still hold.
      const now = adopt ? (this.store.reports.get(targetId!)?.publicId === null ? targetId : -1) : (this.byPublicId(publicId)?.id ?? null);
      if (now !== targetId)
        throw new HttpProblem(409, "Another writer created or deleted the report meanwhile; retry", ERROR_CODES.upsertBranchChanged);
      if (targetId === null) return this.createNow(user, deploymentId, { ...input, publicId }, publicId);
      const r = this.store.reports.get(targetId)!;
      if (!this.canRead(user, r)) throw new HttpProblem(403, `No access to the report holding publicId ${publicId}`);
      if (!this.canEdit(user, r)) throw new HttpProblem(403, `No edit access to report ${r.id}`);
      const { publicId: _p, ...rest } = input;
      return this.updateNow(user, r, rest, adopt ? publicId : undefined);
    });
  }

  hasPublicId(publicId: string): boolean {
    return this.byPublicId(publicId) !== undefined;
  }

  /** Test hook helper: a write by "another writer" that bypasses the serial lock. */
  async concurrentWrite(kind: "create" | "delete", deploymentId: number, publicId: string, owner: User): Promise<void> {
    if (kind === "delete") {
      const r = this.byPublicId(publicId);
      if (r) await this.store.commit({ deleteReports: [r.id] });
      return;
    }
    const at = this.clock.iso();
    const id = this.store.nextReportId();
    await this.store.commit({
      reports: [
        {
          id,
          deploymentId,
          publicId,
          name: "Concurrent writer",
          title: "Concurrent writer",
          userId: owner.id,
          shared: false,
          source: "PLAYGROUND",
          createdAt: at,
          updatedAt: at,
          version: 1,
        },
      ],
    });
  }

  private findPlacement(
    r: StoredReport,
    a: { placementId?: string; externalWorkbookId?: string; sheetName?: string; sheetId?: string; anchorCell?: string },
  ): StoredPlacement {
    const ps = this.store.placementsOf(r.id);
    let p: StoredPlacement | undefined;
    if (a.placementId !== undefined) p = ps.find((x) => x.id === a.placementId);
    else if (a.externalWorkbookId !== undefined && (a.sheetName !== undefined || a.sheetId !== undefined) && a.anchorCell !== undefined) {
      p = ps.find(
        (x) =>
          x.workbookId === a.externalWorkbookId &&
          x.anchorCell === a.anchorCell &&
          (a.sheetId !== undefined ? x.sheetId === a.sheetId : x.sheetName === a.sheetName),
      );
    } else {
      throw new HttpProblem(
        400,
        "Address one placement: placementId, or externalWorkbookId plus sheetName (or sheetId) plus anchorCell",
        ERROR_CODES.invalid,
        "placementId",
      );
    }
    if (!p) throw new HttpProblem(404, "Placement not found", undefined, "placementId");
    return p;
  }
  private requirePlacementWriter(user: User, deploymentId: number, reportId: number): StoredReport {
    const r = this.readable(user, deploymentId, reportId);
    this.requireWriter(user, deploymentId, "change placements");
    return r;
  }

  refresh(user: User, deploymentId: number, reportId: number, input: RefreshInput): Promise<StoredReport> {
    return this.serial(async () => {
      const r = this.requirePlacementWriter(user, deploymentId, reportId);
      const p = this.findPlacement(r, input);
      const at = this.clock.iso();
      const next: StoredPlacement = {
        ...p,
        refreshedAt: at,
        refreshedByUserId: user.id,
        queryChecksum: r.currentQueryChecksum ?? "",
        ...(input.resultChecksum ? { resultChecksum: input.resultChecksum } : {}),
        ...(input.resultLocation ? { resultLocation: input.resultLocation } : {}),
        ...(input.endResultCell ? { endResultCell: input.endResultCell } : {}),
      };
      // With placementId the address fields are corrections; otherwise they addressed the placement.
      if (input.placementId !== undefined) {
        if (input.sheetId) next.sheetId = input.sheetId;
        if (input.sheetName) next.sheetName = input.sheetName;
        if (input.anchorCell) next.anchorCell = input.anchorCell;
      }
      const rep = { ...r, refreshedBy: user.id };
      await this.store.commit({ reports: [rep], placements: [next] });
      return rep;
    });
  }

  connect(user: User, deploymentId: number, reportId: number, input: ConnectInput): Promise<StoredReport> {
    return this.serial(async () => {
      const r = this.requirePlacementWriter(user, deploymentId, reportId);
      const ps = this.store.placementsOf(r.id);
      const workbookId = input.externalWorkbookId ?? r.externalWorkbookId;
      let existing: StoredPlacement | undefined;
      if (input.placementId !== undefined) {
        existing = ps.find((p) => p.id === input.placementId);
        if (!existing) throw new HttpProblem(404, `Placement ${input.placementId} not found on report ${r.id}`, undefined, "placementId");
      } else {
        if (!workbookId)
          throw new HttpProblem(
            400,
            "externalWorkbookId is required (in the input or on the report)",
            ERROR_CODES.invalid,
            "externalWorkbookId",
          );
        existing = ps.find((p) => p.workbookId === workbookId && p.sheetId === input.sheetId && p.anchorCell === input.anchorCell);
      }
      const at = this.clock.iso();
      if (input.addressOnly && !existing)
        throw new HttpProblem(400, "addressOnly corrects an existing placement: give placementId", ERROR_CODES.invalid, "addressOnly");
      if (!existing && !input.resultChecksum)
        throw new HttpProblem(400, "resultChecksum is required for a new placement", ERROR_CODES.invalid, "resultChecksum");
      const address = {
        sheetId: input.sheetId,
        sheetName: input.sheetName,
        anchorCell: input.anchorCell,
        resultLocation: input.resultLocation ?? existing?.resultLocation ?? input.anchorCell,
        endResultCell: input.endResultCell ?? existing?.endResultCell ?? input.anchorCell,
        ...(input.workbookName !== undefined ? { workbookName: input.workbookName } : {}),
        ...(input.host !== undefined ? { host: input.host } : {}),
      };
      let next: StoredPlacement;
      if (existing) {
        next = { ...existing, ...address };
        if (!input.addressOnly && input.resultChecksum) {
          next = {
            ...next,
            resultChecksum: input.resultChecksum,
            refreshedAt: at,
            refreshedByUserId: user.id,
            queryChecksum: r.currentQueryChecksum ?? "",
          };
        }
      } else {
        const clash = [...this.store.placements.values()].find(
          (p) => p.workbookId === workbookId && p.sheetId === input.sheetId && p.anchorCell === input.anchorCell,
        );
        if (clash)
          throw new HttpProblem(
            409,
            `Another report is already placed at ${input.sheetName}!${input.anchorCell}`,
            "placement_taken",
            "anchorCell",
          );
        next = {
          id: randomUUID(),
          reportId: r.id,
          host: input.host ?? r.host ?? "SHEETS_DESKTOP",
          workbookId: workbookId!,
          workbookName: input.workbookName ?? r.workbookName ?? "",
          ...address,
          placedAt: at,
          refreshedAt: at,
          placedByUserId: user.id,
          refreshedByUserId: user.id,
          queryChecksum: r.currentQueryChecksum ?? "",
          resultChecksum: input.resultChecksum!,
        };
      }
      await this.store.commit({ placements: [next] });
      return r;
    });
  }

  disconnect(user: User, deploymentId: number, reportId: number, input: DisconnectInput): Promise<StoredReport> {
    return this.serial(async () => {
      const r = this.requirePlacementWriter(user, deploymentId, reportId);
      if (
        input.placementId === undefined &&
        (input.externalWorkbookId === undefined || input.sheetName === undefined || input.anchorCell === undefined)
      ) {
        throw new HttpProblem(
          400,
          "Give placementId, or externalWorkbookId plus sheetName plus anchorCell",
          ERROR_CODES.invalid,
          "placementId",
        );
      }
      const p = this.findPlacement(r, input);
      await this.store.commit({ deletePlacements: [p.id] });
      return r;
    });
  }
}
