// Hono routes of the management API (/api/v1/...): authentication, request validation
// with the API layer's schemas, and the ReportService rules. Errors render as the
// documented body {error, code?, field?}.
import { Hono, type Context } from "hono";
import { LIMITS } from "../../src/api/schemas/common";
import {
  ConnectInput, DeploymentTokenInput, DisconnectInput, RefreshInput, ReportInput, ReportListQuery,
} from "../../src/api/schemas/management";
import { PageQuery, PublicId } from "../../src/api/schemas/common";
import { buildOpenApiDocument } from "../../src/api/openapi";
import { DEPLOYMENTS, type User } from "./personas";
import { HttpProblem, type ReportService } from "./service";
import type { Credentials } from "./auth";
import { intParam, jsonBody, parseWith } from "./validation";
import { page } from "./paging";

type Env = { Variables: { user: User } };

export function managementRoutes(service: ReportService, creds: Credentials): Hono<Env> {
  const app = new Hono<Env>();
  const spec = buildOpenApiDocument();

  app.get("/spec", (c) => c.json(spec));

  app.use("*", async (c, next) => {
    const user = creds.userForBearer(c.req.header("Authorization"));
    if (!user) throw new HttpProblem(401, "Missing or unknown credential: send Authorization: Bearer <API key>");
    c.set("user", user);
    await next();
  });

  const query = (c: Context) => Object.fromEntries(new URL(c.req.url).searchParams);

  app.get("/users/me", (c) => {
    const u = c.var.user;
    return c.json({
      id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName, picture: u.picture, isAdmin: u.isAdmin,
      userPolicies: Object.entries(u.roles).map(([d, role]) => ({ deploymentId: Number(d), role, source: "direct" })),
    });
  });

  app.get("/deployments", (c) => {
    const q = parseWith(PageQuery, query(c));
    const visible = DEPLOYMENTS.filter((d) => c.var.user.roles[d.id]).map((d) => ({ ...d, role: c.var.user.roles[d.id]! }));
    return c.json(page(visible, q.first, q.after));
  });

  app.post("/deployments/:deploymentId/token", async (c) => {
    const deploymentId = intParam(c, "deploymentId");
    service.deployment(c.var.user, deploymentId);
    const input = await jsonBody(c, DeploymentTokenInput, true);
    const expiresIn = input.expiresIn ?? LIMITS.tokenExpiresInDefault;
    const iat = creds.clock.nowSec();
    const token = creds.sign({ sub: c.var.user.id, deploymentId, iat, exp: iat + expiresIn });
    return c.json({ token, expiresIn, expiresAt: new Date((iat + expiresIn) * 1000).toISOString() });
  });

  app.get("/deployments/:deploymentId/reports", (c) => {
    const deploymentId = intParam(c, "deploymentId");
    const q = parseWith(ReportListQuery, query(c));
    const all = service.list(c.var.user, deploymentId, q.externalWorkbookId);
    const p = page(all, q.first, q.after);
    return c.json({ items: p.items.map((r) => service.view(c.var.user, r, q.externalWorkbookId)), pageInfo: p.pageInfo });
  });

  app.post("/deployments/:deploymentId/reports", async (c) => {
    const deploymentId = intParam(c, "deploymentId");
    service.deployment(c.var.user, deploymentId);
    const r = await service.create(c.var.user, deploymentId, await jsonBody(c, ReportInput));
    return c.json(service.view(c.var.user, r));
  });

  app.put("/deployments/:deploymentId/reports/by-public-id/:publicId", async (c) => {
    const deploymentId = intParam(c, "deploymentId");
    const publicId = parseWith(PublicId, c.req.param("publicId"), "publicId");
    const r = await service.upsert(c.var.user, deploymentId, publicId, await jsonBody(c, ReportInput));
    return c.json(service.view(c.var.user, r));
  });

  app.put("/deployments/:deploymentId/reports/:reportId", async (c) => {
    const [deploymentId, reportId] = [intParam(c, "deploymentId"), intParam(c, "reportId")];
    const r = await service.update(c.var.user, deploymentId, reportId, await jsonBody(c, ReportInput));
    return c.json(service.view(c.var.user, r));
  });

  app.put("/deployments/:deploymentId/reports/:reportId/refresh", async (c) => {
    const [deploymentId, reportId] = [intParam(c, "deploymentId"), intParam(c, "reportId")];
    const r = await service.refresh(c.var.user, deploymentId, reportId, await jsonBody(c, RefreshInput));
    return c.json(service.view(c.var.user, r));
  });

  app.post("/deployments/:deploymentId/reports/:reportId/connect-workbook", async (c) => {
    const [deploymentId, reportId] = [intParam(c, "deploymentId"), intParam(c, "reportId")];
    const r = await service.connect(c.var.user, deploymentId, reportId, await jsonBody(c, ConnectInput));
    return c.json(service.view(c.var.user, r));
  });

  app.delete("/deployments/:deploymentId/reports/:reportId/connect-workbook", async (c) => {
    const [deploymentId, reportId] = [intParam(c, "deploymentId"), intParam(c, "reportId")];
    const r = await service.disconnect(c.var.user, deploymentId, reportId, await jsonBody(c, DisconnectInput));
    return c.json(service.view(c.var.user, r));
  });

  app.get("/external-documents/:externalWorkbookId/placements", (c) => {
    const id = c.req.param("externalWorkbookId");
    if (id.length === 0 || id.length > LIMITS.nameMax) throw new HttpProblem(400, "externalWorkbookId: 1 to 255 characters", "invalid", "externalWorkbookId");
    const q = parseWith(PageQuery, query(c));
    return c.json(page(service.externalPlacements(c.var.user, id), q.first, q.after));
  });

  return app;
}
