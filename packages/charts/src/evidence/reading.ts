import { scaleLinear } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { linearTicks, type Tick } from '../ticks';
import { hhmm, seriesPath } from './layout';

/**
 * A host's reading behind a cause measured from metrics (issue #27: a sharing mode judged from
 * CPU steal and throttling, gc from GC pauses): the series the rule read as a line, the rule's
 * level dashed, the host's value and the baseline it is compared with as two levels, and the
 * points at or above the rule's level marked. Pure: data and size in, geometry out.
 */

export interface ReadingInput {
  /** Start of the first point, epoch ms; windowMs long points follow. */
  fromMs: number;
  windowMs: number;
  /** One value per point; null: no value. */
  values: readonly (number | null)[];
  /** The host's value as the rule reads it, the baseline (NaN: none), the rule's level (NaN: no rule). */
  value: number;
  baseline: number;
  level: number;
  format: (v: number) => string;
  /** What the series is (e.g. "system.cpu.time on h1"), and what the baseline is. */
  label: string;
  baselineLabel: string;
}

export interface ReadingLayout {
  f: Frame;
  path: string;
  points: { x: number; y: number; above: boolean }[];
  /** Absent when there is no rule's level. */
  levelY?: number;
  valueY: number;
  /** Absent when there is no baseline. */
  baselineY?: number;
  yTicks: Tick[];
  xLabels: { x: number; label: string; anchor: 'start' | 'end' }[];
  title: string;
}

export function layoutReading(s: ReadingInput, width: number, height = 96): ReadingLayout {
  const f = frame(width, height, { top: 8, right: 8, bottom: 20, left: 44 });
  const toMs = s.fromMs + s.values.length * s.windowMs;
  const x = scaleLinear()
    .domain([s.fromMs, Math.max(toMs, s.fromMs + 1)])
    .range([f.left, f.right]);
  const hasBaseline = Number.isFinite(s.baseline);
  const hasLevel = Number.isFinite(s.level);
  let hi = Math.max(s.value, hasLevel ? s.level : 0, hasBaseline ? s.baseline : 0, 0);
  for (const v of s.values) if (v !== null && Number.isFinite(v)) hi = Math.max(hi, v);
  const y = scaleLinear()
    .domain([0, hi > 0 ? hi : 1])
    .range([f.bottom, f.top])
    .nice();
  const { path, points } = seriesPath(s, x, y);
  const baseline = hasBaseline ? `, ${s.format(s.baseline)} ${s.baselineLabel}` : '';
  return {
    f,
    path,
    points: points.map((p) => ({ x: p.x, y: p.y, above: hasLevel && p.v >= s.level })),
    ...(hasLevel ? { levelY: px(y(s.level)) } : {}),
    valueY: px(y(s.value)),
    ...(hasBaseline ? { baselineY: px(y(s.baseline)) } : {}),
    yTicks: linearTicks(y, 3, s.format),
    xLabels: [
      { x: f.left, label: hhmm(s.fromMs), anchor: 'start' },
      { x: f.right, label: hhmm(toMs), anchor: 'end' },
    ],
    title: `${s.label}: ${s.format(s.value)}${baseline}${hasLevel ? `; the rule's level ${s.format(s.level)}` : ''}`,
  };
}
