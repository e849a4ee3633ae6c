// POST /api/v1/whatif, for what the browser's replay cannot do: whole requests (issue #14).
import type { WhatIfPolicy } from '@tailscope/analysis';
import { AskedEarly } from './asked-early';
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
  const body = requestBody(r, edge, policy, seed, quality);
  return (
    askedEarly.take(JSON.stringify(body)) ?? postJson('whatif', body, decodeRequestAnswer, signal)
  );
}

function requestBody(
  r: TimeRange,
  edge: EdgeKey,
  policy: WhatIfPolicy,
  seed: number,
  quality: 'preview' | 'full',
) {
  return {
    ...edge,
    from: Math.floor(r.fromMs),
    to: Math.ceil(r.toMs),
    policy,
    seed,
    quality,
  };
}

/** Whole-request answers asked before the page's panel mounted, until it takes them. */
const askedEarly = new AskedEarly<RequestAnswer>();

/**
 * Asks for the full whole-request answer the What-if page is about to ask, as soon as its
 * operation is known: the panel mounts only once the leaf calls are in the browser's
 * simulator, and its answer needs none of them, so the two are fetched side by side instead
 * of one after the other. The panel's first fetchRequestWhatIf of the same body takes it.
 */
export function prefetchRequestWhatIf(
  r: TimeRange,
  edge: EdgeKey,
  policy: WhatIfPolicy,
  seed: number,
): void {
  const body = requestBody(r, edge, policy, seed, 'full');
  askedEarly.ask(JSON.stringify(body), () => postJson('whatif', body, decodeRequestAnswer));
}
