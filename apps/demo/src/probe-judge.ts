import { DEFAULT_SHARING_THRESHOLDS, type SharingMode } from '@tailscope/collectors';

/**
 * The supervisor's ruling on the leaves' sharing probes. Pure.
 *
 * A probe reads how late 1 ms sleeps wake up. On a machine that is busy as a whole (the demo
 * starting, other people's jobs) every process wakes late, and a fixed threshold then calls
 * plain leaves `contended`. So each reading is judged against the probe's own calm baseline
 * (the same probe run by the supervisor before the cluster started): the collectors' thresholds
 * are raised by twice what the machine showed at rest. And when a leaf away from the hogs' core
 * still reads `contended` (or, unpinned, every leaf does), the cause is the whole machine, not
 * one leaf: the ruling is `saturated`, the leaves measure again, and after the last attempt
 * every leaf is `unknown` rather than one of them blamed.
 */

export interface ProbeBaseline {
  longFraction: number;
  noticeableFraction: number;
}

export interface ProbeReading {
  process: string;
  /** Placed on the hogs' core (contended and shared roles, when pinning works). */
  onHogCore: boolean;
  longFraction: number;
  noticeableFraction: number;
}

export type ProbeRuling =
  { kind: 'modes'; modes: Map<string, SharingMode> } | { kind: 'saturated'; offenders: string[] };

/** The collectors' thresholds raised by the calm baseline: contended, shared fractions. */
export function baselineThresholds(baseline: ProbeBaseline | null): {
  contendedFraction: number;
  sharedFraction: number;
} {
  const d = DEFAULT_SHARING_THRESHOLDS;
  return {
    contendedFraction: d.contendedFraction + 2 * (baseline?.longFraction ?? 0),
    sharedFraction: d.sharedFraction + 2 * (baseline?.noticeableFraction ?? 0),
  };
}

export function classifyReading(r: ProbeReading, baseline: ProbeBaseline | null): SharingMode {
  const t = baselineThresholds(baseline);
  if (r.longFraction >= t.contendedFraction) return 'contended';
  if (r.noticeableFraction >= t.sharedFraction) return 'shared';
  return 'dedicated';
}

/**
 * Rules on one reading per leaf. `pinned`: the hogs have a core of their own, so a leaf off it
 * reading `contended` can only mean the machine is saturated.
 */
export function judgeProbes(
  readings: readonly ProbeReading[],
  baseline: ProbeBaseline | null,
  pinned: boolean,
): ProbeRuling {
  const modes = new Map(readings.map((r) => [r.process, classifyReading(r, baseline)]));
  const contended = readings.filter((r) => modes.get(r.process) === 'contended');
  const offenders = pinned
    ? contended.filter((r) => !r.onHogCore).map((r) => r.process)
    : readings.length > 1 && contended.length === readings.length
      ? contended.map((r) => r.process)
      : [];
  return offenders.length > 0 ? { kind: 'saturated', offenders } : { kind: 'modes', modes };
}
