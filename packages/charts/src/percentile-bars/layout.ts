import { scaleLinear } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { formatChange, formatMs } from '../format';

export interface Estimate {
  value: number;
  low: number;
  high: number;
}

const PERCENTILES = [
  { key: 'p50', label: 'p50' },
  { key: 'p90', label: 'p90' },
  { key: 'p99', label: 'p99' },
  { key: 'p999', label: 'p99.9' },
] as const;
export type PercentileKey = (typeof PERCENTILES)[number]['key'];

export interface BarRow {
  key: PercentileKey;
  label: string;
  y: number;
  base: { x1: number; label: string };
  what: { x1: number; lowX: number; highX: number; label: string };
  change: string;
  /** What-if is lower than baseline and its whole interval is too. */
  better: boolean;
  worse: boolean;
}

export interface PercentileBarsLayout {
  f: Frame;
  x0: number;
  barHeight: number;
  rows: BarRow[];
  valueX: number;
}

const ROW = 52;

/**
 * Baseline vs what-if for p50, p90, p99 and p99.9: one row per percentile with its own linear
 * ms scale from 0 (a p50 of 5 ms and a p99.9 of 1 s cannot share a bar axis and both be read),
 * the what-if bar carrying its 95% bootstrap interval. Values and the change are printed.
 */
export function layoutPercentileBars(
  baseline: Record<PercentileKey, number>,
  whatIf: Record<PercentileKey, Estimate>,
  width: number,
): PercentileBarsLayout {
  const valueW = 150;
  const f = frame(width, 8 + PERCENTILES.length * ROW, {
    top: 8,
    right: valueW,
    bottom: 0,
    left: 56,
  });
  const bar = 14;
  const rows = PERCENTILES.map((p, i): BarRow => {
    const b = baseline[p.key];
    const w = whatIf[p.key];
    const max = Math.max(b, w.high, w.value, 1e-9) * 1.04;
    const x = scaleLinear().domain([0, max]).range([f.left, f.right]).clamp(true);
    return {
      key: p.key,
      label: p.label,
      y: px(f.top + i * ROW),
      base: { x1: px(x(b)), label: formatMs(b) },
      what: {
        x1: px(x(w.value)),
        lowX: px(x(w.low)),
        highX: px(x(w.high)),
        label: formatMs(w.value),
      },
      change: formatChange(b, w.value),
      better: w.high < b,
      worse: w.low > b,
    };
  });
  return { f, x0: f.left, barHeight: bar, rows, valueX: f.right + 10 };
}
