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

// The ranking is the server's too (its warm answers ask what the dashboard asks first).
export { rankOperations, tailAmplification } from '@tailscope/contracts';

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
