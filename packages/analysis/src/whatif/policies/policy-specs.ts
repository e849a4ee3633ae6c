/**
 * The parameter table of the what-if policies: each parameter's bounds, default and meaning.
 * It is the single source of truth: the API builds its request schema (and OpenAPI document)
 * from it, and `resolvePolicy` enforces it for callers that skip the API (the browser's worker).
 * The policy types live in policy.ts.
 */

export const POLICY_KINDS = [
  'hedge',
  'tied',
  'probation',
  'good-enough',
  'canary',
  'sync-background',
  'pool',
  'avoid-hosts',
] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

/**
 * One parameter of a policy: a number (bounds inclusive unless marked exclusive), or, with
 * `type`, a string or a list of strings. `literals`: strings a numeric parameter also accepts
 * (`workers: 'unbounded'`).
 */
export interface ParameterSpec {
  readonly name: string;
  readonly description: string;
  readonly type?: 'number' | 'string' | 'strings';
  readonly literals?: readonly string[];
  /** Longest string (and, for lists, most items). */
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly integer?: boolean;
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  readonly exclusiveMaximum?: number;
  /** Applied by resolvePolicy when absent; data-dependent defaults are described instead. */
  readonly default?: number;
}

export interface PolicySpec {
  readonly description: string;
  readonly parameters: readonly ParameterSpec[];
}

/**
 * Upper bounds of the open-ended parameters, so every parameter is finite and bounded (a
 * request's replay cost is bounded before it runs): a year for durations in ms, a day for the
 * probation windows in seconds, a billion for counts.
 */
const MAX_MS = 366 * 86_400_000;
const MAX_SECONDS = 86_400;
const MAX_COUNT = 1_000_000_000;
const MAX_NAME = 256;
const MAX_HOSTS = 1000;

const drawWindowMs: ParameterSpec = {
  name: 'drawWindowMs',
  description:
    'Replacement latencies come from calls to other hosts that started within ±drawWindowMs/2 of the moment the replacement was sent (widened until it holds 10 calls).',
  minimum: 0,
  maximum: MAX_MS,
  default: 20,
};

