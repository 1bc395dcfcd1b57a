// What a round trip to Excel costs, per profile (docs/EXCEL-FIDELITY.md "Round trips").
//
// Every context.sync() crosses from the add-in to Excel and back: across processes on the desktop,
// across the network to Excel's servers on the web. dev/excel charges each sync a fixed latency plus
// the time its request and response take to move at the profile's throughput, so a test, the harness
// and the benchmarks feel what the number of syncs costs. Unit tests run with "none".
//
//   web      100 ms a round trip, 4 MB/s: the "ordinary figure for Excel on the web"; a former
//            Excel add-in platform engineer put web round trips at 0.5–3 s in 2016, so this is the
//            kind end of what users meet;
//   desktop  5 ms a round trip, 200 MB/s: same machine, the cost is mostly serialisation between the
//            add-in's runtime and Excel's process;
//   none     free (unit tests; the benchmarks add syncs × latency to measured time instead).

export const LATENCY_PROFILES = ["web", "desktop", "none"] as const;
export type LatencyProfile = (typeof LATENCY_PROFILES)[number];

export interface LatencyCost {
  /** Fixed cost of one round trip (ms). */
  roundTripMs: number;
  /** Bytes per millisecond the request and response move at. */
  bytesPerMs: number;
}

export const LATENCY: Record<LatencyProfile, LatencyCost> = {
  web: { roundTripMs: 100, bytesPerMs: 4_000 },
  desktop: { roundTripMs: 5, bytesPerMs: 200_000 },
  none: { roundTripMs: 0, bytesPerMs: Infinity },
};

/** Modelled time of one sync that sent `requestBytes` and got `responseBytes` back (ms). */
export function syncCostMs(profile: LatencyProfile, requestBytes: number, responseBytes: number): number {
  const c = LATENCY[profile];
  return c.roundTripMs + (requestBytes + responseBytes) / c.bytesPerMs;
}

export function isLatencyProfile(v: unknown): v is LatencyProfile {
  return typeof v === "string" && (LATENCY_PROFILES as readonly string[]).includes(v);
}
