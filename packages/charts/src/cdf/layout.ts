import { scaleLinear, scaleLog } from 'd3-scale';
import { line } from 'd3-shape';
import { frame, px, type Frame } from '../frame';
import { logTicks, type Tick } from '../ticks';
import { formatMs } from '../format';
import { legendRow, type LegendItem } from '../Axes';
import { nines, type QuantilePoint } from '../quantile-curve';

export interface CdfSeries {
  key: string;
  label: string;
  /** Colour role; the stylesheet maps tones to the palette. */
  tone: 'base' | 'accent' | 'alt' | 'muted';
  dashed?: boolean;
  points: readonly QuantilePoint[];
  /** 95% intervals at some percentiles (what-if estimates): dots with horizontal whiskers. */
  intervals?: readonly { p: number; ms: number; low: number; high: number }[];
}

export interface CdfLayout {
  f: Frame;
  xTicks: Tick[];
  yTicks: Tick[];
  lines: { key: string; label: string; tone: string; dashed: boolean; d: string }[];
  rules: { key: string; x: number; label: string }[];
  whiskers: { key: string; tone: string; y: number; x: number; x1: number; x2: number }[];
  legend: LegendItem[];
  xTitle: string;
  yTitle: string;
  /** Latency (ms) at a horizontal pixel position, for "open a request this slow". */
  invertX: (x: number) => number;
}

// No p0 label: it would sit on top of p50 on this scale (0.3 nines apart).
const PERCENTILE_TICKS = [
  { p: 0.5, label: 'p50' },
  { p: 0.9, label: 'p90' },
  { p: 0.99, label: 'p99' },
  { p: 0.999, label: 'p99.9' },
  { p: 0.9999, label: 'p99.99' },
];

/**
 * A latency distribution plot: x is latency on a log axis (ms), y the percentile on the
 * "nines" scale, so p90, p99 and p99.9 get equal room and the tail is not squeezed into the top
 * pixel as it is on a linear CDF. Reference rules (a threshold) are vertical lines.
 */
export function layoutCdf(
  series: readonly CdfSeries[],
  size: { width: number; height: number },
  rules: readonly { key: string; ms: number; label: string }[] = [],
): CdfLayout {
  const f = frame(size.width, size.height, { top: 30, right: 16, bottom: 40, left: 52 });
  let lo = Infinity;
  let hi = 0;
  let topNines = 1;
  for (const s of series) {
    for (const pt of s.points) {
      if (pt.ms > 0 && pt.ms < lo) lo = pt.ms;
      if (pt.ms > hi) hi = pt.ms;
      if (pt.p < 1) topNines = Math.max(topNines, nines(pt.p));
    }
    for (const iv of s.intervals ?? []) {
      if (iv.low > 0) lo = Math.min(lo, iv.low);
      hi = Math.max(hi, iv.high);
    }
  }
  for (const r of rules) if (r.ms > 0) hi = Math.max(hi, r.ms);
  if (!(lo < Infinity) || !(hi > 0)) {
    lo = 1;
    hi = 1000;
  }
  if (hi <= lo) hi = lo * 10;
  const x = scaleLog().domain([lo, hi]).range([f.left, f.right]).nice().clamp(true);
  const yTop = Math.ceil(topNines * 2) / 2;
  const y = scaleLinear().domain([0, yTop]).range([f.bottom, f.top]);
  const path = line<QuantilePoint>()
    .x((d) => px(x(Math.max(d.ms, lo))))
    .y((d) => px(y(Math.min(nines(d.p), yTop))));
  return {
    f,
    xTicks: logTicks(x, formatMs),
    yTicks: PERCENTILE_TICKS.filter((t) => nines(t.p) <= yTop + 1e-9).map((t) => ({
      value: t.p,
      pos: y(nines(t.p)),
      label: t.label,
    })),
    lines: series.map((s) => ({
      key: s.key,
      label: s.label,
      tone: s.tone,
      dashed: s.dashed ?? false,
      d: path(s.points as QuantilePoint[]) ?? '',
    })),
    rules: rules.map((r) => ({ key: r.key, x: px(x(r.ms)), label: r.label })),
    whiskers: series.flatMap((s) =>
      (s.intervals ?? []).map((iv) => ({
        key: `${s.key}:${iv.p}`,
        tone: s.tone,
        y: px(y(Math.min(nines(iv.p), yTop))),
        x: px(x(Math.max(iv.ms, lo))),
        x1: px(x(Math.max(iv.low, lo))),
        x2: px(x(Math.max(iv.high, lo))),
      })),
    ),
    legend: legendRow(
      series.map((s) => ({
        key: s.key,
        label: s.label,
        tone: s.tone,
        mark: s.dashed ? ('dash' as const) : ('line' as const),
      })),
      f.left,
      12,
    ),
    xTitle: 'latency (ms, log scale)',
    yTitle: 'percentile',
    invertX: (px0: number) => x.invert(px0),
  };
}
