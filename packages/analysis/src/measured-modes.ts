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

/** Measured sharing mode per host that has steal or throttling evidence. O(values). */
export function measuredSharingModes(s: EvidenceSeries): Map<string, string> {
  // Per host and window, the worst of its steal and throttling values.
  const perHost = new Map<string, Map<number, number>>();
  for (let i = 0; i < s.host.length; i++) {
    if (!PRESSURE.has(s.signal[i] as string)) continue;
    const host = s.host[i] as string;
    let w = perHost.get(host);
    if (!w) perHost.set(host, (w = new Map<number, number>()));
    for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
      const v = s.value[j] as number;
      if (!Number.isFinite(v)) continue;
      const window = s.window[j] as number;
      w.set(window, Math.max(w.get(window) ?? 0, v));
    }
  }
  const out = new Map<string, string>();
  for (const [host, windows] of perHost) {
    if (windows.size === 0) continue;
    out.set(host, modeOf([...windows.values()]));
  }
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
