import { scaleLog } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { logTicks, type Tick } from '../ticks';
import { formatMs, formatRatio } from '../format';
import { legendRow, type LegendItem } from '../Axes';

export interface DumbbellInput {
  key: string;
  label: string;
  /** One random leaf's p50 and p99, and the all-leaves (request) p99, ms. */
  leafP50: number;
  leafP99: number;
  allP99: number;
}

export interface DumbbellRow {
  key: string;
  label: string;
  y: number;
  xLeafP50: number;
  xLeafP99: number;
  xAllP99: number;
  ratio: string;
  title: string;
}

export interface DumbbellLayout {
  f: Frame;
  ticks: Tick[];
  rows: DumbbellRow[];
  ratioX: number;
  legend: LegendItem[];
  xTitle: string;
}

const ROW = 26;

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * Tail amplification per fan-out operation: on one log ms axis, one leaf's finishing time p50
 * and p99 (Table 1's first column: from the fan-out's first call start, so a pool's wait is in
 * it; not the call latency of the edges table) and the request's (all leaves) p99, joined, with
 * the p99 ratio printed. The wider the gap, the more
 * the fan-out turns rare slow calls into common slow requests.
 */
export function layoutDumbbell(rows: readonly DumbbellInput[], width: number): DumbbellLayout {
  const labelW = Math.min(260, Math.max(150, width * 0.3));
  const f = frame(width, 30 + rows.length * ROW + 40, {
    top: 30,
    right: 64,
    bottom: 40,
    left: labelW,
  });
  let lo = Infinity;
  let hi = 0;
  for (const r of rows)
    for (const v of [r.leafP50, r.leafP99, r.allP99])
      if (v > 0) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
  if (!(lo < Infinity)) {
    lo = 1;
    hi = 1000;
  }
  if (hi <= lo) hi = lo * 10;
  const x = scaleLog()
    .domain([lo, hi])
    .range([f.left + 8, f.right - 8])
    .nice()
    .clamp(true);
  const at = (v: number) => px(x(v > 0 ? v : lo));
  return {
    f,
    ticks: logTicks(x, formatMs),
    ratioX: f.right + 8,
    xTitle: 'latency (ms, log scale)',
    legend: legendRow(
      [
        { key: 'p50', label: 'one leaf p50', tone: 'muted', mark: 'dot' },
        { key: 'p99', label: 'one leaf p99', tone: 'base', mark: 'dot' },
        { key: 'all', label: 'request (all leaves) p99', tone: 'accent', mark: 'dot' },
      ],
      f.left,
      12,
    ),
    rows: rows.map((r, i) => ({
      key: r.key,
      label: clip(r.label, Math.floor((labelW - 16) / 6.4)),
      y: px(f.top + i * ROW + ROW / 2),
      xLeafP50: at(r.leafP50),
      xLeafP99: at(r.leafP99),
      xAllP99: at(r.allP99),
      ratio: r.leafP99 > 0 ? formatRatio(r.allP99 / r.leafP99) : '–',
      title: `${r.label}: one leaf finishes p50 ${formatMs(r.leafP50)}, p99 ${formatMs(r.leafP99)}, request p99 ${formatMs(r.allP99)}`,
    })),
  };
}
