// CORS for the stand-in. The task pane runs on its own origin (https://localhost:3000 in
// Excel, http://127.0.0.1:<port> in the harness) and calls the platform's origin, so a real
// tenant must answer CORS for the add-in's origin. The stand-in allows exactly loopback
// origins (http or https, any port) plus any origin passed in `extraOrigins`; every other
// origin gets no Access-Control-Allow-Origin header, so the browser blocks the response.
import { cors } from "hono/cors";

const LOOPBACK = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/;

export function isAllowedOrigin(origin: string, extraOrigins: readonly string[] = []): boolean {
  return LOOPBACK.test(origin) || extraOrigins.includes(origin);
}

export function platformCors(extraOrigins: readonly string[] = []) {
  return cors({
    origin: (origin) => (origin && isAllowedOrigin(origin, extraOrigins) ? origin : null),
    allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type", "X-Svc-Auth-Token"],
    maxAge: 600,
  });
}