export const POLICY_SPECS: Readonly<Record<PolicyKind, PolicySpec>> = {
  hedge: {
    description:
      'Hedged requests: a call slower than the delay gets a backup to another host; the first answer wins. Give at most one of delayMs, delayPercentile, maxExtraLoad (default: delayPercentile 95).',
    parameters: [
      { name: 'delayMs', description: 'Fixed backup delay, ms.', minimum: 0, maximum: MAX_MS },
      {
        name: 'delayPercentile',
        description: "Backup delay as this percentile (0-100) of the operation's call latency.",
        exclusiveMinimum: 0,
        exclusiveMaximum: 100,
      },
      {
        name: 'maxExtraLoad',
        description:
          'Finagle-style: the delay is the (1 - maxExtraLoad) quantile of call latency, so about this share of calls get a backup.',
        exclusiveMinimum: 0,
        exclusiveMaximum: 1,
      },
      {
        name: 'maxAttempts',
        description: 'Attempts per call including the original (one more every delay).',
        integer: true,
        minimum: 2,
        maximum: 10,
        default: 2,
      },
      drawWindowMs,
    ],
  },
  tied: {
    description:
      'Tied requests: a copy goes to another host after delayMs; the copy that starts executing first cancels the other.',
    parameters: [
      {
        name: 'delayMs',
        description: 'Delay before the second copy, ms.',
        minimum: 0,
        default: 1,
        maximum: MAX_MS,
      },
      {
        name: 'cancelMs',
        description: 'Time for a cancellation to reach the other server, ms.',
        minimum: 0,
        default: 0.5,
        maximum: MAX_MS,
      },
      {
        name: 'serviceMs',
        description:
          "Execution time assumed when spans carry no queueing split: the part of a call's latency above it is queueing. Default: the operation's median call latency.",
        exclusiveMinimum: 0,
        maximum: MAX_MS,
      },
      drawWindowMs,
    ],
  },
  probation: {
    description:
      "Latency-induced probation: a host whose latency percentile over a sliding window exceeds threshold x the fleet's median host percentile is excluded (at most maxEjectedFraction of hosts); shadow requests keep measuring it; it returns after holdSeconds healthy.",
    parameters: [
      {
        name: 'windowSeconds',
        description: 'Sliding window of host latency, s.',
        exclusiveMinimum: 0,
        default: 10,
        maximum: MAX_SECONDS,
      },
      {
        name: 'intervalSeconds',
        description: 'How often hosts are evaluated, s (at most windowSeconds).',
        minimum: 0.001,
        default: 1,
        maximum: MAX_SECONDS,
      },
      {
        name: 'percentile',
        description: 'Host latency percentile compared (0-100].',
        exclusiveMinimum: 0,
        maximum: 100,
        default: 99,
      },
      {
        name: 'threshold',
        description: "A host is slow when its percentile exceeds threshold x the fleet's median.",
        exclusiveMinimum: 1,
        default: 2,
        maximum: 1000,
      },
      {
        name: 'minLatencyMs',
        description:
          'A host is slow only above this latency too, ms, so a uniformly fast fleet ejects nobody.',
        minimum: 0,
        default: 0,
        maximum: MAX_MS,
      },
      {
        name: 'holdSeconds',
        description: 'A host returns after it has been healthy this long, s.',
        minimum: 0,
        default: 30,
        maximum: MAX_SECONDS,
      },
      {
        name: 'maxEjectedFraction',
        description: 'Envoy-style cap on hosts on probation at once (at least one host).',
        exclusiveMinimum: 0,
        maximum: 1,
        default: 0.1,
      },
      {
        name: 'minCalls',
        description: 'Calls a host needs in the window to be judged.',
        integer: true,
        minimum: 1,
        default: 20,
        maximum: MAX_COUNT,
      },
      {
        name: 'minShadowCalls',
        description:
          'Shadow calls a host on probation needs in the window to be judged; with fewer it counts as not healthy. Default: max(1, ceil(minCalls x shadowFraction)).',
        integer: true,
        minimum: 1,
        maximum: MAX_COUNT,
      },
      {
        name: 'shadowFraction',
        description: 'Share of a probation host’s calls still sent to it as shadow requests.',
        exclusiveMinimum: 0,
        maximum: 1,
        default: 0.1,
      },
      drawWindowMs,
    ],
  },
  'good-enough': {
    description:
      'Answer when a fraction of the calls have finished, or at a deadline, whichever comes first (default: fraction 0.95).',
    parameters: [
      {
        name: 'fraction',
        description: 'Share of calls to wait for (0-1].',
        exclusiveMinimum: 0,
        maximum: 1,
      },
      {
        name: 'deadlineMs',
        description: 'Answer at this time at the latest, ms.',
        minimum: 0,
        maximum: MAX_MS,
      },
    ],
  },
  canary: {
    description: 'Send 1 or 2 canary calls first; the rest go out once the canaries answered.',
    parameters: [
      {
        name: 'canaries',
        description: 'Canary calls per request.',
        integer: true,
        minimum: 1,
        maximum: 2,
        default: 1,
      },
    ],
  },
  'sync-background': {
    description:
      "Synchronized background activity: every host's n-th background episode of a kind is moved to start when the first host's n-th episode starts.",
    parameters: [
      {
        name: 'mergeGapMs',
        description: 'Flagged calls on a host closer than this belong to one episode, ms.',
        minimum: 0,
        default: 1000,
        maximum: MAX_MS,
      },
    ],
  },
  pool: {
    description:
      "Pool size: the edge's calls of one request are scheduled in their recorded order on this many workers (each call keeping its recorded latency); 'unbounded' sends them all at once.",
    parameters: [
      {
        name: 'workers',
        description: "Workers of the pool (an integer), or 'unbounded' (the default).",
        integer: true,
        minimum: 1,
        maximum: 100_000,
        literals: ['unbounded'],
      },
    ],
  },
  'avoid-hosts': {
    description:
      "Avoid hosts (Bobtail's remedy): calls to the listed hosts, or to hosts of a sharing mode, are served by the other hosts of the same time window. Give hosts, sharingMode or both.",
    parameters: [
      {
        name: 'hosts',
        description: 'Hosts to avoid (as the host dimension names them).',
        type: 'strings',
        maxLength: MAX_NAME,
        maxItems: MAX_HOSTS,
      },
      {
        name: 'sharingMode',
        description: 'Avoid every host of this sharing mode (e.g. shared-core).',
        type: 'string',
        maxLength: MAX_NAME,
      },
      drawWindowMs,
    ],
  },
};
