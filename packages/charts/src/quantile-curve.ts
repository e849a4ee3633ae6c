/** One point of a latency distribution: the value `ms` below which a fraction `p` falls. */
export interface QuantilePoint {
  p: number;
  ms: number;
}

/** Percentile-scale position of p: 0 at p = 0, 1 at p90, 2 at p99, 3 at p99.9 ("nines"). */
export function nines(p: number): number {
  return p >= 1 ? Infinity : -Math.log10(1 - p);
}

/**
 * A distribution as at most ~`points` quantile points, evenly spaced on the nines scale from
 * the minimum up to the last quantile the sample supports (p = 1 - 1/n), plus the maximum.
 * `sorted` must be ascending. O(points); an empty sample gives no points.
 */
export function quantileCurve(
  sorted: ArrayLike<number>,
  points = 160,
  maxNines = 4,
): QuantilePoint[] {
  const n = sorted.length;
  if (n === 0) return [];
  const top = Math.min(maxNines, Math.log10(n));
  const out: QuantilePoint[] = [];
  let lastIndex = -1;
  for (let i = 0; i <= points; i++) {
    const y = (top * i) / points;
    const p = 1 - 10 ** -y;
    const idx = Math.min(n - 1, Math.floor(p * n));
    if (idx === lastIndex) continue;
    lastIndex = idx;
    out.push({ p, ms: sorted[idx] ?? 0 });
  }
  return out;
}
