import { scaleLinear, scaleLog } from 'd3-scale';
import { utcFormat } from 'd3-time-format';
import { frame, px, type Frame } from '../frame';
import { logTicks, type Tick } from '../ticks';
import { formatMs } from '../format';

/** One trace: when its root started (epoch ms), how long it took (ms), whether it failed. */
export interface ScatterPoint {
  key: string;
  tMs: number;
  durationMs: number;
  error: boolean;
}

export interface ScatterDot {
  key: string;
  cx: number;
  cy: number;
  error: boolean;
  title: string;
}

export interface ScatterLayout {
  f: Frame;
  xTicks: Tick[];
  yTicks: Tick[];
  dots: ScatterDot[];
  xTitle: string;
  yTitle: string;
}

const clockFormat = utcFormat('%H:%M:%S');

/**
 * Root duration over time, one dot per trace: time (UTC) across, duration on a log axis up, so
 * a slow request stands out at any scale. Non-positive durations sit on the axis floor.
 * O(points); the search returns at most 1,000, so SVG stays light.
 */
export function layoutScatter(
  points: readonly ScatterPoint[],
  width: number,
  height: number,
): ScatterLayout {
  const f = frame(width, height, { top: 12, right: 16, bottom: 40, left: 64 });
  let t0 = Infinity;
  let t1 = -Infinity;
  let lo = Infinity;
  let hi = 0;
  for (const p of points) {
    t0 = Math.min(t0, p.tMs);
    t1 = Math.max(t1, p.tMs);
    if (p.durationMs > 0) {
      lo = Math.min(lo, p.durationMs);
      hi = Math.max(hi, p.durationMs);
    }
  }
  if (!(t0 < Infinity)) {
    t0 = 0;
    t1 = 1;
  }
  if (t1 <= t0) t1 = t0 + 1000;
  if (!(lo < Infinity)) {
    lo = 1;
    hi = 1000;
  }
  if (hi <= lo * 2) {
    lo = lo / 2;
    hi = hi * 2;
  }
  const x = scaleLinear().domain([t0, t1]).range([f.left, f.right]);
  const y = scaleLog().domain([lo, hi]).range([f.bottom, f.top]).nice().clamp(true);
  const xTicks = x
    .ticks(Math.max(2, Math.floor(f.innerWidth / 110)))
    .map((v) => ({ value: v, pos: px(x(v)), label: clockFormat(new Date(v)) }));
  return {
    f,
    xTicks,
    yTicks: logTicks(y, formatMs).map((t) => ({ ...t, pos: px(t.pos) })),
    dots: points.map((p) => ({
      key: p.key,
      cx: px(x(p.tMs)),
      cy: px(y(p.durationMs > 0 ? p.durationMs : lo)),
      error: p.error,
      title: `${formatMs(p.durationMs)} at ${clockFormat(new Date(p.tMs))} UTC${p.error ? ', with errors' : ''}`,
    })),
    xTitle: 'root start (UTC)',
    yTitle: 'duration (log)',
  };
}
