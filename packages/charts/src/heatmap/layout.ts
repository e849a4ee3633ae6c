import { scaleLinear, scaleUtc } from 'd3-scale';
import { utcFormat } from 'd3-time-format';
import { frame, px, type Frame } from '../frame';
import { formatMs } from '../format';
import type { Tick } from '../ticks';

/**
 * Host x time latency matrix: `values[h * windows + w]` is host h's latency statistic in
 * window w (ms), NaN where the host had no calls.
 */
export interface HostMatrix {
  hosts: string[];
  startMs: number;
  windowMs: number;
  windows: number;
  values: Float64Array;
  calls: Uint32Array;
  /** What the values are, for the legend, e.g. "p99". */
  statistic: string;
}

export interface HeatCell {
  host: number;
  window: number;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Colour position in [0, 1]: 0 at the fleet's median, 1 at the worst window. */
  t: number;
}

export interface HeatmapLayout {
  f: Frame;
  rowHeight: number;
  cellWidth: number;
  cells: HeatCell[];
  rows: { host: string; y: number }[];
  timeTicks: Tick[];
  /** Colour scale ends, ms: the fleet median window and the worst window. */
  lo: number;
  hi: number;
  legend: { x: number; y: number; width: number; ticks: Tick[] };
  xTitle: string;
}

function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
}

/**
 * Cells of the host x time heatmap. Colour is logarithmic between the median window (a
 * typical host: t = 0) and the worst window (t = 1), so a host that was 4x slower for three
 * minutes stands out while ordinary jitter stays pale. Hosts are in natural name order.
 */
export function layoutHeatmap(m: HostMatrix, width: number): HeatmapLayout {
  const order = m.hosts.map((h, i) => ({ h, i })).sort((a, b) => naturalCompare(a.h, b.h));
  const rowHeight = m.hosts.length > 60 ? 6 : m.hosts.length > 30 ? 10 : 16;
  const f = frame(width, 24 + order.length * rowHeight + 60, {
    top: 24,
    right: 16,
    bottom: 60,
    left: 120,
  });
  const finite: number[] = [];
  for (const v of m.values) if (Number.isFinite(v) && v > 0) finite.push(v);
  const lo = median(finite);
  const hi = finite.length > 0 ? Math.max(...finite) : NaN;
  const span = Math.log(hi / lo);
  const cellWidth = m.windows > 0 ? f.innerWidth / m.windows : 0;
  const cells: HeatCell[] = [];
  order.forEach(({ i: h }, row) => {
    for (let w = 0; w < m.windows; w++) {
      const v = m.values[h * m.windows + w] ?? NaN;
      if (!Number.isFinite(v)) continue;
      const t = span > 0 ? Math.min(1, Math.max(0, Math.log(v / lo) / span)) : 0;
      cells.push({
        host: h,
        window: w,
        x: f.left + w * cellWidth,
        y: f.top + row * rowHeight,
        w: cellWidth,
        h: rowHeight,
        t,
      });
    }
  });
  const endMs = m.startMs + m.windows * m.windowMs;
  const time = scaleUtc().domain([m.startMs, endMs]).range([f.left, f.right]);
  const fmt = endMs - m.startMs > 2 * 86_400_000 ? utcFormat('%b %d %H:%M') : utcFormat('%H:%M:%S');
  const legendW = Math.min(240, f.innerWidth);
  const legendScale = scaleLinear()
    .domain([Math.log(lo), Math.log(hi)])
    .range([f.left, f.left + legendW]);
  const legendTicks: Tick[] =
    Number.isFinite(lo) && Number.isFinite(hi) && hi > lo
      ? [lo, Math.sqrt(lo * hi), hi].map((v) => ({
          value: v,
          pos: px(legendScale(Math.log(v))),
          label: formatMs(v),
        }))
      : [];
  return {
    f,
    rowHeight,
    cellWidth,
    cells,
    rows: order.map(({ h }, row) => ({ host: h, y: px(f.top + row * rowHeight + rowHeight / 2) })),
    timeTicks: time.ticks(Math.max(2, Math.floor(f.innerWidth / 110))).map((d) => ({
      value: d.getTime(),
      pos: px(time(d)),
      label: fmt(d),
    })),
    lo,
    hi,
    legend: { x: f.left, y: f.bottom + 34, width: legendW, ticks: legendTicks },
    xTitle: `time (UTC), ${formatMs(m.windowMs)} windows`,
  };
}

/** The cell under a point (chart pixels), by arithmetic rather than a search. */
export function cellAt(
  l: HeatmapLayout,
  m: HostMatrix,
  x: number,
  y: number,
): { host: string; startMs: number; endMs: number } | undefined {
  if (x < l.f.left || x >= l.f.right || y < l.f.top || l.cellWidth <= 0) return undefined;
  const row = Math.floor((y - l.f.top) / l.rowHeight);
  const w = Math.floor((x - l.f.left) / l.cellWidth);
  const host = l.rows[row]?.host;
  if (host === undefined || w < 0 || w >= m.windows) return undefined;
  const startMs = m.startMs + w * m.windowMs;
  return { host, startMs, endMs: startMs + m.windowMs };
}
