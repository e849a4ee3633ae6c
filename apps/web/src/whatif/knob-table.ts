// The what-if page's controls: for each policy, which parameters get a slider, over what range
// and in what unit. Bounds and defaults come from the simulator's POLICY_SPECS; the ranges a
// person can sensibly drag over (often from the data: a delay up to the call p99.9) are here.
import { POLICY_SPECS, type PolicyKind } from '@tailscope/analysis';
import { DEFAULT_HEDGE_PERCENTILE } from '@tailscope/contracts';

export type Unit = 'ms' | 's' | 'percentile' | 'share' | 'count' | 'factor';

export interface Knob {
  name: string;
  label: string;
  unit: Unit;
  min: number;
  max: number;
  step: number;
  /** Slider position is logarithmic in the value (delays, windows). */
  log?: boolean;
  /** Value when the URL has none. */
  initial: number;
  /** Off unless switched on (the parameter has no default). */
  optional?: boolean;
  /** Knobs of one group exclude each other (hedge: delay by ms, percentile or extra load). */
  group?: string;
  /** Shown without opening "More parameters". */
  primary?: boolean;
  description: string;
}

/** What the data says about sensible ranges, ms. */
export interface KnobContext {
  callP50: number;
  callP99: number;
  callP999: number;
  requestP999: number;
}

function describe(kind: PolicyKind, name: string): string {
  return POLICY_SPECS[kind].parameters.find((p) => p.name === name)?.description ?? '';
}

function specDefault(kind: PolicyKind, name: string): number | undefined {
  return POLICY_SPECS[kind].parameters.find((p) => p.name === name)?.default;
}

const nice = (v: number, floor: number) => (Number.isFinite(v) && v > floor ? v : floor);

type Raw = Omit<Knob, 'description' | 'initial'> & { initial?: number };

/**
 * Every policy that draws replacement latencies has this one. Its range reaches down to a few
 * ms: the default window (20 ms) was measured against a real cluster, and slider positions
 * below 100 ms are where it matters (docs/whatif.md).
 */
const DRAW_WINDOW_KNOB: Raw = {
  name: 'drawWindowMs',
  label: 'Replacement draw window',
  unit: 'ms',
  min: 2,
  max: 60_000,
  step: 1,
  log: true,
};

export function knobsFor(kind: PolicyKind, c: KnobContext): Knob[] {
  const delayMax = nice(c.callP999 * 1.5, 10);
  const raw: Record<PolicyKind, Raw[]> = {
    hedge: [
      {
        name: 'delayPercentile',
        label: 'Hedge after call percentile',
        unit: 'percentile',
        min: 50,
        max: 99.9,
        step: 0.1,
        initial: DEFAULT_HEDGE_PERCENTILE,
        group: 'delay',
        primary: true,
      },
      {
        name: 'delayMs',
        label: 'Hedge after fixed delay',
        unit: 'ms',
        min: 0.1,
        max: delayMax,
        step: 0.1,
        log: true,
        initial: nice(c.callP99, 1),
        group: 'delay',
        primary: true,
      },
      {
        name: 'maxExtraLoad',
        label: 'Hedge within extra load budget',
        unit: 'share',
        min: 0.001,
        max: 0.3,
        step: 0.001,
        log: true,
        initial: 0.05,
        group: 'delay',
        primary: true,
      },
      {
        name: 'maxAttempts',
        label: 'Attempts per call',
        unit: 'count',
        min: 2,
        max: 5,
        step: 1,
        primary: true,
      },
      DRAW_WINDOW_KNOB,
    ],
    tied: [
      {
        name: 'delayMs',
        label: 'Second copy after',
        unit: 'ms',
        min: 0,
        max: 20,
        step: 0.1,
        primary: true,
      },
      {
        name: 'cancelMs',
        label: 'Cancellation takes',
        unit: 'ms',
        min: 0,
        max: 5,
        step: 0.1,
        primary: true,
      },
      {
        name: 'serviceMs',
        label: 'Assumed execution time',
        unit: 'ms',
        min: 0.1,
        max: nice(c.callP99, 1),
        step: 0.1,
        log: true,
        optional: true,
        initial: nice(c.callP50, 0.1),
      },
      DRAW_WINDOW_KNOB,
    ],
    probation: [
      {
        name: 'threshold',
        label: 'Slow above the fleet median ×',
        unit: 'factor',
        min: 1.1,
        max: 10,
        step: 0.1,
        primary: true,
      },
      {
        name: 'windowSeconds',
        label: 'Sliding window',
        unit: 's',
        min: 1,
        max: 120,
        step: 1,
        primary: true,
      },
      {
        name: 'holdSeconds',
        label: 'Healthy this long to return',
        unit: 's',
        min: 0,
        max: 300,
        step: 1,
        primary: true,
      },
      {
        name: 'maxEjectedFraction',
        label: 'At most this share of hosts out',
        unit: 'share',
        min: 0.01,
        max: 0.5,
        step: 0.01,
        primary: true,
      },
      {
        name: 'percentile',
        label: 'Host percentile compared',
        unit: 'percentile',
        min: 50,
        max: 99.9,
        step: 0.1,
      },
      { name: 'intervalSeconds', label: 'Evaluate every', unit: 's', min: 0.5, max: 10, step: 0.5 },
      {
        name: 'minCalls',
        label: 'Calls needed to judge a host',
        unit: 'count',
        min: 1,
        max: 200,
        step: 1,
      },
      {
        name: 'shadowFraction',
        label: 'Shadow requests to a host on probation',
        unit: 'share',
        min: 0.01,
        max: 1,
        step: 0.01,
      },
      DRAW_WINDOW_KNOB,
    ],
    'good-enough': [
      {
        name: 'fraction',
        label: 'Answer when this share of calls is back',
        unit: 'share',
        min: 0.5,
        max: 1,
        step: 0.005,
        initial: 0.95,
        primary: true,
      },
      {
        name: 'deadlineMs',
        label: 'Or at this deadline',
        unit: 'ms',
        min: 1,
        max: nice(c.requestP999 * 1.2, 10),
        step: 1,
        log: true,
        optional: true,
        initial: nice(c.callP99, 1),
        primary: true,
      },
    ],
    canary: [
      {
        name: 'canaries',
        label: 'Canary calls per request',
        unit: 'count',
        min: 1,
        max: 2,
        step: 1,
        primary: true,
      },
    ],
    'sync-background': [
      {
        name: 'mergeGapMs',
        label: 'One episode when closer than',
        unit: 'ms',
        min: 0,
        max: 10_000,
        step: 50,
        primary: true,
      },
    ],
    // Off: unbounded workers (every call at once).
    pool: [
      {
        name: 'workers',
        label: 'Pool workers',
        unit: 'count',
        min: 1,
        max: 64,
        step: 1,
        initial: 10,
        optional: true,
        primary: true,
      },
    ],
    // Without a host list the replay avoids the slowest host (by p99).
    'avoid-hosts': [DRAW_WINDOW_KNOB],
  };
  return raw[kind].map((k) => ({
    ...k,
    initial: k.initial ?? specDefault(kind, k.name) ?? k.min,
    description: describe(kind, k.name),
  }));
}
