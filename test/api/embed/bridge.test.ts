// The host side of the embed protocol over a fake port pair: origin and source checks, malformed
// payloads, actions carrying surface, the ready handshake, renewal once per session, and actions
// never posted to "*".
import { describe, expect, it, vi } from "vitest";
import { createEmbedBridge, EmbedSessionExchangeError, type IncomingMessage } from "../../../src/api/embed/bridge";
import {
  filterParameter,
  isIanaTimeZone,
  makeAction,
  makeEvent,
  parseAction,
  parseEvent,
  parseFilterParameter,
} from "../../../src/api/embed/protocol";
import { TimeoutError } from "../../../src/api/errors";

const TENANT = "http://127.0.0.1:4100";

function rig(mint?: () => Promise<string>) {
  const posted: Array<{ message: unknown; target: string }> = [];
  let listener: ((m: IncomingMessage) => void) | null = null;
  const debug = vi.fn();
  const bridge = createEmbedBridge({
    tenantOrigin: TENANT,
    port: { post: (message, target) => posted.push({ message, target }), subscribe: (l) => ((listener = l), () => (listener = null)) },
    debug,
    ...(mint ? { mintSessionId: mint } : {}),
  });
  const deliver = (data: unknown, origin = TENANT) => listener?.({ origin, data });
  const ready = () => deliver(makeEvent("svc:event:ready", { embedTenant: "acme", deploymentId: 1, mode: "signed", surface: "dashboard" }));
  return { bridge, posted, deliver, ready, debug, subscribed: () => listener !== null };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("protocol schemas", () => {
  it("parses events and rejects one without surface, a wrong direction or a malformed payload", () => {
    expect(parseEvent(makeEvent("svc:event:download", { format: "csv", target: "widget", rowCount: 3 })).ok).toBe(true);
    const { surface: _s, ...noSurface } = makeEvent("svc:event:navigate", { path: "/" }) as Record<string, unknown>;
    expect(parseEvent(noSurface)).toMatchObject({ ok: false, reason: expect.stringContaining("surface") });
    expect(parseEvent({ ...makeEvent("svc:event:navigate", { path: "/" }), direction: "action" }).ok).toBe(false);
    expect(parseEvent(makeEvent("svc:event:download", { format: "docx", target: "widget" } as never)).ok).toBe(false);
    expect(parseEvent({ ...makeEvent("svc:event:navigate", { path: "/" }), source: "other" }).ok).toBe(false);
  });

  it("parses actions and rejects one carrying surface, a bare offset time zone or a bad filter", () => {
    expect(parseAction(makeAction("svc:action:set-timezone", { timezone: "Europe/Paris" })).ok).toBe(true);
    expect(parseAction({ ...makeAction("svc:action:refresh", {}), surface: "dashboard" })).toMatchObject({
      ok: false,
      reason: "an action carrying surface",
    });
    expect(parseAction(makeAction("svc:action:set-timezone", { timezone: "+02:00" })).ok).toBe(false);
    expect(parseAction(makeAction("svc:action:set-timezone", { timezone: "UTC+2" })).ok).toBe(false);
    expect(parseAction(makeAction("svc:action:set-filter", { filterUrlParameter: 'f_orders.status="returned"' })).ok).toBe(false);
    expect(parseAction(makeAction("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["returned"]' })).ok).toBe(true);
  });

  it("round-trips filter parameters and knows IANA names", () => {
    const p = filterParameter({ member: "orders.status", values: ["returned", "shipped"] });
    expect(p).toBe('f_orders.status=["returned","shipped"]');
    expect(parseFilterParameter(p)).toEqual({ member: "orders.status", values: ["returned", "shipped"] });
    expect(parseFilterParameter("f_orders=[1]")).toBeNull();
    expect(isIanaTimeZone("America/New_York")).toBe(true);
    expect(isIanaTimeZone("Mars/Olympus")).toBe(false);
    expect(isIanaTimeZone("-05:00")).toBe(false);
  });
});

describe("embed bridge", () => {
  it("rejects a wildcard or path tenant origin", () => {
    const port = { post: () => {}, subscribe: () => () => {} };
    expect(() => createEmbedBridge({ port, tenantOrigin: "*" })).toThrow(/scheme/);
    expect(() => createEmbedBridge({ port, tenantOrigin: "http://127.0.0.1:1/embed" })).toThrow();
  });

  it("ignores a spoofed origin, a wrong source, a malformed payload and junk, and still acts on the next good event", () => {
    const r = rig();
    const seen: string[] = [];
    r.bridge.onAny((e) => seen.push(e.type));
    r.deliver(makeEvent("svc:event:navigate", { path: "/spoof" }), "http://127.0.0.1:9999");
    r.deliver({ ...makeEvent("svc:event:navigate", { path: "/x" }), source: "other-embed" });
    r.deliver({ ...makeEvent("svc:event:download", { format: "csv", target: "widget" }), payload: { format: 12 } });
    r.deliver(null);
    r.deliver("svc-embed");
    r.deliver({ ...makeAction("svc:action:refresh", {}), surface: "dashboard" });
    expect(seen).toEqual([]);
    expect(r.debug).toHaveBeenCalledTimes(6);
    expect(r.debug.mock.calls[0]![0]).toMatch(/9999/);
    r.deliver(makeEvent("svc:event:navigate", { path: "/ok" }));
    expect(seen).toEqual(["svc:event:navigate"]);
  });

  it("a throwing listener does not stop later messages", () => {
    const r = rig();
    const paths: string[] = [];
    r.bridge.on("svc:event:navigate", () => {
      throw new Error("boom");
    });
    r.bridge.on("svc:event:view", (p) => paths.push(p.path));
    r.deliver(makeEvent("svc:event:navigate", { path: "/a" }));
    r.deliver(makeEvent("svc:event:view", { surface: "dashboard", path: "/b" }));
    expect(paths).toEqual(["/b"]);
  });

  it("queues actions until ready, then posts them to the tenant origin only, never *", async () => {
    const r = rig();
    r.bridge.send("svc:action:set-color-scheme", { scheme: "dark" });
    expect(r.posted).toEqual([]);
    const waiting = r.bridge.whenReady(1000);
    r.ready();
    await expect(waiting).resolves.toMatchObject({ deploymentId: 1 });
    r.bridge.send("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["returned"]' });
    expect(r.posted.map((p) => (p.message as { type: string }).type)).toEqual(["svc:action:set-color-scheme", "svc:action:set-filter"]);
    expect(r.posted.every((p) => p.target === TENANT)).toBe(true);
    for (const p of r.posted) {
      expect(p.message).not.toHaveProperty("surface");
      expect(parseAction(p.message).ok).toBe(true);
    }
  });

  it("whenReady ends with a TimeoutError when the embed never says ready", async () => {
    const r = rig();
    await expect(r.bridge.whenReady(20)).rejects.toBeInstanceOf(TimeoutError);
  });

  it("renews once when both session-expiring and session-expired fire, and again for the next session", async () => {
    let n = 0;
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const mint = vi.fn(async () => {
      await gate;
      return `sid-${++n}`;
    });
    const r = rig(mint);
    r.ready();
    r.deliver(makeEvent("svc:event:session-expiring", { expiresAt: 1, expiresInMs: 1000 }));
    r.deliver(makeEvent("svc:event:session-expired", { expiredAt: 2 }));
    r.deliver(makeEvent("svc:event:session-expiring", { expiresAt: 1, expiresInMs: 0 }));
    release();
    await flush();
    await flush();
    r.deliver(makeEvent("svc:event:session-expired", { expiredAt: 3 }));
    await flush();
    expect(mint).toHaveBeenCalledTimes(1);
    const sets = r.posted.filter((p) => (p.message as { type: string }).type === "svc:action:set-session");
    expect(sets).toHaveLength(1);
    expect(sets[0]).toMatchObject({ target: TENANT, message: { payload: { sessionId: "sid-1" } } });
    // The new session says ready; its own expiry renews again.
    r.ready();
    r.deliver(makeEvent("svc:event:session-expired", { expiredAt: 4 }));
    await flush();
    await flush();
    expect(mint).toHaveBeenCalledTimes(2);
    expect(r.bridge.renewals).toBe(2);
  });

  it("surfaces a rejected session id as EmbedSessionExchangeError and keeps working", async () => {
    const r = rig(async () => "bad");
    const errors: Error[] = [];
    r.bridge.onRenewalError((e) => errors.push(e));
    r.ready();
    r.deliver(makeEvent("svc:event:session-expiring", { expiresAt: 1, expiresInMs: 5 }));
    await flush();
    r.deliver(
      makeEvent("svc:event:error", {
        message: "That session id cannot be redeemed",
        name: "EmbedSessionExchangeError",
        context: "session-renewal",
      }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(EmbedSessionExchangeError);
    r.bridge.send("svc:action:refresh", {});
    expect(r.posted.at(-1)).toMatchObject({ target: TENANT, message: { type: "svc:action:refresh" } });
  });

  it("close() unsubscribes and drops queued actions", () => {
    const r = rig();
    r.bridge.send("svc:action:refresh", {});
    r.bridge.close();
    expect(r.subscribed()).toBe(false);
    r.ready();
    expect(r.posted).toEqual([]);
  });
});
