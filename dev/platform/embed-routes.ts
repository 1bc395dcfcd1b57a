// Hono routes of the embed API (/api/v1/embed, seeds 02 §4.2): generate-session and revoke
// (admin API key), the session-id exchange (no Authorization: the id is the credential), the
// embeddable dashboard, and our listing of dashboards linked to a report (docs/API.md).
import { Hono, type Context } from "hono";
import { DashboardListQuery, GenerateSessionInput, SessionIdBody } from "../../src/api/embed/schemas";
import { HttpProblem } from "./service";
import type { Credentials } from "./auth";
import { DASHBOARDS, type EmbedService, type SeededDashboard } from "./embed";
import { jsonBody, parseWith } from "./validation";

const summary = ({ publicId, title, deploymentId, reportIds }: SeededDashboard) => ({ publicId, title, deploymentId, reportIds });

export function embedRoutes(embed: EmbedService, creds: Credentials): Hono {
  const app = new Hono();

  /** §4.2 note 2, §5.4: management calls with an admin credential. */
  const requireAdmin = (c: Context) => {
    const user = creds.userForBearer(c.req.header("Authorization"));
    if (!user) throw new HttpProblem(401, "Missing or unknown credential: send Authorization: Bearer <admin API key>");
    if (!user.isAdmin) throw new HttpProblem(403, "Only an admin API key may mint or revoke embed sessions");
  };

  app.post("/generate-session", async (c) => {
    requireAdmin(c);
    const sessionId = await embed.generate(await jsonBody(c, GenerateSessionInput));
    return c.json({ sessionId });
  });

  app.post("/session/token", async (c) => {
    const { sessionId } = await jsonBody(c, SessionIdBody);
    return c.json(embed.exchange(sessionId));
  });

  app.post("/session/revoke", async (c) => {
    requireAdmin(c);
    embed.revoke((await jsonBody(c, SessionIdBody)).sessionId);
    return c.body(null, 204);
  });

  app.get("/dashboard/:publicId", (c) => {
    const caller = embed.caller(c.req.header("Authorization"));
    const { tenants: _t, ...d } = embed.readableDashboard(caller, c.req.param("publicId"));
    return c.json(d);
  });

  app.get("/dashboards", (c) => {
    const caller = embed.caller(c.req.header("Authorization"));
    const q = parseWith(DashboardListQuery, Object.fromEntries(new URL(c.req.url).searchParams));
    const items = DASHBOARDS.filter((d) => embed.canRead(caller, d))
      .filter((d) => q.deploymentId === undefined || d.deploymentId === q.deploymentId)
      .filter((d) => q.reportId === undefined || d.reportIds.includes(q.reportId))
      .map(summary);
    return c.json({ items });
  });

  return app;
}
