import type { BackgroundWindow } from './background';
import type { LeafCalls } from './types';
import { UNKNOWN_MODE } from './conventions';
import type { EvidenceSeries } from './evidence-series';

/**
 * Sharing mode and background activity measured from metric evidence when spans do not carry
 * them (issue #27; docs/metrics.md "Sharing mode measured"). Pure; O(values + calls).
 *
 * Per host, over the windows its neighbour-pressure (CPU steal) or throttling evidence has:
 * - `contended`: at least CONTENDED_WINDOW_SHARE of the windows had steal or throttling at
 *   or above CONTENDED_LEVEL (seconds per second, or a share for steal gauges);
 * - `shared`: otherwise, a mean at or above SHARED_LEVEL;
 * - `dedicated`: below both (the host reports steal or throttling and has next to none).
 * A host with neither signal gets no measured mode (it stays `unknown`).
 *
 * Background: a window whose GC pause evidence is at or above GC_BACKGROUND_LEVEL seconds
 * per second is a `gc` background window of that host.
 */

export const CONTENDED_LEVEL = 0.1;
export const CONTENDED_WINDOW_SHARE = 0.1;
export const SHARED_LEVEL = 0.02;
export const GC_BACKGROUND_LEVEL = 0.05;
export const MEASURED_GC_KIND = 'gc';

/** One evidence value of a host in a window (the store's EvidenceRow). */
export interface HostSignalRow {
  host: string;
  signal: string;
  window: number;
  value: number;
}

const PRESSURE = new Set(['neighbour-pressure', 'throttling']);
const GC = new Set(['gc-pause']);

/** A host's worst value per window over some of its series. */
export interface HostWindows {
  /** Window -> the largest value of the series read (at least 0). */
  values: Map<number, number>;
  /** The series (index) that gave the largest value in the most windows. */
  worstSeries: number;
}

/** Per host, the worst finite value per window of the series whose signal `keep` accepts. */
function worstPerWindow(s: EvidenceSeries, keep: ReadonlySet<string>): Map<string, HostWindows> {
  const perHost = new Map<string, { values: Map<number, number>; from: Map<number, number> }>();
  for (let i = 0; i < s.host.length; i++) {
    if (!keep.has(s.signal[i] as string)) continue;
    const host = s.host[i] as string;
    let h = perHost.get(host);
    if (!h) perHost.set(host, (h = { values: new Map(), from: new Map() }));
    for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
      const v = s.value[j] as number;
      if (!Number.isFinite(v)) continue;
      const w = s.window[j] as number;
      const cur = h.values.get(w);
      if (cur === undefined || v > cur) h.from.set(w, i);
      h.values.set(w, Math.max(cur ?? 0, v));
    }
  }
  const out = new Map<string, HostWindows>();
  for (const [host, h] of perHost) {
    if (h.values.size === 0) continue;
    const counts = new Map<number, number>();
    for (const i of h.from.values()) counts.set(i, (counts.get(i) ?? 0) + 1);
    let worstSeries = -1;
    let most = 0;
    for (const [i, n] of counts)
      if (n > most || (n === most && i < worstSeries)) {
        worstSeries = i;
        most = n;
      }
    out.set(host, { values: h.values, worstSeries });
  }
  return out;
}

/** Per host, the worse of its steal and throttling per window: what the modes are judged on. */
export const pressurePerWindow = (s: EvidenceSeries): Map<string, HostWindows> =>
  worstPerWindow(s, PRESSURE);

/** Per host, its largest GC pause seconds per second per window. */
export const gcPerWindow = (s: EvidenceSeries): Map<string, HostWindows> => worstPerWindow(s, GC);

/** Measured sharing mode per host that has steal or throttling evidence. O(values). */
export function measuredSharingModes(s: EvidenceSeries): Map<string, string> {
  const out = new Map<string, string>();
  for (const [host, h] of pressurePerWindow(s)) out.set(host, modeOf([...h.values.values()]));
  return out;
}

/** The mode of a host's per-window pressure values (at least one). */
function modeOf(values: readonly number[]): string {
  const high = values.filter((v) => v >= CONTENDED_LEVEL).length;
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  return high >= CONTENDED_WINDOW_SHARE * values.length
    ? 'contended'
    : mean >= SHARED_LEVEL
      ? 'shared'
      : 'dedicated';
}

/**
 * GC background windows of the hosts from gc-pause evidence: [startOf(window),
 * startOf(window + 1)), in whatever unit startOf gives (the store passes ns relative to its
 * base, exact as float64, as backgroundOfCalls expects).
 */
export function gcBackgroundWindows(
  s: EvidenceSeries,
  startOf: (window: number) => number,
): BackgroundWindow[] {
  const out: BackgroundWindow[] = [];
  for (let i = 0; i < s.host.length; i++) {
    if (s.signal[i] !== 'gc-pause') continue;
    const host = s.host[i] as string;
    for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
      if (!((s.value[j] as number) >= GC_BACKGROUND_LEVEL)) continue;
      const w = s.window[j] as number;
      out.push({ host, start: startOf(w), end: startOf(w + 1), kind: MEASURED_GC_KIND });
    }
  }
  return out;
}

/**
 * The calls with every `unknown` mode replaced by its host's measured mode (the spans' own
 * `host.sharing_mode` always wins). Returns `calls` itself when nothing changes.
 */
export function withMeasuredModes(
  calls: LeafCalls,
  measured: ReadonlyMap<string, string>,
): LeafCalls {
  if (measured.size === 0) return calls;
  const unknown = calls.modes.indexOf(UNKNOWN_MODE);
  if (unknown < 0) return calls;
  const modes = [...calls.modes];
  const ids = new Map(modes.map((m, i) => [m, i]));
  // Per host index, the mode index its unknown calls take (-1: stays unknown).
  const byHost = calls.hosts.map((h) => {
    const m = measured.get(h);
    if (m === undefined) return -1;
    let id = ids.get(m);
    if (id === undefined) {
      id = modes.push(m) - 1;
      ids.set(m, id);
    }
    return id;
  });
  if (byHost.every((id) => id < 0)) return calls;
  const mode = calls.mode.slice();
  for (let i = 0; i < mode.length; i++) {
    if (mode[i] !== unknown) continue;
    const id = byHost[calls.host[i] as number] ?? -1;
    if (id >= 0) mode[i] = id;
  }
  return { ...calls, mode, modes };
}

/**
 * The hosts whose `unknown` calls take a measured mode (what withMeasuredModes changes), with
 * that mode: the hosts judged so. O(calls).
 */
export function judgedHosts(
  calls: LeafCalls,
  measured: ReadonlyMap<string, string>,
): Map<string, string> {
  const out = new Map<string, string>();
  const unknown = calls.modes.indexOf(UNKNOWN_MODE);
  if (measured.size === 0 || unknown < 0) return out;
  const seen = new Uint8Array(calls.hosts.length);
  for (let i = 0; i < calls.mode.length; i++)
    if (calls.mode[i] === unknown) seen[calls.host[i] as number] = 1;
  calls.hosts.forEach((h, i) => {
    const m = measured.get(h);
    if (seen[i] === 1 && m !== undefined) out.set(h, m);
  });
  return out;
}
