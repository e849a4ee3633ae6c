// POST /api/v1/whatif with a load change and machine counts (issue 29): the capacity page.
import type { CapacityAnswer } from '@tailscope/contracts';
import { postJson } from './client';
import { arr, bool, num, obj, oneOf, optional, str } from './decode';
import type { TimeRange } from '../state/filters';
import type { Quality } from '../state/use-preview-answer';

export interface EstimateView {
  value: number;
  low: number;
  high: number;
}

/** The contract's capacity service; the fields the page reads. */
export type CapacityServiceView = Omit<
  CapacityAnswer['services'][number],
  'p99After' | 'p99Ms' | 'cpu'
> & {
  p99Ms?: number | undefined;
  p99After?: EstimateView | undefined;
  cpu?: CpuView | undefined;
};

/** The CPU calibration from runtime metrics (absent without them). */
export interface CpuView {
  processes: number;
  utilisation: number;
  utilisationAfter: number;
  cpuMsPerCall: number;
  spanUtilisation: number;
}

export interface CapacityView {
  quality?: string | undefined;
  applicable?: boolean | undefined;
  reason?: string | undefined;
  requests: number;
  notes: string[];
  capacity: {
    services: CapacityServiceView[];
    saturatesFirst?: string | undefined;
    saturated: string[];
    extrapolated: boolean;
    request: {
      baseline: { p50: number; p90: number; p99: number; p999: number };
      whatIf?:
        { p50: EstimateView; p90: EstimateView; p99: EstimateView; p999: EstimateView } | undefined;
    };
  };
}

const estimate = obj<EstimateView>({ value: num, low: num, high: num });

const cpu = obj<CpuView>({
  processes: num,
  utilisation: num,
  utilisationAfter: num,
  cpuMsPerCall: num,
  spanUtilisation: num,
});

const service = obj<CapacityServiceView>({
  service: str,
  model: oneOf(['mgk', 'curve'] as const),
  k: num,
  instances: num,
  instancesAfter: num,
  utilisation: num,
  utilisationAfter: num,
  throughputPerS: num,
  inFlight: num,
  workMs: num,
  waitMs: num,
  fitError: num,
  extrapolated: bool,
  saturated: bool,
  loadOverObserved: num,
  cpu: optional(cpu),
  p99Ms: optional(num),
  p99After: optional(estimate),
});

const decodeCapacity = obj<CapacityView>({
  quality: optional(str),
  applicable: optional(bool),
  reason: optional(str),
  requests: num,
  notes: arr(str),
  capacity: obj({
    services: arr(service),
    saturatesFirst: optional(str),
    saturated: arr(str),
    extrapolated: bool,
    request: obj({
      baseline: obj({ p50: num, p90: num, p99: num, p999: num }),
      whatIf: optional(obj({ p50: estimate, p90: estimate, p99: estimate, p999: estimate })),
    }),
  }),
});

export interface CapacityAsk {
  /** Traffic times this (all requests). */
  factor: number;
  /** Instances per service, for those changed from the recording. */
  machines: Record<string, number>;
}

export function fetchCapacity(
  r: TimeRange,
  leaf: { leafService: string; leafOperation: string },
  ask: CapacityAsk,
  seed: number,
  signal: AbortSignal,
  quality: Quality,
): Promise<CapacityView> {
  const machines = Object.entries(ask.machines).map(([svc, count]) => ({
    kind: 'machines' as const,
    service: svc,
    count,
  }));
  return postJson(
    'whatif',
    {
      ...leaf,
      from: Math.floor(r.fromMs),
      to: Math.ceil(r.toMs),
      policy: { kind: 'load', factor: ask.factor },
      ...(machines.length > 0 ? { capacity: machines } : {}),
      seed,
      quality,
    },
    decodeCapacity,
    signal,
  );
}
