// Issue 36 item 8 on the refresh-all queue: only an item stopped before its write began says "Stopped";
// a write that fails after Stop says what happened.
import { describe, expect, it } from "vitest";
import { runQueue } from "../../src/sync/queue.ts";

describe("issue 36 item 8: Stop and a failing write", () => {
  it("issue 36 item 8: a write that fails after Stop was pressed says its own error, not 'Stopped before it was written'", async () => {
    const stop = new AbortController();
    const out = await runQueue(
      ["a", "b"].map((key) => ({
        key,
        prepare: async () => key,
        apply: async () => {
          stop.abort(); // Stop pressed while this write runs…
          await new Promise((r) => setTimeout(r, 5));
          throw new Error("half of its rows were written, then Excel did not answer"); // …and the write fails
        },
      })),
      { concurrency: 1, signal: stop.signal },
    );
    expect(out.items).toEqual({
      a: { state: "not-refreshed", reason: "half of its rows were written, then Excel did not answer" },
      b: { state: "not-refreshed", reason: "Stopped before it started." },
    });
  });

  it("issue 36 item 8: a record that fails after Stop (every cell written) says its own error", async () => {
    const stop = new AbortController();
    const out = await runQueue(
      [
        {
          key: "a",
          prepare: async () => "a",
          apply: async () => {
            stop.abort();
            throw new Error("The platform did not record the refresh: it answered with a server error.");
          },
        },
      ],
      { concurrency: 1, signal: stop.signal },
    );
    expect(out.items["a"]).toEqual({
      state: "not-refreshed",
      reason: "The platform did not record the refresh: it answered with a server error.",
    });
  });

  it("issue 36 item 8: an item whose query Stop ended (before its write began) still says 'Stopped before it was written'", async () => {
    const stop = new AbortController();
    let applied = false;
    const out = await runQueue(
      [
        {
          key: "a",
          prepare: async (signal: AbortSignal) => {
            stop.abort();
            signal.throwIfAborted();
            return "a";
          },
          apply: async () => {
            applied = true;
          },
        },
      ],
      { concurrency: 1, signal: stop.signal },
    );
    expect(applied).toBe(false);
    expect(out.items["a"]).toEqual({ state: "not-refreshed", reason: "Stopped before it was written." });
  });
});
