// Dashboard exports (seeds 01 §4 rows, §8): POST /api/v1/dashboard-exports renders a published
// dashboard to PNG or PDF in the background; GET …/{jobId} polls; GET …/{jobId}/download gives the
// file. Rules (docs/API.md §11): management credential (Bearer API key); body checked first (400: bad
// format, unknown field), then the dashboard looked up (404), then manage access (admin, or editor or
// admin of the dashboard's deployment; a viewer or a user without a role there gets 403); renderAs
// only for account admins (403) and only a subject that can read the dashboard (400 unknown subject,
// 403 cannot read). A job is visible to its submitter only (404 otherwise) and is dropped with its
// file 5 minutes after submission on the stand-in's clock (404 then). Download before done → 409.
import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import type { DuckDBConnection } from "@duckdb/node-api";
import {
  DASHBOARD_EXPORT_TTL_MS,
  DashboardExportInput,
  type DashboardExportFormat,
  type DashboardExportStatus,
  type RenderAs,
} from "../../src/api/schemas/management";
import { HttpProblem } from "./service";
import type { Credentials } from "./auth";
import type { Clock } from "./clock";
import { DASHBOARDS, EMBED_TENANTS, type SeededDashboard } from "./embed";
import { USERS, type User } from "./personas";
import { dashboardSvg, pdfWithImage, svgToPng } from "./dashboard-render";
import { jsonBody } from "./validation";

interface Job {
  id: string;
  ownerId: number;
  dashboard: SeededDashboard;
  format: DashboardExportFormat;
  submittedAt: number;
  status: DashboardExportStatus;
  error: string | null;
  file: Buffer | null;
}

const canManage = (u: User, d: SeededDashboard) => u.isAdmin || u.roles[d.deploymentId] === "admin" || u.roles[d.deploymentId] === "editor";

/** The renderAs subject must exist and be able to read the dashboard. */
function checkSubject(r: RenderAs, d: SeededDashboard): void {
  if ("internalId" in r) {
    const u = USERS.find((x) => x.email.toLowerCase() === r.internalId.toLowerCase());
    if (!u) throw new HttpProblem(400, `renderAs: no console user has the email ${r.internalId}`, "invalid", "renderAs");
    if (u.roles[d.deploymentId] === undefined) throw new HttpProblem(403, `renderAs: ${r.internalId} cannot read dashboard ${d.publicId}`);
    return;
  }
  if (!(EMBED_TENANTS as readonly string[]).includes(r.embedTenantName)) {
    throw new HttpProblem(400, `renderAs: no embed tenant is named ${r.embedTenantName}`, "invalid", "renderAs");
  }
  if (d.tenants !== "all" && !d.tenants.includes(r.embedTenantName)) {
    throw new HttpProblem(403, `renderAs: embed tenant ${r.embedTenantName} cannot read dashboard ${d.publicId}`);
  }
}

export interface ExportsOptions {
  /** Test knob: extra time a render takes (so that queued/running can be observed). */
  renderDelayMs?: () => number;
}

export function exportsRoutes(
  creds: Credentials,
  clock: Clock,
  conn: DuckDBConnection,
  o: ExportsOptions = {},
): Hono<{ Variables: { user: User } }> {
  const app = new Hono<{ Variables: { user: User } }>();
  const jobs = new Map<string, Job>();

  const sweep = () => {
    const now = clock.now();
    for (const [id, j] of jobs) if (now - j.submittedAt >= DASHBOARD_EXPORT_TTL_MS) jobs.delete(id);
  };

  app.use("*", async (c, next) => {
    const user = creds.userForBearer(c.req.header("Authorization"));
    if (!user) throw new HttpProblem(401, "Missing or unknown credential: send Authorization: Bearer <API key>");
    c.set("user", user);
    sweep();
    await next();
  });

  async function run(job: Job): Promise<void> {
    await new Promise((r) => setTimeout(r, 0));
    job.status = "running";
    try {
      const extra = o.renderDelayMs?.() ?? 0;
      if (extra > 0) await new Promise((r) => setTimeout(r, extra));
      const { png, width, height, rgba } = svgToPng(await dashboardSvg(conn, job.dashboard));
      job.file = job.format === "png" ? png : pdfWithImage(rgba, width, height);
      job.status = "done";
    } catch (e) {
      job.status = "failed";
      job.error = `The dashboard could not be rendered: ${(e as Error).message}`;
    }
  }

  const ownJob = (id: string, user: User): Job => {
    const j = jobs.get(id);
    if (!j || j.ownerId !== user.id) throw new HttpProblem(404, `Export job ${id} not found (jobs are kept 5 minutes after submission)`);
    return j;
  };
  const view = (j: Job) => ({ jobId: j.id, status: j.status, ...(j.error ? { error: j.error } : {}) });

  app.post("/", async (c) => {
    const input = await jsonBody(c, DashboardExportInput);
    const user = c.var.user;
    const d = DASHBOARDS.find((x) => x.publicId === input.publicId);
    if (!d) throw new HttpProblem(404, `Dashboard ${input.publicId} not found`);
    if (!canManage(user, d))
      throw new HttpProblem(403, `Exporting dashboard ${d.publicId} needs manage access (admin, or editor of its deployment)`);
    if (input.renderAs) {
      if (!user.isAdmin) throw new HttpProblem(403, "Only a tenant admin may pass renderAs");
      checkSubject(input.renderAs, d);
    }
    const job: Job = {
      id: randomBytes(12).toString("base64url"),
      ownerId: user.id,
      dashboard: d,
      format: input.format,
      submittedAt: clock.now(),
      status: "queued",
      error: null,
      file: null,
    };
    jobs.set(job.id, job);
    void run(job);
    return c.json(view(job), 202);
  });

  app.get("/:jobId", (c) => c.json(view(ownJob(c.req.param("jobId"), c.var.user))));

  app.get("/:jobId/download", (c) => {
    const j = ownJob(c.req.param("jobId"), c.var.user);
    if (j.status !== "done" || !j.file)
      throw new HttpProblem(409, `Export job ${j.id} is ${j.status}, not done: poll until done`, "not_done");
    const type = j.format === "png" ? "image/png" : "application/pdf";
    return c.body(new Uint8Array(j.file), 200, {
      "Content-Type": type,
      "Content-Length": String(j.file.length),
      "Content-Disposition": `attachment; filename="${j.dashboard.publicId}.${j.format}"`,
    });
  });

  return app;
}
