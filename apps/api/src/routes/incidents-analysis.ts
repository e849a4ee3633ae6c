import type { Incident, RootCause as ApiRootCause } from '@tailscope/contracts';
import {
  criticalPathDifference,
  murmurHash3,
  rankRootCauses,
  withMetricEvidence,
  type EpisodeGroup,
  type HostSignals,
  type IncidentEpisode,
} from '@tailscope/analysis';
import type { Store } from '../store';
import type { RootRow } from '../store/traces/filters';
import { selectCauseSpans, selectIncidentRequests } from '../store/incidents';
import { sampleRoots, selectRootQuantiles } from '../store/traces/roots';

/**
 * One incident's requests and root causes (docs/analysis.md "Incidents"): the busiest request
 * root operation among the requests it touched; its slow requests (in the incident's window,
 * slower than that operation's p90 before it) against its typical ones before it (p40-p60), at
 * most INCIDENT_SAMPLE of each, their spans at most MAX_CAUSE_SPANS: four bounded queries.
 */

/** Requests per band whose critical paths are compared. */
export const INCIDENT_SAMPLE = 100;
/** Spans read for both bands together at most. */
const MAX_CAUSE_SPANS = 200_000;
/** The baseline reaches this many times the incident's length before (or after) it. */
const BASELINE_SPANS = 3;
/** Fewest baseline requests that make a typical band. */
const MIN_BASELINE = 10;
/** Exemplar requests shown per band. */
const EXEMPLARS = 3;

const ns = (v: number): bigint => BigInt(Math.round(v));
/** Epoch ms (whole: episode windows start on whole ms) to ns, exactly: no 1e6 float product. */
export const msToNs = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;

/** The stable id of an incident: its start and callee services. */
export function incidentId(g: EpisodeGroup<IncidentEpisode>): string {
  const h = murmurHash3(JSON.stringify([g.fromMs, g.services]), 28);
  return `inc-${Math.round(g.fromMs)}-${h.toString(16).padStart(8, '0')}`;
}

/** The metric signals of the incident's callee episodes, per (service, host). */
function hostSignalsOf(g: EpisodeGroup<IncidentEpisode>): HostSignals[] {
  return g.episodes.flatMap((e) =>
    (e.kind ?? 'callee') === 'callee' && e.evidence && e.evidence.length > 0
      ? [{ service: e.service, host: e.host, signals: e.evidence }]
      : [],
  );
}

/** affected: per (service, operation) its worst episode's ratio, worst first. */
function affectedOf(g: EpisodeGroup<IncidentEpisode>): Incident['affected'] {
  const best = new Map<string, Incident['affected'][number]>();
  for (const e of g.episodes) {
    const operation = e.operation ?? '*';
    const key = `${e.service}\u0000${operation}`;
    const seen = best.get(key);
    if (!seen || e.ratio > seen.ratio)
      best.set(key, {
        service: e.service,
        operation,
        ratio: e.ratio,
        ...(e.kind === 'root' ? { kind: 'root' as const } : {}),
      });
  }
  return [...best.values()].sort((a, b) => b.ratio - a.ratio);
}

/**
 * Exemplars of a band: the slow band's slowest, its median and the one between; the typical
 * band's closest to its median and its neighbours. Deterministic (ties by trace id).
 */
function exemplarsOf(roots: readonly RootRow[], band: 'slow' | 'typical') {
  const all = roots
    .map((r) => ({ traceId: r.traceId, durationMs: Number(r.durationNs) / 1e6 }))
    .sort((a, b) => b.durationMs - a.durationMs || (a.traceId < b.traceId ? -1 : 1));
  if (all.length <= EXEMPLARS) return all;
  const mid = all.length >> 1;
  const picks =
    band === 'slow' ? [0, mid >> 1, mid] : [mid - 1, mid, mid + 1].filter((i) => i < all.length);
  return [...new Set(picks)].map((i) => all[i]).filter((e) => e !== undefined);
}

/**
 * The incident with its requests and ranked root causes; its typical requests are read within
 * `range` (the stored range, cut at the neighbouring incidents).
 */
export async function analyseIncident(
  store: Store,
  g: EpisodeGroup<IncidentEpisode>,
  range: { fromNs: bigint; toNs: bigint },
  analyse: boolean,
  entries: readonly { service: string; operation: string }[] = [],
): Promise<Incident> {
  const fromNs = msToNs(g.fromMs);
  const toNs = msToNs(g.toMs);
  const head = { id: incidentId(g), fromMs: g.fromMs, toMs: g.toMs, affected: affectedOf(g) };
  // Touched: calls into the callees (their spans); an uninstrumented callee (no spans of its
  // own) is touched through its callers' spans.
  const parents = g.episodes.flatMap((e) => (e.parentService ? [e.parentService] : []));
  let touched = await selectIncidentRequests(store, {
    fromNs,
    toNs,
    services: g.services,
    entries,
  });
  if (touched.requests === 0 && parents.length > 0)
    touched = await selectIncidentRequests(store, { fromNs, toNs, services: parents, entries });
  const done = (rootCauses: ApiRootCause[]): Incident => ({
    ...head,
    requests: touched.requests,
    rootCauses,
  });
  if (!analyse || !touched.root) return done([]);
  // Typical requests just before the incident (at most BASELINE_SPANS times its length: recent
  // history, and a narrower read); with too few (it starts the range), just after it.
  const reach = BigInt(BASELINE_SPANS) * (toNs - fromNs);
  const lo = fromNs - reach > range.fromNs ? fromNs - reach : range.fromNs;
  const hi = toNs + reach < range.toNs ? toNs + reach : range.toNs;
  let baseline = { fromNs: lo, toNs: fromNs };
  let qs = await selectRootQuantiles(store, { ...baseline, ...touched.root }, 0.9);
  if (qs.requests < MIN_BASELINE && toNs < range.toNs) {
    baseline = { fromNs: toNs, toNs: hi };
    qs = await selectRootQuantiles(store, { ...baseline, ...touched.root }, 0.9);
  }
  if (qs.requests < MIN_BASELINE) return done([]);
  const [slow, typical] = await Promise.all([
    sampleRoots(
      store,
      { fromNs, toNs, ...touched.root, minDurationNs: ns(qs.slowNs) },
      INCIDENT_SAMPLE,
    ),
    sampleRoots(
      store,
      { ...baseline, ...touched.root, minDurationNs: ns(qs.p40Ns), maxDurationNs: ns(qs.p60Ns) },
      INCIDENT_SAMPLE,
    ),
  ]);
  const traces = await selectCauseSpans(store, [...slow.roots, ...typical.roots], MAX_CAUSE_SPANS);
  const slowSpans = traces.slice(0, slow.roots.length);
  const typicalSpans = traces.slice(slow.roots.length);
  return {
    ...done(withMetricEvidence(rankRootCauses(slowSpans, typicalSpans), hostSignalsOf(g))),
    exemplars: {
      slow: exemplarsOf(slow.roots, 'slow'),
      typical: exemplarsOf(typical.roots, 'typical'),
    },
    criticalPathDiff: criticalPathDifference(slowSpans, typicalSpans),
  };
}
