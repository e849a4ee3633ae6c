/**
 * The empirical latency-against-load curve: mean queue wait against throughput across a
 * service's windows, made non-decreasing (pool adjacent violators), read by linear
 * interpolation and, past the highest load observed, by the slope of its last segment.
 */

export interface LoadPoint {
  /** Throughput, calls per ms, and the window's mean wait, ms, over `weight` calls. */
  load: number;
  waitMs: number;
  weight: number;
}

/** A fitted curve: sorted distinct loads and their non-decreasing waits. */
export interface WaitCurve {
  load: Float64Array;
  waitMs: Float64Array;
}

/** Least-squares non-decreasing fit of the points' waits in load order. O(n log n). */
export function fitCurve(points: readonly LoadPoint[]): WaitCurve {
  const sorted = [...points].sort((a, b) => a.load - b.load);
  // Blocks of pooled points: mean, weight, load range (the last load stands for the block's end).
  const mean: number[] = [];
  const weight: number[] = [];
  const lo: number[] = [];
  const hi: number[] = [];
  for (const p of sorted) {
    mean.push(p.waitMs);
    weight.push(Math.max(1e-9, p.weight));
    lo.push(p.load);
    hi.push(p.load);
    while (mean.length > 1 && mean[mean.length - 2]! > mean[mean.length - 1]!) {
      const w = weight.pop()!;
      const m = mean.pop()!;
      const h = hi.pop()!;
      lo.pop();
      const j = mean.length - 1;
      mean[j] = (mean[j]! * weight[j]! + m * w) / (weight[j]! + w);
      weight[j] = weight[j]! + w;
      hi[j] = h;
    }
  }
  // Each block as a point at its weighted centre: its first and last load averaged.
  return {
    load: Float64Array.from(lo, (l, j) => (l + hi[j]!) / 2),
    waitMs: Float64Array.from(mean),
  };
}

/** The curve's wait at `load`, ms (never below 0). Extrapolates linearly past both ends. */
export function readCurve(c: WaitCurve, load: number): number {
  const n = c.load.length;
  if (n === 0) return 0;
  if (n === 1) return c.waitMs[0]!;
  let j = 1;
  if (load >= c.load[n - 1]!) j = n - 1;
  else if (load > c.load[0]!) while (c.load[j]! < load) j++;
  const x0 = c.load[j - 1]!;
  const x1 = c.load[j]!;
  const y0 = c.waitMs[j - 1]!;
  const y1 = c.waitMs[j]!;
  const slope = x1 > x0 ? Math.max(0, (y1 - y0) / (x1 - x0)) : 0;
  if (load <= x0) return Math.max(0, y0 - slope * (x0 - load));
  return Math.max(0, y0 + slope * (load - x0));
}

/**
 * Leave-one-out predictions: point i's wait from the curve of the others. O(n^2 log n), n is
 * bounded by the windows (at most a few hundred).
 */
export function leaveOneOut(points: readonly LoadPoint[]): Float64Array {
  return Float64Array.from(points, (p, i) =>
    readCurve(fitCurve(points.filter((_, j) => j !== i)), p.load),
  );
}
