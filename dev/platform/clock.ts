// The stand-in's clock. Everything that expires (data tokens, and later embed sessions, chat
// threads, ephemeral users, export jobs) reads time from here, so a test can move it forward
// with the dev hook `POST /__dev/clock {"advanceMs": n}` (only when started with --dev-hooks).
export class Clock {
  private offsetMs = 0;
  private readonly listeners = new Set<() => void>();

  /** ms since the epoch, as the stand-in sees it. */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  nowSec(): number {
    return Math.floor(this.now() / 1000);
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Moves the clock forward (never back: expiry must stay monotonic). */
  advance(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError("advanceMs must be a non-negative integer");
    this.offsetMs += ms;
    for (const fn of this.listeners) fn();
  }

  /** Hear about every advance (the scheduler runs tasks that became due at once); returns unsubscribe. */
  onAdvance(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
