import { scaleLinear } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { linearTicks, type Tick } from '../ticks';

/**
 * One evidence signal's series over an episode's baseline and the episode (issue #27): the
 * value per window as a line (broken where a window has no point), the episode's span shaded,
 * and the baseline mean and the episode mean as two levels. Pure: data and size in, geometry out.
 */

export interface EvidenceSeriesInput {
  /** Start of the first window, epoch ms; windowMs long windows follow. */
  fromMs: number;
  windowMs: number;
  /** One value per window; null: no point in that window. */
  values: readonly (number | null)[];
  episodeFromMs: number;
  episodeToMs: number;
  /** The signal's mean inside the episode and before it. */
  value: number;
  baseline: number;
  /** Formats a value with its unit (e.g. a share as a percentage). */
  format: (v: number) => string;
  label: string;
}

export interface EvidenceLayout {
  f: Frame;
  /** SVG path of the series (M/L segments, a new M after a gap). */
  path: string;
  points: { x: number; y: number; v: number }[];
  band: { x: number; width: number };
  baselineY: number;
  valueY: number;
  yTicks: Tick[];
  xLabels: { x: number; label: string; anchor: 'start' | 'end' }[];
  title: string;
}

export const hhmm = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** A series of windows as points at each window's middle and a path broken at gaps. */
export function seriesPath(
  s: { fromMs: number; windowMs: number; values: readonly (number | null)[] },
  x: (ms: number) => number,
  y: (v: number) => number,
): { path: string; points: { x: number; y: number; v: number }[] } {
  const points: { x: number; y: number; v: number }[] = [];
  let path = '';
  let open = false;
  s.values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      open = false;
      return;
    }
    const p = { x: px(x(s.fromMs + (i + 0.5) * s.windowMs)), y: px(y(v)), v };
    points.push(p);
    path += `${open ? 'L' : 'M'}${String(p.x)},${String(p.y)}`;
    open = true;
  });
  return { path, points };
}

export function layoutEvidence(s: EvidenceSeriesInput, width: number, height = 96): EvidenceLayout {
  const f = frame(width, height, { top: 8, right: 8, bottom: 20, left: 44 });
  const toMs = s.fromMs + s.values.length * s.windowMs;
  const x = scaleLinear()
    .domain([s.fromMs, Math.max(toMs, s.fromMs + 1)])
    .range([f.left, f.right]);
  let hi = Math.max(s.value, s.baseline, 0);
  for (const v of s.values) if (v !== null && Number.isFinite(v)) hi = Math.max(hi, v);
  const y = scaleLinear()
    .domain([0, hi > 0 ? hi : 1])
    .range([f.bottom, f.top])
    .nice();
  const { path, points } = seriesPath(s, x, y);
  const x0 = px(x(Math.max(s.episodeFromMs, s.fromMs)));
  const x1 = px(x(Math.min(s.episodeToMs, toMs)));
  return {
    f,
    path,
    points,
    band: { x: x0, width: px(Math.max(0, x1 - x0)) },
    baselineY: px(y(s.baseline)),
    valueY: px(y(s.value)),
    yTicks: linearTicks(y, 3, s.format),
    xLabels: [
      { x: f.left, label: hhmm(s.fromMs), anchor: 'start' },
      { x: f.right, label: hhmm(toMs), anchor: 'end' },
    ],
    title: `${s.label}: ${s.format(s.value)} in the episode, ${s.format(s.baseline)} before`,
  };
}
