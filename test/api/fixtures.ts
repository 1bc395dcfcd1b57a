// Loads the recorded real semantic-layer responses (test/fixtures/semantic-layer, recorded from Cube 0.33.65)
// and serves them through a fake fetch, in order.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FetchLike } from "../../src/api";

export const FIXTURE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "semantic-layer");

export interface Recorded {
  request: { method: string; path: string; body?: unknown; authorization: string };
  status: number;
  body: unknown;
}

export function fixture(name: string): Recorded {
  return JSON.parse(readFileSync(path.join(FIXTURE_DIR, name), "utf8")) as Recorded;
}

export interface SeenRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch that answers with the given recordings one after another and records each request. */
export function replay(...answers: Recorded[]): { fetch: FetchLike; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  let i = 0;
  const fetch: FetchLike = async (url, init) => {
    seen.push({
      url,
      method: String(init.method),
      headers: init.headers as Record<string, string>,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    const a = answers[Math.min(i++, answers.length - 1)]!;
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { "Content-Type": "application/json" } });
  };
  return { fetch, seen };
}
