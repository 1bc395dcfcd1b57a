// Hono routes of the management API (/api/v1/...): authentication, request validation
// with the API layer's schemas, and the ReportService rules. Errors render as the
// documented body {error, code?, field?}.
import { Hono, type Context } from "hono";
import { LIMITS } from "../../src/api/schemas/common";
import {
  ConnectInput,
  DeploymentTokenInput,
  DisconnectInput,
  RefreshInput,
  ReportInput,
  ReportListQuery,
} from "../../src/api/schemas/management";
import { PageQuery, PublicId } from "../../src/api/schemas/common";
import { buildOpenApiDocument } from "../../src/api/openapi";
import { DEPLOYMENTS, type User } from "./personas";
import { HttpProblem, type ReportService } from "./service";
import type { Credentials } from "./auth";
import { intParam, jsonBody, parseWith } from "./validation";
import { AppConfig, SettingsPatch, type SheetsSettings } from "../../src/api/chat/schemas";
import { page } from "./paging";

type Env = { Variables: { user: User } };

/** GET /api/v1/app-config as the stand-in answers it unless a start flag says otherwise. */
export const DEFAULT_APP_CONFIG: AppConfig = {
  aiPaywalled: false,
  dashboardAppsEnabled: true,
  restrictDataDownload: false,
  sheetsAgentChatEnabled: true,
  timezoneSettings: { timezone: "UTC" },
};

/** `appConfig()` is read per request: the stand-in adds its aiUrl once it listens (docs/API.md §Chat). */
export function managementRoutes(
  service: ReportService,
  creds: Credentials,
  appConfig: () => AppConfig = () => DEFAULT_APP_CONFIG,
): Hono<Env> {
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

  // The user's sheets settings live in the state's meta table (one JSON value per user).
  const settingsKey = (u: User) => `settings.${u.id}.sheetsSettings`;
  const sheetsSettings = (u: User): SheetsSettings => JSON.parse(service.store.meta.get(settingsKey(u)) ?? "{}") as SheetsSettings;

  app.get("/users/me", (c) => {
    const u = c.var.user;
    return c.json({
      id: u.id,
      email: u.email,
      firstName: u.firstName,
      lastName: u.lastName,
      picture: u.picture,
      isAdmin: u.isAdmin,
      userPolicies: Object.entries(u.roles).map(([d, role]) => ({ deploymentId: Number(d), role, source: "direct" })),
      settings: { sheetsSettings: sheetsSettings(u) },
    });
  });

  app.get("/app-config", (c) => c.json(appConfig()));

  // Seed 01 §4.4: a partial patch, sheets settings merged field by field; an explicit null clears.
  app.patch("/users/me/settings", async (c) => {
    const patch = await jsonBody(c, SettingsPatch);
    const merged: Record<string, unknown> = { ...sheetsSettings(c.var.user) };
    for (const [k, v] of Object.entries(patch.sheetsSettings ?? {})) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    const text = JSON.stringify(merged);
    if (text.length > 16_384) throw new HttpProblem(400, "sheetsSettings: at most 16 KiB in all", "too_long", "sheetsSettings");
    await service.store.commit({ meta: { [settingsKey(c.var.user)]: text } });
    return c.json({ sheetsSettings: merged });
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
    // sub is the caller's email; scope lists what the caller may use with it (chat included for
    // every user of the deployment: the add-in uses the chat API's deployment form with it).
    const token = creds.sign({ sub: c.var.user.email, deploymentId, scope: ["data", "meta", "chat"], iat, exp: iat + expiresIn });
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
    if (id.length === 0 || id.length > LIMITS.nameMax)
      throw new HttpProblem(400, "externalWorkbookId: 1 to 255 characters", "invalid", "externalWorkbookId");
    const q = parseWith(PageQuery, query(c));
    return c.json(page(service.externalPlacements(c.var.user, id), q.first, q.after));
  });

  return app;
}
