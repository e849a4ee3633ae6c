import { scaleLinear } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { linearTicks, type Tick } from '../ticks';
import { formatMs, NOISE_MS } from '../format';
import { legendRow, type LegendItem } from '../Axes';

/** One (service, operation): its mean critical-path ms in the typical and the slow band. */
export interface DivergingInput {
  key: string;
  label: string;
  typicalMs: number;
  slowMs: number;
  deltaMs: number;
}

export interface DivergingRow {
  key: string;
  label: string;
  y: number;
  /** Typical band: a bar leftwards from the centre. */
  typical: { x: number; w: number };
  /** Slow band: a bar rightwards from the centre. */
  slow: { x: number; w: number };
  delta: string;
  title: string;
}

export interface DivergingLayout {
  f: Frame;
  ticks: Tick[];
  centerX: number;
  deltaX: number;
  rows: DivergingRow[];
  legend: LegendItem[];
  xTitle: string;
}

const ROW = 24;

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

const signed = (ms: number): string =>
  ms >= NOISE_MS ? `+${formatMs(ms)}` : ms <= -NOISE_MS ? `−${formatMs(-ms)}` : formatMs(0);

/**
 * Where the tail's time goes: per (service, operation), typical requests' mean critical-path
 * time to the left of a shared centre and slow requests' to the right, on one symmetric ms
 * scale, with the difference printed. Rows keep the input order (the API sorts by deltaMs).
 */
export function layoutDiverging(rows: readonly DivergingInput[], width: number): DivergingLayout {
  const labelW = Math.min(280, Math.max(150, width * 0.3));
  const deltaW = 90;
  const f = frame(width, 30 + rows.length * ROW + 40, {
    top: 30,
    right: deltaW,
    bottom: 40,
    left: labelW,
  });
  let max = 0;
  for (const r of rows) max = Math.max(max, r.typicalMs, r.slowMs);
  if (!(max > 0)) max = 1;
  const x = scaleLinear().domain([-max, max]).range([f.left, f.right]).nice();
  const cx = x(0);
  const ticks = linearTicks(x, Math.max(2, Math.floor(f.innerWidth / 80)), (v) =>
    formatMs(Math.abs(v)),
  ).map((t) => ({ ...t, pos: px(t.pos) }));
  const nonNeg = (v: number): number => (Number.isFinite(v) && v > 0 ? v : 0);
  return {
    f,
    ticks,
    centerX: px(cx),
    deltaX: f.right + 8,
    xTitle: '← typical (p40–p60)   mean critical-path time per request   slow →',
    legend: legendRow(
      [
        { key: 'typical', label: 'typical requests', tone: 'muted', mark: 'dot' },
        { key: 'slow', label: 'slow requests', tone: 'accent', mark: 'dot' },
      ],
      f.left,
      14,
    ),
    rows: rows.map((r, i) => {
      const t = nonNeg(r.typicalMs);
      const s = nonNeg(r.slowMs);
      return {
        key: r.key,
        label: clip(r.label, Math.floor((labelW - 16) / 6.6)),
        y: px(f.top + i * ROW + ROW / 2),
        typical: { x: px(x(-t)), w: px(cx - x(-t)) },
        slow: { x: px(cx), w: px(x(s) - cx) },
        delta: signed(r.deltaMs),
        title: `${r.label}: slow ${formatMs(r.slowMs)}, typical ${formatMs(r.typicalMs)} (${signed(r.deltaMs)})`,
      };
    }),
  };
}
