/**
 * An episode's cause in words (issue #27 "Causes named"; docs/metrics.md "Causes"), from its
 * evidence: the metric signals of its host inside the episode against just before it, and the
 * span split of its calls: the callee's server-span time against the callers' time outside it
 * (the same split as the incidents' `network` component: a client span's duration minus its
 * SERVER child's, floored at 0). Pure; O(evidence).
 *
 * Where the time went decides which evidence may explain it: time that grew inside the server
 * spans is explained by a resource signal of the host (CPU saturation, throttling, neighbour
 * pressure, GC pauses); time that grew outside them by network errors, else it is named
 * "network or queueing before the server". With no span split (calls without server spans),
 * any signal that fired may explain it.
 */

/** One metric signal of the episode's host (the API's EpisodeEvidence). */
export interface SignalEvidence {
  signal: string;
  metric?: string | undefined;
  /** Mean inside the episode, in the signal's unit (docs/metrics.md). */
  value: number;
  /** Mean over the windows just before it. */
  baseline: number;
  ratio: number;
}

/** Mean ms per call into the episode's series, inside the episode and just before it. */
export interface SpanSplit {
  calls: number;
  baselineCalls: number;
  /** The client span's duration (the call as its caller saw it). */
  clientMs: number;
  baselineClientMs: number;
  /** The SERVER span's own duration. */
  serverMs: number;
  baselineServerMs: number;
  /** clientMs - serverMs per call, floored at 0 (network, queueing before the server). */
  outsideMs: number;
  baselineOutsideMs: number;
}

export interface CauseInput {
  service: string;
  host: string;
  fromMs: number;
  toMs: number;
  /** The episode's p99 ratio to its baseline. */
  ratio: number;
  evidence?: readonly SignalEvidence[] | undefined;
  spans?: SpanSplit | undefined;
  /** Why there is no metric evidence, when there is none. */
  evidenceNote?: string | undefined;
}

export type CauseSignal =
  | 'cpu-saturation'
  | 'throttling'
  | 'neighbour-pressure'
  | 'gc-pause'
  | 'network'
  | 'memory-pressure'
  | 'network-or-queueing'
  | 'server-time'
  | 'unexplained';

export interface EpisodeCause {
  signal: CauseSignal;
  text: string;
}

/** A signal fires when it rose at least this much over its baseline ... */
export const EVIDENCE_RISE = 1.5;
/**
 * ... and is at least this high inside the episode (units of docs/metrics.md): a rise from 1%
 * to 2% CPU is no cause. CPU share of the limit; throttled, steal and GC-pause seconds per
 * second; network errors and drops per second.
 */
export const EVIDENCE_FLOOR: Readonly<Record<string, number>> = {
  'cpu-saturation': 0.7,
  throttling: 0.05,
  'neighbour-pressure': 0.05,
  'gc-pause': 0.02,
  network: 1,
  'memory-pressure': 10,
};
/** Span time (server or outside) grew when it rose this much and by at least SPAN_MIN_MS. */
export const SPAN_RISE = 1.5;
export const SPAN_MIN_MS = 1;

const RESOURCE_SIGNALS = [
  'neighbour-pressure',
  'throttling',
  'cpu-saturation',
  'gc-pause',
  'memory-pressure',
];

/**
 * Metrics whose floor is not their signal's: container restarts (memory pressure) are rare
 * events, so any restart in the episode, against none before, fires (restarts per second).
 */
export const RESTART_METRICS = ['k8s.container.restarts', 'k8s.container.restart.count'];
const METRIC_FLOOR: Readonly<Record<string, number>> = Object.fromEntries(
  RESTART_METRICS.map((m) => [m, 1e-6]),
);

export function fired(e: SignalEvidence): boolean {
  const floor = METRIC_FLOOR[e.metric ?? ''] ?? EVIDENCE_FLOOR[e.signal];
  return floor !== undefined && e.ratio >= EVIDENCE_RISE && e.value >= floor;
}

const pct = (v: number): string => `${Math.round(v * 100)}%`;
const num = (v: number): string =>
  v >= 100 ? String(Math.round(v)) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
const times = (r: number): string =>
  r >= Number.MAX_VALUE / 2 ? 'much' : r >= 10 ? `${Math.round(r)}x` : `${r.toFixed(1)}x`;
/** UTC time of day: HH:MM, with seconds when either end is not on a whole minute. */
const clock = (ms: number, seconds: boolean): string =>
  new Date(ms).toISOString().slice(11, seconds ? 19 : 16);
const ms = (v: number): string => `${num(v)} ms`;

