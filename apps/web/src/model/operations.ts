import type { FanoutOp } from '../api/contracts';

/** Display name of a fan-out operation: parent, then the leaf it fans out to. */
export function operationLabel(op: FanoutOp): string {
  return `${op.parentService} ${op.parentOperation} → ${op.leafService} ${op.leafOperation}`;
}

export function operationId(op: {
  parentService: string;
  leafService: string;
  leafOperation: string;
}): string {
  return `${op.parentService}\u0000${op.leafService}\u0000${op.leafOperation}`;
}

/** P(one call > t): 1 - F(t) from the API, else the width-1 point of the curve, else 1%. */
function callTailProbability(op: FanoutOp): number {
  const cdf = op.amplification.singleCallCdf;
  if (cdf !== undefined && cdf < 1) return 1 - cdf;
  const one = op.curve.find((c) => c.width === 1);
  return one && one.predicted > 0 ? one.predicted : 0.01;
}

/**
 * Tail amplification: how many times more likely a request (all leaves) is than a single call
 * to exceed the threshold t. The default t is the call p99, so a factor of 63 means 63% of
 * requests are slower than 99% of calls.
 */
export function tailAmplification(op: FanoutOp): number {
  return op.amplification.observedTailProbability / callTailProbability(op);
}

/** Operations worst first by tail amplification, then by request count. */
export function rankOperations(ops: readonly FanoutOp[]): FanoutOp[] {
  return [...ops].sort(
    (a, b) => tailAmplification(b) - tailAmplification(a) || b.requests - a.requests,
  );
}

/** The operation the filters name, else the worst one; undefined when there are none. */
export function pickOperation(
  ranked: readonly FanoutOp[],
  f: { parentService?: string; leafService?: string; leafOperation?: string },
): FanoutOp | undefined {
  if (f.leafService !== undefined && f.leafOperation !== undefined) {
    const hit = ranked.find(
      (o) =>
        o.leafService === f.leafService &&
        o.leafOperation === f.leafOperation &&
        (f.parentService === undefined || o.parentService === f.parentService),
    );
    if (hit) return hit;
  }
  return ranked[0];
}

export type VerdictKind = 'independent' | 'correlated' | 'queueing' | 'unknown';

/**
 * Is the slowness independent across a request's calls, correlated, or waiting for a worker of
 * a pool (#12)? From the API's verdict text.
 */
export function verdictKind(verdict: string): VerdictKind {
  const v = verdict.toLowerCase();
  if (v.includes('queue')) return 'queueing';
  if (v.includes('correlated') && !v.includes('uncorrelated')) return 'correlated';
  if (v.includes('independent') || v.includes('uncorrelated')) return 'independent';
  return 'unknown';
}
