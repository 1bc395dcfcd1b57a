// Issue 36 item 18: the workspace's fetch ends with the session. A request in flight is aborted and
// none leaves afterwards, so a signed-out key is never sent (the pane's sign-out closes the workspace
// only after what was in flight has ended; this is what guarantees it for anything still running).
import { describe, expect, it } from "vitest";
import { sessionFetch } from "../../src/taskpane/app/session-fetch";

function recorder() {
  const sent: string[] = [];
  const pending: { url: string; signal: AbortSignal | null | undefined }[] = [];
  const inner = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    sent.push(url);
    pending.push({ url, signal: init?.signal });
    return new Promise<Response>((resolve, reject) => {
      if (url.endsWith("/fast")) return resolve(new Response("ok"));
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true });
    });
  }) as typeof fetch;
  return { inner, sent, pending };
}

describe("the session's fetch (issue 36 item 18)", () => {
  it("issue 36 item 18: after the session ends, a request in flight is aborted and no request is sent", async () => {
    const r = recorder();
    const s = sessionFetch(r.inner);
    expect(await (await s.fetch("https://p.example/fast", { headers: { authorization: "Bearer analyst" } })).text()).toBe("ok");
    const hanging = s.fetch("https://p.example/slow", { headers: { authorization: "Bearer analyst" } });
    s.end();
    await expect(hanging).rejects.toMatchObject({ name: "AbortError" });
    await expect(s.fetch("https://p.example/later", { headers: { authorization: "Bearer analyst" } })).rejects.toMatchObject({
      name: "AbortError",
      message: "Signed out: the request was not sent.",
    });
    expect(r.sent).toEqual(["https://p.example/fast", "https://p.example/slow"]);
    expect(s.ended).toBe(true);
  });

  it("issue 36 item 18: the caller's own signal still aborts its request while the session lasts", async () => {
    const r = recorder();
    const s = sessionFetch(r.inner);
    const c = new AbortController();
    const p = s.fetch("https://p.example/slow", { signal: c.signal });
    c.abort(new DOMException("mine", "AbortError"));
    await expect(p).rejects.toMatchObject({ message: "mine" });
    expect(s.ended).toBe(false);
    expect(await (await s.fetch("https://p.example/fast")).text()).toBe("ok");
  });
});