/** "its pod ran at 98% of its CPU limit (12% before)" and the cause's name. */
function clauseOf(e: SignalEvidence): { text: string; name: string } {
  const perSecond = e.signal === 'network' || e.signal === 'memory-pressure';
  const before = `(${perSecond ? `${num(e.baseline)}/s` : pct(e.baseline)} before)`;
  switch (e.signal) {
    case 'cpu-saturation': {
      const m = e.metric ?? '';
      const who = m.startsWith('k8s.pod')
        ? 'pod'
        : m.startsWith('k8s.container') || m.startsWith('container.cpu.usage')
          ? 'container'
          : '';
      return {
        text: who
          ? `its ${who} ran at ${pct(e.value)} of its CPU limit ${before}`
          : `its process used ${pct(e.value)} of the CPU ${before}`,
        name: 'CPU saturation',
      };
    }
    case 'throttling':
      return {
        text: `its CPU was throttled ${pct(e.value)} of the time ${before}`,
        name: 'CPU throttling',
      };
    case 'neighbour-pressure':
      return {
        text: e.metric?.startsWith('system.cpu.utilization busy')
          ? `its host's CPU was ${pct(e.value)} busy with other work than its own ${before}`
          : `its host's CPU steal was ${pct(e.value)} ${before}`,
        name: 'neighbour pressure',
      };
    case 'gc-pause':
      return {
        text: `it spent ${pct(e.value)} of its time in GC pauses ${before}`,
        name: 'GC pauses',
      };
    case 'memory-pressure':
      if (RESTART_METRICS.includes(e.metric ?? ''))
        return {
          text: `its container restarted ${num(e.value * 60)} times a minute (${num(e.baseline * 60)} before)`,
          name: 'memory pressure or crashes (container restarts)',
        };
      return {
        text: `its host had ${num(e.value)} major page faults/s ${before}`,
        name: 'memory pressure (paging)',
      };
    default:
      return {
        text: `its host's network errors and drops were ${num(e.value)}/s ${before}`,
        name: 'network errors',
      };
  }
}

/** The strongest of the fired signals among `signals` (largest ratio, then name). */
function strongest(evidence: readonly SignalEvidence[], signals: readonly string[]) {
  return evidence
    .filter((e) => signals.includes(e.signal) && fired(e))
    .sort((a, b) => b.ratio - a.ratio || (a.signal < b.signal ? -1 : 1))[0];
}

const grew = (now: number, before: number): boolean =>
  now - before >= SPAN_MIN_MS && now >= SPAN_RISE * Math.max(before, 1e-3);

/**
 * The cause of one episode: a signal and a sentence. Edge cases: no evidence and no span split
 * give `unexplained` with the note; a ratio of Number.MAX_VALUE reads "much slower".
 */
export function episodeCause(c: CauseInput): EpisodeCause {
  const secs = c.fromMs % 60_000 !== 0 || c.toMs % 60_000 !== 0;
  const head = `calls into ${c.service} on ${c.host} were ${times(c.ratio)} slower from ${clock(c.fromMs, secs)} to ${clock(c.toMs, secs)}`;
  const evidence = c.evidence ?? [];
  const s = c.spans;
  const serverGrew = s !== undefined && grew(s.serverMs, s.baselineServerMs);
  const outsideGrew = s !== undefined && grew(s.outsideMs, s.baselineOutsideMs);
  const outsideFirst =
    s !== undefined &&
    outsideGrew &&
    s.outsideMs - s.baselineOutsideMs > s.serverMs - s.baselineServerMs;
  if (s !== undefined && outsideFirst) {
    const net = strongest(evidence, ['network']);
    const cpu = evidence.find((e) => e.signal === 'cpu-saturation');
    const cpuNormal = cpu !== undefined && !fired(cpu) ? 'its CPU was normal and ' : '';
    const spans = `${cpuNormal}the server spans did not grow (${ms(s.serverMs)}, ${ms(s.baselineServerMs)} before); the callers' time outside them did (${ms(s.outsideMs)}, ${ms(s.baselineOutsideMs)} before)`;
    if (net) {
      const n = clauseOf(net);
      return { signal: 'network', text: `${head}; ${spans}; ${n.text}: ${n.name}` };
    }
    return {
      signal: 'network-or-queueing',
      text: `${head}; ${spans}: network or queueing before the server`,
    };
  }
  // The time is in the server (or there is no split): a resource signal explains it.
  const best = strongest(
    evidence,
    s === undefined ? [...RESOURCE_SIGNALS, 'network'] : RESOURCE_SIGNALS,
  );
  if (best) {
    const b = clauseOf(best);
    const signal = best.signal as CauseSignal;
    return { signal, text: `${head}; ${b.text}: ${b.name}` };
  }
  if (s !== undefined && serverGrew) {
    const why = c.evidenceNote ?? 'no metric of its host rose with it';
    return {
      signal: 'server-time',
      text: `${head}; its server spans grew (${ms(s.serverMs)}, ${ms(s.baselineServerMs)} before) and no resource evidence explains it (${why}): the service's own work`,
    };
  }
  const why =
    c.evidenceNote ??
    (s === undefined
      ? 'no server spans to split the time and no metric rose'
      : 'neither its server spans nor the time outside them grew on average, and no metric rose');
  return { signal: 'unexplained', text: `${head}; the cause is not known: ${why}` };
}
