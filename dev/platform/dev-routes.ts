// Dev-only routes, mounted under /__dev only when the stand-in starts with --dev-hooks
// (`startPlatform({ devHooks: true })`; npm start and the tests use it). Absent otherwise: a
// production-like start answers 404 for them like for any unknown path.
//   POST /__dev/clock {"advanceMs": n}   moves the stand-in's clock
//   GET  /__dev/chaos                    {enabled, counts}: faults injected so far, by kind
import { Hono } from "hono";
import { z } from "zod";
import type { Clock } from "./clock";
import type { EmbedService } from "./embed";
import type { Chaos } from "./chaos";
import { parseWith } from "./validation";

const AdvanceInput = z.strictObject({
  advanceMs: z
    .number()
    .int()
    .min(0)
    .max(366 * 24 * 3600 * 1000),
});

/** The dev session broker's input: who the viewer is, in which embed tenant. */
const EmbedSessionInput = z.strictObject({
  externalId: z.string().min(1).max(255),
  embedTenantName: z.string().min(1).max(255).optional(),
  email: z.email().max(255).optional(),
  firstName: z.string().max(255).optional(),
});

export function devRoutes(clock: Clock, chaos?: Chaos, embed?: EmbedService): Hono {
  const app = new Hono();
  if (chaos) app.get("/chaos", (c) => c.json({ enabled: chaos.enabled, counts: chaos.counts() }));
  app.post("/clock", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: "The body is not JSON", code: "invalid", field: "(body)" }, 400);
    }
    const r = AdvanceInput.safeParse(body);
    if (!r.success)
      return c.json({ error: "advanceMs must be an integer from 0 to one year in ms", code: "invalid", field: "advanceMs" }, 400);
    clock.advance(r.data.advanceMs);
    return c.json({ now: clock.iso() });
  });
  // The dev stand-in for a customer's session broker: in production the customer's backend calls
  // generate-session with an admin API key that never reaches the browser (README, docs/API.md).
  if (embed) {
    app.post("/embed-session", async (c) => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return c.json({ error: "The body is not JSON", code: "invalid", field: "(body)" }, 400);
      }
      return c.json({ sessionId: await embed.generate(parseWith(EmbedSessionInput, body)) });
    });
  }
  return app;
}
