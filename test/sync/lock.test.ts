// The single-writer lock (src/sync/context.ts): a hung holder or a waiting caller gives up on abort,
// and the order of the line is kept for everyone else.
import { describe, expect, it } from "vitest";
import { Lock } from "../../src/sync/context.ts";

const never = () => new Promise<never>(() => {});

describe("Lock", () => {
  it("a holder whose call never settles releases the lock when its signal aborts", async () => {
    const lock = new Lock();
    const c = new AbortController();
    const hung = lock.run(never, c.signal);
    c.abort(new Error("cancelled"));
    await expect(hung).rejects.toThrow("cancelled");
    await expect(lock.run(async () => "next")).resolves.toBe("next");
  });

  it("a caller that gives up waiting does not let the one behind it jump the holder", async () => {
    const lock = new Lock();
    const order: string[] = [];
    let finishFirst!: () => void;
    const first = lock.run(() => new Promise<void>((r) => (finishFirst = () => (order.push("first"), r()))));
    const c = new AbortController();
    const second = lock.run(async () => void order.push("second"), c.signal);
    const third = lock.run(async () => void order.push("third"));
    c.abort(new Error("gave up"));
    await expect(second).rejects.toThrow("gave up");
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]); // third still waits for first
    finishFirst();
    await first;
    await third;
    expect(order).toEqual(["first", "third"]);
  });

  it("an aborted signal never starts the call", async () => {
    const lock = new Lock();
    let ran = false;
    await expect(lock.run(async () => void (ran = true), AbortSignal.abort())).rejects.toThrow();
    expect(ran).toBe(false);
  });
});
