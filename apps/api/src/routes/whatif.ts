import { WhatIfRoute } from '@tailscope/contracts';
import {
  resolvePolicy,
  simulateWhatIf,
  type WhatIfPolicy,
  type WhatIfResult,
} from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { notFound } from '../server/errors';
import type { RouteApp } from '../server/route-app';
import { loadLeafCalls } from '../store/fanouts';
import { parseRange } from './fanouts';
import { checkReplaySize, checkWhatIfBody } from './whatif-schema';

/** Fan-outs replayed at most; more are sampled uniformly by loadLeafCalls (and said so). */
const MAX_FANOUTS = 200_000;

/**
 * Probation needs the hosts' recent past: the fan-outs of the window and hold time before
 * `from` are replayed too (not counted), so the range starts with the probation state a running
 * system would have had. Other policies need no warm-up.
 */
function warmupFor(policy: WhatIfPolicy): number {
  if (policy.kind !== 'probation') return 0;
  const p = resolvePolicy(policy);
  return p.kind === 'probation' ? (p.windowSeconds + p.holdSeconds) * 1000 : 0;
}

/** POST /api/v1/whatif: replay one leaf operation's recorded fan-outs under a policy. */
export function whatIfRoutes(app: RouteApp, ctx: ApiContext): void {
  app.post(
    '/api/v1/whatif',
    {
      schema: WhatIfRoute,
      // The documented schema is a union per policy kind; this validator checks the same
      // schemas but reports the failing field by name (policy.delayMs ...), which a union's
      // "must match a schema in anyOf" does not.
      validatorCompiler: () => (data: unknown) => {
        const error = checkWhatIfBody(data);
        return error ? { error } : { value: data };
      },
    },
    async (req): Promise<WhatIfResult> => {
      const body = req.body;
      const text = (v: number | string | undefined): string | undefined =>
        v === undefined ? undefined : String(v);
      const range = parseRange({ from: text(body.from), to: text(body.to) }, Date.now());
      const warmupMs = warmupFor(body.policy);
      const tooBig = checkReplaySize(body.policy, range.toMs - range.fromMs, warmupMs);
      if (tooBig) throw tooBig;
      const { calls, sampled } = await loadLeafCalls(
        ctx.store,
        {
          fromNs: range.fromNs - BigInt(warmupMs) * 1_000_000n,
          toNs: range.toNs,
          leafService: body.leafService,
          leafOperation: body.leafOperation,
        },
        { maxFanouts: MAX_FANOUTS },
      );
      const r = simulateWhatIf(calls, body.policy, {
        seed: body.seed ?? 1,
        ...(warmupMs > 0 ? { warmupUntilMs: range.fromMs } : {}),
      });
      if (r.requests === 0)
        throw notFound(
          `no fan-outs of ${body.leafService}/${body.leafOperation} start between from and to`,
        );
      const notes = sampled
        ? [
            `more than ${MAX_FANOUTS} fan-outs matched: a uniform sample of ${MAX_FANOUTS} was replayed`,
            ...r.notes,
          ]
        : r.notes;
      // The contract's fields only (the replayed samples stay in the process).
      return {
        requests: r.requests,
        baseline: r.baseline,
        whatIf: r.whatIf,
        extraLoad: r.extraLoad,
        ...(r.probation ? { probation: r.probation } : {}),
        ...(r.completeness ? { completeness: r.completeness } : {}),
        notes,
      };
    },
  );
}
