import { scaleLog } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { logTicks, type Tick } from '../ticks';
import { formatPct, formatPValue, formatRatio } from '../format';

/** What the forest plot reads from one attribution row (`GET /api/v1/stragglers` `rows[]`). */
export interface ForestInput {
  dimension: string;
  value: string;
  riskRatio: number;
  riskRatioLow: number;
  riskRatioHigh: number;
  qValue: number;
  stragglerShare: number;
  cause: boolean;
}

export interface ForestRow {
  key: string;
  dimension: string;
  value: string;
  label: string;
  y: number;
  /** Point estimate and interval ends, px; `open*` when the interval runs off the axis. */
  x: number;
  x1: number;
  x2: number;
  openLow: boolean;
  openHigh: boolean;
  cause: boolean;
  estimate: string;
  detail: string;
  /** Share of all tail stragglers that had this value. */
  share: string;
  source: ForestInput;
}

export interface ForestLayout {
  f: Frame;
  xTicks: Tick[];
  oneX: number;
  rows: ForestRow[];
  rowHeight: number;
  labelX: number;
  detailX: number;
  xTitle: string;
}

const ROW = 24;
const MIN_RR = 0.05;
const MAX_RR = 1e4;

function dimensionName(d: string): string {
  if (d === 'sharing_mode') return 'sharing mode';
  if (d.startsWith('attr:')) return d.slice(5);
  return d;
}

/** A ratio without its × sign, for the interval ends. */
function bare(v: number): string {
  return formatRatio(v).replace('×', '');
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * A forest plot of straggler risk ratios: one row per (dimension, value), in the order given,
 * a log x axis (×1 = no effect) with each ratio's 95% interval. Causes (q < 0.05, ratio > 1)
 * are flagged for the view to mark. Height follows the row count.
 */
export function layoutForest(rows: readonly ForestInput[], width: number): ForestLayout {
  const labelW = Math.min(220, Math.max(140, width * 0.24));
  const detailW = Math.min(230, Math.max(150, width * 0.26));
  const f = frame(width, 34 + rows.length * ROW + 40, {
    top: 34,
    right: detailW,
    bottom: 40,
    left: labelW,
  });
  let lo = 0.5;
  let hi = 2;
  for (const r of rows) {
    for (const v of [r.riskRatio, r.riskRatioLow, r.riskRatioHigh]) {
      if (v > 0 && Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
  }
  const x = scaleLog()
    .domain([Math.max(MIN_RR, lo), Math.min(MAX_RR, hi)])
    .range([f.left + 6, f.right - 10])
    .nice();
  const [d0, d1] = x.domain() as [number, number];
  const at = (v: number) => px(x(Math.min(d1, Math.max(d0, v))));
  return {
    f,
    xTicks: logTicks(x, formatRatio),
    oneX: at(1),
    rowHeight: ROW,
    labelX: f.left - 12,
    detailX: f.right + 10,
    xTitle: 'risk ratio: P(straggler | value) / P(straggler | other values), log scale',
    rows: rows.map((r, i) => ({
      key: `${r.dimension}=${r.value}`,
      dimension: r.dimension,
      value: r.value,
      label: clip(`${dimensionName(r.dimension)}: ${r.value}`, Math.floor((labelW - 56) / 6.6)),
      y: px(f.top + i * ROW + ROW / 2),
      x: at(r.riskRatio > 0 ? r.riskRatio : d0),
      x1: at(r.riskRatioLow > 0 ? r.riskRatioLow : d0),
      x2: at(r.riskRatioHigh),
      openLow: !(r.riskRatioLow >= d0),
      openHigh: !(r.riskRatioHigh <= d1),
      cause: r.cause,
      estimate: `${formatRatio(r.riskRatio)} [${bare(r.riskRatioLow)}–${bare(r.riskRatioHigh)}]`,
      detail: `q ${formatPValue(r.qValue)}`,
      share: formatPct(r.stragglerShare),
      source: r,
    })),
  };
}
