/**
 * Cumulative sums (OTLP `Sum` points with AggregationTemporality CUMULATIVE, stored as received
 * in otel_metrics_sum) -> per-second rates between consecutive points of one series.
 *
 * A reset is a point whose start time moved (the process restarted: a new StartTimeUnix) or,
 * for a monotonic sum, whose value fell: its increase is then its own value since its start
 * (counted from 0, as Prometheus' rate() does), and when its start lies after the previous
 * point, over the time since its start. Points must be in time order (one series, as the
 * reader returns them). O(n), no allocation beyond the output.
 */
export interface CumulativeSeries {
  /** Point times, epoch ns as doubles (microsecond precision is plenty for rates). */
  timeNs: Float64Array;
  /** Start times of each point's accumulation, epoch ns (0 when the sender gave none). */
  startNs: Float64Array;
  values: Float64Array;
  /** Monotonic counters: a drop in value is a reset too. */
  monotonic: boolean;
}

export interface Rates {
  /** The end of each interval (the later point's time), epoch ns. */
  timeNs: Float64Array;
  /** Increase per second over the interval. */
  perSecond: Float64Array;
  /** Whether the interval crossed a reset. */
  reset: Uint8Array;
}

/**
 * One rate per pair of consecutive points (n - 1 of them; none for fewer than 2 points).
 * An interval of zero or negative length (duplicate or unordered times) gives NaN, never
 * Infinity.
 */
export function cumulativeRates(s: CumulativeSeries): Rates {
  const n = Math.max(0, s.values.length - 1);
  const out: Rates = {
    timeNs: new Float64Array(n),
    perSecond: new Float64Array(n),
    reset: new Uint8Array(n),
  };
  for (let i = 0; i < n; i++) {
    const t0 = s.timeNs[i] ?? 0;
    const t1 = s.timeNs[i + 1] ?? 0;
    const v0 = s.values[i] ?? 0;
    const v1 = s.values[i + 1] ?? 0;
    const start1 = s.startNs[i + 1] ?? 0;
    const restarted = start1 !== 0 && start1 !== (s.startNs[i] ?? 0);
    const dropped = s.monotonic && v1 < v0;
    let delta = v1 - v0;
    let from = t0;
    if (restarted || dropped) {
      delta = v1;
      if (restarted && start1 > t0) from = start1;
    }
    out.timeNs[i] = t1;
    out.reset[i] = restarted || dropped ? 1 : 0;
    out.perSecond[i] = t1 > from ? delta / ((t1 - from) / 1e9) : NaN;
  }
  return out;
}
