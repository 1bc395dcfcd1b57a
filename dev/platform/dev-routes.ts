// Dev-only routes, mounted under /__dev only when the stand-in starts with --dev-hooks
// (`startPlatform({ devHooks: true })`; npm start and the tests use it). Absent otherwise: a
// production-like start answers 404 for them like for any unknown path.
//   POST /__dev/clock {"advanceMs": n}   moves the stand-in's clock
//   GET  /__dev/chaos                    {enabled, counts}: faults injected so far, by kind
import { Hono } from "hono";
import { z } from "zod";
import type { Clock } from "./clock";
import type { Chaos } from "./chaos";

const AdvanceInput = z.strictObject({ advanceMs: z.number().int().min(0).max(366 * 24 * 3600 * 1000) });

export function devRoutes(clock: Clock, chaos?: Chaos): Hono {
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
    if (!r.success) return c.json({ error: "advanceMs must be an integer from 0 to one year in ms", code: "invalid", field: "advanceMs" }, 400);
    clock.advance(r.data.advanceMs);
    return c.json({ now: clock.iso() });
  });
  return app;
}
