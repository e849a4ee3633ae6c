import { namesTarget, type FaultLabel, type Service } from './schedule';

/**
 * Scoring incidents against fault labels (docs/incidents.md): pure. For each fault, the incident
 * that overlaps its window the most (ties: the earliest) is its incident; top-k means the
 * target is among that incident's first k root causes (HotROD's in-process MySQL and Redis count
 * for customer and driver). Detection delay: the start of the first incident over the fault that
 * names the target among its first three causes (else of its incident) minus the fault's start.
 * A false incident overlaps no fault window widened by `settleMs` at its end (the recovery).
 */

export interface ScoredIncident {
  id?: string;
  fromMs: number;
  toMs: number;
  rootCauses: readonly { service: string; score: number }[];
}

export interface FaultResult {
  fault: string;
  target: string;
  startMs: number;
  endMs: number;
  detected: boolean;
  /** 1-based rank of the target among the incident's root causes (0: absent or undetected). */
  rank: number;
  top: string[];
  delayMs: number | null;
}

export interface KindSummary {
  fault: string;
  faults: number;
  detected: number;
  top1: number;
  top3: number;
  /** Median detection delay, ms (null when none detected). */
  medianDelayMs: number | null;
  /** Detected faults whose incident's first window ended within two windows of the start. */
  withinTwoWindows: number;
}

/**
 * Windows from a fault's start to the end of its incident's first window (1: the window the
 * fault started in; windows are epoch-aligned, so the incident may start before the fault).
 */
export const delayWindows = (delayMs: number, windowMs: number): number =>
  Math.max(1, Math.ceil((delayMs + windowMs) / windowMs - 1e-9));

const overlap = (a: { fromMs: number; toMs: number }, s: number, e: number): number =>
  Math.max(0, Math.min(a.toMs, e) - Math.max(a.fromMs, s));

export function scoreFault(label: FaultLabel, incidents: readonly ScoredIncident[]): FaultResult {
  let best: ScoredIncident | undefined;
  let most = 0;
  for (const inc of incidents) {
    const o = overlap(inc, label.startMs, label.endMs);
    if (o > most || (o === most && o > 0 && best && inc.fromMs < best.fromMs)) {
      best = inc;
      most = o;
    }
  }
  const top = best?.rootCauses.map((r) => r.service) ?? [];
  const target = label.target as Service;
  const i = top.findIndex((s) => namesTarget(s, target));
  // Opened: the first incident over the fault that names the target among its first three
  // causes (a loss fault's slow windows come and go: several short incidents), else its own.
  const first = incidents
    .filter(
      (inc) =>
        overlap(inc, label.startMs, label.endMs) > 0 &&
        inc.rootCauses.slice(0, 3).some((r) => namesTarget(r.service, target)),
    )
    .reduce<ScoredIncident | undefined>((a, b) => (a && a.fromMs <= b.fromMs ? a : b), best);
  return {
    fault: label.fault,
    target: label.target,
    startMs: label.startMs,
    endMs: label.endMs,
    detected: best !== undefined,
    rank: i + 1,
    top: top.slice(0, 3),
    delayMs: first ? first.fromMs - label.startMs : null,
  };
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Per fault kind (in first-seen order) and `all`; `windowMs` the incidents' window. */
export function summarise(results: readonly FaultResult[], windowMs = 10_000): KindSummary[] {
  const kinds = [...new Set(results.map((r) => r.fault)), 'all'];
  return kinds.map((fault) => {
    const rs = results.filter((r) => fault === 'all' || r.fault === fault);
    const share = (ok: (r: FaultResult) => boolean) =>
      rs.length ? rs.filter(ok).length / rs.length : 0;
    return {
      fault,
      faults: rs.length,
      detected: rs.filter((r) => r.detected).length,
      top1: share((r) => r.rank === 1),
      top3: share((r) => r.rank >= 1 && r.rank <= 3),
      medianDelayMs: median(rs.flatMap((r) => (r.delayMs === null ? [] : [r.delayMs]))),
      withinTwoWindows: rs.filter(
        (r) => r.delayMs !== null && delayWindows(r.delayMs, windowMs) <= 2,
      ).length,
    };
  });
}

/** Incidents that overlap no fault window (each widened by `settleMs` after its end). */
export function falseIncidents<I extends ScoredIncident>(
  labels: readonly FaultLabel[],
  incidents: readonly I[],
  settleMs: number,
): I[] {
  const faults = labels.filter((l) => l.fault !== 'none');
  return incidents.filter((inc) =>
    faults.every((l) => overlap(inc, l.startMs, l.endMs + settleMs) === 0),
  );
}

/** Fault-free time, ms: the `none` stretches less `settleMs` after each fault. */
export function faultFreeMs(labels: readonly FaultLabel[], settleMs: number): number {
  let total = 0;
  labels.forEach((l, i) => {
    if (l.fault !== 'none') return;
    const afterFault = i > 0 && labels[i - 1]?.fault !== 'none';
    total += Math.max(0, l.endMs - l.startMs - (afterFault ? settleMs : 0));
  });
  return total;
}
