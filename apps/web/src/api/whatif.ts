// POST /api/v1/whatif, for what the browser's replay cannot do: whole requests (issue #14).
import type { WhatIfPolicy } from '@tailscope/analysis';
import { postJson } from './client';
import { bool, num, obj, optional, str } from './decode';
import type { TimeRange } from '../state/filters';

export interface EstimateView {
  value: number;
  low: number;
  high: number;
}

export interface RequestAnswer {
  /** 'preview' (a control moving: one replay, 200 resamples) or 'full'; absent from older servers. */
  quality?: string | undefined;
  applicable?: boolean | undefined;
  reason?: string | undefined;
  request?:
    | {
        baseline: { p50: number; p90: number; p99: number };
        whatIf: { p50: EstimateView; p90: EstimateView; p99: EstimateView };
        shareOfEdgeChange?: number | undefined;
        model?: string | undefined;
        closedLoop?:
          | {
              clients: number;
              resourceService: string;
              resourceOperation: string;
              holdP50Ms: number;
            }
          | undefined;
      }
    | undefined;
}

const estimate = obj<EstimateView>({ value: num, low: num, high: num });

const decodeRequestAnswer = obj<RequestAnswer>({
  quality: optional(str),
  applicable: optional(bool),
  reason: optional(str),
  request: optional(
    obj({
      baseline: obj({ p50: num, p90: num, p99: num }),
      whatIf: obj({ p50: estimate, p90: estimate, p99: estimate }),
      shareOfEdgeChange: optional(num),
      model: optional(str),
      closedLoop: optional(
        obj({ clients: num, resourceService: str, resourceOperation: str, holdP50Ms: num }),
      ),
    }),
  ),
});

export interface EdgeKey {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
}

export function fetchRequestWhatIf(
  r: TimeRange,
  edge: EdgeKey,
  policy: WhatIfPolicy,
  seed: number,
  signal: AbortSignal,
  quality: 'preview' | 'full' = 'full',
): Promise<RequestAnswer> {
  return postJson(
    'whatif',
    {
      ...edge,
      from: Math.floor(r.fromMs),
      to: Math.ceil(r.toMs),
      policy,
      seed,
      quality,
    },
    decodeRequestAnswer,
    signal,
  );
}
