import { DEFAULT_WHATIF_SEED } from '@tailscope/contracts';
import type { WhatIfPolicy } from '@tailscope/analysis';
import type { FanoutOp } from '../api/contracts';
import { knobsFor, policyOf, readPolicyState, type KnobContext } from './knobs';

/** The figures of the operation the controls' ranges and defaults are read from. */
export function knobContextOf(op: FanoutOp): KnobContext {
  return {
    callP50: op.table1.oneLeaf.p50,
    callP99: op.table1.oneLeaf.p99,
    callP999: op.table1.oneLeaf.p999,
    requestP999: op.table1.allLeaves.p999,
  };
}

/** The edge the whole-request replay is asked for. */
export const edgeOf = (op: FanoutOp) => ({
  parentService: op.parentService,
  parentOperation: op.parentOperation,
  leafService: op.leafService,
  leafOperation: op.leafOperation,
});

/**
 * The policy and seed of the What-if page's first whole-request question, as its controls start
 * from the URL: what the page asks when it opens, and what is asked ahead of it
 * (state/ask-ahead.ts, pages/WhatIf.tsx).
 */
export function firstWhatIf(
  op: FanoutOp,
  params: URLSearchParams,
): { policy: WhatIfPolicy; seed: number } {
  const ctx = knobContextOf(op);
  const state = readPolicyState(params, ctx);
  const seed = Number(params.get('seed') ?? DEFAULT_WHATIF_SEED) || DEFAULT_WHATIF_SEED;
  return { policy: policyOf(state, knobsFor(state.kind, ctx)), seed };
}
