/**
 * Equal-width time buckets over sorted times (the replay index's fan-out starts): bucket b
 * starts at `t0 + b * widthMs`, and `first[b]` is the first position starting at or after that (b = 0 .. count + 1). A lookup
 * finds its bucket by arithmetic and binary-searches that bucket's positions only: about one
 * fan-out per bucket, so O(1) expected instead of O(log F) (two searches per backup draw were
 * a quarter of a hedge preview's time on 100,000 requests, issue #14).
 */

export interface TimeBuckets {
  readonly t0: number;
  readonly widthMs: number;
  readonly count: number;
  readonly first: Uint32Array;
}

/** The buckets of sorted times: as many as times (at least one), equal width over their span. */
export function timeBuckets(sorted: Float64Array): TimeBuckets {
  const n = sorted.length;
  const t0 = n > 0 ? sorted[0]! : 0;
  const span = n > 0 ? sorted[n - 1]! - t0 : 0;
  const count = Math.max(1, n);
  const widthMs = span > 0 && Number.isFinite(span) ? span / count : 1;
  const first = new Uint32Array(count + 2);
  let p = 0;
  for (let b = 0; b <= count + 1; b++) {
    const edge = t0 + b * widthMs; // the one expression bound compares against
    while (p < n && sorted[p]! < edge) p++;
    first[b] = p;
  }
  return { t0, widthMs, count, first };
}

/**
 * First position whose value is >= t (`strict`: > t), or a.length: the plain binary search's
 * answer, searched inside t's bucket only. Every position before first[b] starts before
 * bucket b's edge (<= t), every one from first[b + 1] at or after the next edge (> t).
 */
export function bound(a: Float64Array, bk: TimeBuckets, t: number, strict: boolean): number {
  if (!(t >= bk.t0)) return 0; // before every time (or NaN, as the plain search answers)
  let b = Math.min(bk.count, Math.floor((t - bk.t0) / bk.widthMs));
  while (b > 0 && bk.t0 + b * bk.widthMs > t) b--; // rounding
  let lo = bk.first[b]!;
  let hi = bk.t0 + (b + 1) * bk.widthMs > t ? bk.first[b + 1]! : a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m]! < t || (strict && a[m] === t)) lo = m + 1;
    else hi = m;
  }
  return lo;
}
