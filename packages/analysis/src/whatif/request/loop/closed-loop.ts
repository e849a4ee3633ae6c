/**
 * Closed-loop load (issue #14): a fixed number of clients, each sending its next request when
 * its previous one answered (after a think time), as a load generator with N connections or a
 * pool of N users does. Then the number of requests in flight stays near N, and making requests
 * faster brings the next ones sooner instead of leaving the server idle. An open loop (arrivals
 * independent of completions) has a mean in-flight count well below its peak.
 */

export interface ClosedLoop {
  closed: boolean;
  /** Clients: the most root requests in flight at once. */
  clients: number;
  /** Time-weighted mean of requests in flight, first start to last end. */
  meanInFlight: number;
  /** Per request (input order): its client, and the request that client sent before (-1: first). */
  clientOf: Uint32Array;
  previous: Int32Array;
  /** Per request: start minus the end of the client's previous request, ms (0 for a first). */
  thinkMs: Float64Array;
  thinkP50Ms: number;
  /** Present when `closed` is false. */
  reason?: string;
}

/** A closed loop keeps at least this share of its clients busy on average. */
const MIN_BUSY_SHARE = 0.8;
/** Median think time at most this share of the median request: clients send back to back. */
const MAX_THINK_SHARE = 0.1;
/** Enough rounds to tell a loop from a burst. */
const MIN_ROUNDS = 4;

const median = (a: Float64Array): number => {
  if (a.length === 0) return NaN;
  const s = Float64Array.from(a).sort();
  return s[Math.floor((s.length - 1) / 2)]!;
};

/**
 * Reconstructs the clients from root requests (absolute start, duration ms): requests in start
 * order, each given to the free client (previous request ended at or before its start) that
 * freed last, the client that most plausibly sent it. O(R x N).
 */
export function detectClosedLoop(startMs: Float64Array, durationMs: Float64Array): ClosedLoop {
  const R = startMs.length;
  const order = Uint32Array.from(startMs, (_, i) => i).sort(
    (a, b) => startMs[a]! - startMs[b]! || a - b,
  );
  const clientOf = new Uint32Array(R);
  const previous = new Int32Array(R).fill(-1);
  const thinkMs = new Float64Array(R);
  const freeAt: number[] = [];
  const last: number[] = [];
  for (const q of order) {
    let best = -1;
    for (let c = 0; c < freeAt.length; c++)
      if (freeAt[c]! <= startMs[q]! && (best < 0 || freeAt[c]! > freeAt[best]!)) best = c;
    if (best < 0) {
      best = freeAt.length;
      freeAt.push(-Infinity);
      last.push(-1);
    } else {
      previous[q] = last[best]!;
      thinkMs[q] = startMs[q]! - freeAt[best]!;
    }
    clientOf[q] = best;
    freeAt[best] = startMs[q]! + durationMs[q]!;
    last[best] = q;
  }
  const clients = freeAt.length;
  let lo = Infinity;
  let hi = -Infinity;
  let busy = 0;
  for (let q = 0; q < R; q++) {
    lo = Math.min(lo, startMs[q]!);
    hi = Math.max(hi, startMs[q]! + durationMs[q]!);
    busy += durationMs[q]!;
  }
  const meanInFlight = hi > lo ? busy / (hi - lo) : 0;
  const thinks = thinkMs.filter((_, q) => previous[q]! >= 0);
  const thinkP50Ms = thinks.length > 0 ? median(thinks) : NaN;
  const reason =
    R < MIN_ROUNDS * Math.max(1, clients)
      ? `${String(R)} requests for ${String(clients)} clients (at least ${String(MIN_ROUNDS)} each needed)`
      : meanInFlight < MIN_BUSY_SHARE * clients
        ? `${meanInFlight.toFixed(1)} requests in flight on average against a peak of ${String(clients)} (open loop)`
        : thinkP50Ms > MAX_THINK_SHARE * median(durationMs)
          ? `clients wait ${thinkP50Ms.toFixed(1)} ms between requests (p50), long against the requests`
          : undefined;
  return {
    closed: reason === undefined,
    clients,
    meanInFlight,
    clientOf,
    previous,
    thinkMs,
    thinkP50Ms,
    ...(reason !== undefined ? { reason } : {}),
  };
}
