import type { EvidenceSeries } from './evidence-series';
import {
  CONTENDED_LEVEL,
  CONTENDED_WINDOW_SHARE,
  GC_BACKGROUND_LEVEL,
  SHARED_LEVEL,
  gcPerWindow,
  pressurePerWindow,
  type HostWindows,
} from './measured-modes';

/**
 * The evidence behind a sharing mode or a `gc` background measured from metrics (issue #27;
 * docs/metrics.md "Sharing mode measured"): per host judged so, what the rule read, against
 * what it is compared with, and the series it read. Pure; O(values of the hosts asked).
 */

/** A measured mode's or gc's rule in words (levels in seconds per second, or a steal share). */
export const MEASURED_RULES: Readonly<Record<string, string>> = {
  contended: `at least ${String(CONTENDED_WINDOW_SHARE * 100)}% of the windows with CPU steal or throttling at or above ${String(CONTENDED_LEVEL)} s/s`,
  shared: `not contended, and a mean CPU steal or throttling at or above ${String(SHARED_LEVEL)} s/s`,
  dedicated: `CPU steal or throttling reported, below ${String(SHARED_LEVEL)} s/s on average and rarely at ${String(CONTENDED_LEVEL)}`,
  gc: `a window with GC pauses at or above ${String(GC_BACKGROUND_LEVEL)} s/s is a gc window; calls overlapping it are during gc`,
};

/** The level each rule compares with (the signal's unit). */
const LEVELS: Readonly<Record<string, number>> = {
  contended: CONTENDED_LEVEL,
  shared: SHARED_LEVEL,
  dedicated: SHARED_LEVEL,
  gc: GC_BACKGROUND_LEVEL,
};

/** At most this many points per series: longer ones are averaged over runs of windows. */
export const MAX_MEASURED_POINTS = 400;

export interface MeasuredHostEvidence {
  host: string;
  /** The signal and metric that were the host's worst in the most windows. */
  signal: string;
  metric: string;
  /**
   * A mode: the mean over the host's windows of the worse of its steal and throttling (what the
   * rule reads). gc: the mean GC pause seconds per second over its gc windows.
   */
  value: number;
  /**
   * A mode: the mean of the same over the measured hosts judged otherwise (each host weighs the
   * same); gc: the host's mean over its other windows. NaN when there is none.
   */
  baseline: number;
  /** The rule's level (see MEASURED_RULES). */
  level: number;
  /** The host's windows at or above `level`, and its windows with a value. */
  windowsAbove: number;
  windows: number;
  /**
   * The values per point from the host's first window with a value to its last: point i covers
   * windows [fromWindow + i * step, fromWindow + (i + 1) * step), their mean (null: none).
   */
  series: { fromWindow: number; step: number; values: (number | null)[] };
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? NaN : xs.reduce((a, v) => a + v, 0) / xs.length;

/** The per-window values as points of at most MAX_MEASURED_POINTS windows' means (some). */
export function seriesOf(values: ReadonlyMap<number, number>): MeasuredHostEvidence['series'] {
  const windows = [...values.keys()];
  const from = Math.min(...windows);
  const n = Math.max(...windows) - from + 1;
  const step = Math.ceil(n / MAX_MEASURED_POINTS);
  const sums = new Array<number>(Math.ceil(n / step)).fill(0);
  const counts = new Array<number>(sums.length).fill(0);
  for (const [w, v] of values) {
    const i = Math.floor((w - from) / step);
    sums[i] = (sums[i] as number) + v;
    counts[i] = (counts[i] as number) + 1;
  }
  return {
    fromWindow: from,
    step,
    values: sums.map((s, i) => ((counts[i] as number) > 0 ? s / (counts[i] as number) : null)),
  };
}

function entry(
  host: string,
  h: HostWindows,
  s: EvidenceSeries,
  level: number,
  value: number,
  baseline: number,
): MeasuredHostEvidence {
  const values = [...h.values.values()];
  const top = h.worstSeries;
  return {
    host,
    signal: s.signal[top] as string,
    metric: s.metric[top] as string,
    value,
    baseline,
    level,
    windowsAbove: values.filter((v) => v >= level).length,
    windows: values.length,
    series: seriesOf(h.values),
  };
}

/**
 * The evidence of the hosts judged `mode` (contended, shared, dedicated), highest value first;
 * a host without steal or throttling evidence is left out.
 */
export function measuredModeEvidence(
  s: EvidenceSeries,
  mode: string,
  hosts: readonly string[],
  modes: ReadonlyMap<string, string>,
): MeasuredHostEvidence[] {
  const level = LEVELS[mode];
  if (level === undefined) return [];
  const perHost = pressurePerWindow(s);
  const others: number[] = [];
  for (const [host, h] of perHost)
    if (modes.get(host) !== mode) others.push(mean([...h.values.values()]));
  const baseline = mean(others);
  const out: MeasuredHostEvidence[] = [];
  for (const host of hosts) {
    const h = perHost.get(host);
    if (!h) continue;
    out.push(entry(host, h, s, level, mean([...h.values.values()]), baseline));
  }
  return out.sort((a, b) => b.value - a.value || (a.host < b.host ? -1 : 1));
}

/** The evidence of the hosts with gc windows, most gc windows first. */
export function measuredGcEvidence(
  s: EvidenceSeries,
  hosts: readonly string[],
): MeasuredHostEvidence[] {
  const perHost = gcPerWindow(s);
  const out: MeasuredHostEvidence[] = [];
  for (const host of hosts) {
    const h = perHost.get(host);
    if (!h) continue;
    const values = [...h.values.values()];
    const inGc = values.filter((v) => v >= GC_BACKGROUND_LEVEL);
    if (inGc.length === 0) continue;
    const rest = values.filter((v) => !(v >= GC_BACKGROUND_LEVEL));
    out.push(entry(host, h, s, GC_BACKGROUND_LEVEL, mean(inGc), mean(rest)));
  }
  return out.sort((a, b) => b.windowsAbove - a.windowsAbove || (a.host < b.host ? -1 : 1));
}
