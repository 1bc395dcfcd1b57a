// Helpers of the embed contract tests: a stand-in started with dev hooks, sessions minted as an admin
// (generate-session) or through the dev broker, exchanged for embed tokens, and small request helpers.
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";

export interface Call {
  status: number;
  json: unknown;
}

export class EmbedRig {
  private constructor(readonly p: RunningPlatform) {}

  static async start(): Promise<EmbedRig> {
    return new EmbedRig(await startPlatform({ log: () => {}, devHooks: true }));
  }

  get base(): string {
    return this.p.info.baseUrl;
  }
  get admin(): string {
    return this.p.info.apiKeys.admin;
  }

  async call(method: string, path: string, o: { body?: unknown; raw?: string; auth?: string } = {}): Promise<Call> {
    const headers: Record<string, string> = {};
    if (o.auth !== undefined) headers.authorization = o.auth;
    if (o.body !== undefined || o.raw !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(this.base + path, {
      method,
      headers,
      body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  /** generate-session as an admin (or with `key`). */
  generate(body: unknown, key = this.admin): Promise<Call> {
    return this.call("POST", "/api/v1/embed/generate-session", { body, auth: `Bearer ${key}` });
  }

  exchange(sessionId: string): Promise<Call> {
    return this.call("POST", "/api/v1/embed/session/token", { body: { sessionId } });
  }

  async sessionId(body: Record<string, unknown>): Promise<string> {
    const r = await this.generate(body);
    if (r.status !== 200) throw new Error(`generate-session ${r.status}: ${JSON.stringify(r.json)}`);
    return (r.json as { sessionId: string }).sessionId;
  }

  /** An embed token for an externalId in a tenant (or any generate-session body). */
  async token(externalId: string, tenant?: string, extra: Record<string, unknown> = {}): Promise<string> {
    const sid = await this.sessionId({ externalId, ...(tenant ? { embedTenantName: tenant } : {}), ...extra });
    const r = await this.exchange(sid);
    if (r.status !== 200) throw new Error(`session/token ${r.status}`);
    return (r.json as { token: string }).token;
  }

  advance(ms: number): Promise<Call> {
    return this.call("POST", "/__dev/clock", { body: { advanceMs: ms } });
  }

  close(): Promise<void> {
    return this.p.close();
  }
}

export const embedAuth = (token: string) => `Embed-Token ${token}`;
