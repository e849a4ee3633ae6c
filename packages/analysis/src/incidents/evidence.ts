import { fired, type SignalEvidence } from '../episode-cause';
import { CAUSE_TIE_MARGIN, type CauseKind, type RootCause } from './causes';

/**
 * Metric evidence in the root-cause ranking (issue 28: "metric evidence where present"): the
 * metric signals of the incident's callee episodes (issue 27's evidence: a host's CPU, steal,
 * throttling, GC pauses, major faults, network errors inside the episode against just before it)
 * join the candidates they can explain. A signal explains a candidate when it fired (docs/metrics.md
 * "Causes": x1.5 and above its floor), is its host's, and fits where the candidate's time went:
 * a resource signal explains own time (`self`), network errors the time outside a server span
 * (`network`), any signal an uninstrumented call timed in its caller's process (the caller's
 * host). Scores stay shares of the extra critical-path time, measured from spans; the evidence
 * only orders candidates that cannot be told apart: one with fitting evidence moves ahead of a
 * tied one without. Pure; O(C H) for C candidates and H hosts with signals.
 */

/** The metric signals of one callee episode's (service, host). */
export interface HostSignals {
  service: string;
  host: string;
  signals: readonly SignalEvidence[];
}

const RESOURCE = [
  'cpu-saturation',
  'throttling',
  'neighbour-pressure',
  'gc-pause',
  'memory-pressure',
];
const FITS: Record<CauseKind, readonly string[]> = {
  self: RESOURCE,
  network: ['network'],
  uninstrumented: [...RESOURCE, 'network'],
};

/** The strongest fired signal that can explain `c`, if any. */
function explaining(c: RootCause, hosts: readonly HostSignals[]): SignalEvidence | undefined {
  if (c.host === undefined) return undefined;
  const fits = FITS[c.evidence.kind];
  return hosts
    .filter(
      (h) => h.host === c.host && (c.evidence.kind === 'uninstrumented' || h.service === c.service),
    )
    .flatMap((h) => h.signals.filter((s) => fits.includes(s.signal) && fired(s)))
    .sort(
      (a, b) => b.ratio - a.ratio || (a.signal < b.signal ? -1 : a.signal > b.signal ? 1 : 0),
    )[0];
}

const num = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));

/**
 * The candidates with their metric evidence (`evidence.metric`, and a clause in `cause`), and
 * with a candidate that has fitting evidence ranked before one without whose score is within
 * `tieMargin` above it. Candidates without any host signal are returned as they came.
 */
export function withMetricEvidence(
  causes: readonly RootCause[],
  hosts: readonly HostSignals[],
  tieMargin = CAUSE_TIE_MARGIN,
): RootCause[] {
  const out = causes.map((c) => {
    const s = explaining(c, hosts);
    if (!s) return c;
    const ratio = s.ratio >= Number.MAX_VALUE / 2 ? 'new' : `x${s.ratio.toFixed(1)}`;
    return {
      ...c,
      cause: `${c.cause}; metric evidence on ${c.host ?? ''}: ${s.signal} ${num(s.value)} (${num(s.baseline)} before, ${ratio})`,
      evidence: {
        ...c.evidence,
        metric: {
          signal: s.signal,
          ...(s.metric !== undefined ? { metric: s.metric } : {}),
          value: s.value,
          baseline: s.baseline,
          ratio: s.ratio,
        },
      },
    };
  });
  // Insertion order: a supported candidate passes unsupported ones tied above it.
  const passed = new Map<RootCause, string[]>();
  for (let i = 1; i < out.length; i++)
    for (let j = i; j > 0; j--) {
      const a = out[j - 1] as RootCause;
      const b = out[j] as RootCause;
      if (!b.evidence.metric || a.evidence.metric || a.score - b.score >= tieMargin) break;
      passed.set(b, [...(passed.get(b) ?? []), a.service]);
      out[j - 1] = b;
      out[j] = a;
    }
  return out.map((c) => {
    const names = passed.get(c);
    return names ? { ...c, cause: `${c.cause}; ranked before ${names.join(', ')} by it` } : c;
  });
}
