import type { EvidenceSeries } from './evidence-series';
import { seriesOf, type MeasuredHostEvidence } from './measured-evidence';

/**
 * The evidence beside a straggler cause that is a host (issue #27): a host is a cause over the
 * whole range, not against its own past, so each of its metric series is read against the same
 * series (signal and metric) on the other hosts of the same leaf over the same windows: "its
 * CPU steal 30% (2% on the 9 other hosts)". Pure.
 */

export interface PeerEvidence {
  host: string;
  signal: string;
  metric: string;
  /** The host's mean over its windows with a value (the signal's unit). */
  value: number;
  /** The mean of the other hosts' means (each host weighs the same); NaN when none has it. */
  baseline: number;
  /** value / baseline; Number.MAX_VALUE when the baseline is 0 and the value not; NaN: none. */
  ratio: number;
  /** The other hosts with this series. */
  peers: number;
  /** The host's windows with a value. */
  windows: number;
  series: MeasuredHostEvidence['series'];
}

/** Windows [from, to) that are read. */
export interface WindowRange {
  from: number;
  to: number;
}

const ALL: WindowRange = { from: -Infinity, to: Infinity };

/** Mean of series i's finite values in the windows, and how many. */
function meanOf(s: EvidenceSeries, i: number, r: WindowRange): { mean: number; n: number } {
  let n = 0;
  let sum = 0;
  for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
    const v = s.value[j] as number;
    const w = s.window[j] as number;
    if (!Number.isFinite(v) || w < r.from || w >= r.to) continue;
    n++;
    sum += v;
  }
  return { mean: n > 0 ? sum / n : NaN, n };
}

const ratioOf = (value: number, baseline: number): number =>
  !Number.isFinite(baseline)
    ? NaN
    : baseline > 0
      ? value / baseline
      : value > 0
        ? Number.MAX_VALUE
        : 1;

/**
 * Per (signal, metric) series of `host`, its mean against the other hosts' (every other host
 * in `s` is a peer: read `s` for the leaf's hosts only), over the windows `r` (all by default).
 * Highest ratio first (no baseline last), at most `max`. O(values).
 */
export function hostPeerEvidence(
  s: EvidenceSeries,
  host: string,
  max = 10,
  r: WindowRange = ALL,
): PeerEvidence[] {
  const key = (i: number): string => `${s.signal[i] as string}\u0000${s.metric[i] as string}`;
  const own: number[] = [];
  const peers = new Map<string, { sum: number; n: number }>();
  for (let i = 0; i < s.host.length; i++) {
    if (s.host[i] === host) {
      own.push(i);
      continue;
    }
    const m = meanOf(s, i, r);
    if (m.n === 0) continue;
    const p = peers.get(key(i)) ?? { sum: 0, n: 0 };
    // One series per (host, signal, metric): each peer host weighs the same.
    peers.set(key(i), { sum: p.sum + m.mean, n: p.n + 1 });
  }
  const out: PeerEvidence[] = [];
  for (const i of own) {
    const values = new Map<number, number>();
    for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
      const v = s.value[j] as number;
      const w = s.window[j] as number;
      if (Number.isFinite(v) && w >= r.from && w < r.to) values.set(w, v);
    }
    if (values.size === 0) continue;
    const value = meanOf(s, i, r).mean;
    const p = peers.get(key(i));
    const baseline = p ? p.sum / p.n : NaN;
    out.push({
      host,
      signal: s.signal[i] as string,
      metric: s.metric[i] as string,
      value,
      baseline,
      ratio: ratioOf(value, baseline),
      peers: p?.n ?? 0,
      windows: values.size,
      series: seriesOf(values),
    });
  }
  const rank = (r: number): number => (Number.isNaN(r) ? -1 : r);
  return out
    .sort((a, b) => rank(b.ratio) - rank(a.ratio) || (a.signal < b.signal ? -1 : 1))
    .slice(0, max);
}
