import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { simulateWhatIf, type WhatIfResult } from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { notFound } from '../server/errors';
import { loadLeafCalls } from '../store/fanouts';
import { parseRange } from './fanouts';
import { checkWhatIfBody, WhatIfBody, WhatIfResponse } from './whatif-schema';

type Body = Static<typeof WhatIfBody>;

/** Fan-outs replayed at most; more are sampled uniformly by loadLeafCalls (and said so). */
const MAX_FANOUTS = 200_000;

/** POST /api/v1/whatif: replay one leaf operation's recorded fan-outs under a policy. */
export function whatIfRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.post(
    '/api/v1/whatif',
    {
      schema: {
        summary: 'Replay recorded fan-outs under a tail-tolerance policy (docs/whatif.md)',
        body: WhatIfBody,
        response: { 200: WhatIfResponse },
      },
      // The documented schema is a union per policy kind; this validator checks the same
      // schemas but reports the failing field by name (policy.delayMs ...), which a union's
      // "must match a schema in anyOf" does not.
      validatorCompiler: () => (data: unknown) => {
        const error = checkWhatIfBody(data);
        return error ? { error } : { value: data };
      },
    },
    async (req): Promise<WhatIfResult> => {
      const body = req.body as Body;
      const text = (v: number | string | undefined): string | undefined =>
        v === undefined ? undefined : String(v);
      const { fromNs, toNs } = parseRange({ from: text(body.from), to: text(body.to) }, Date.now());
      const { calls, sampled } = await loadLeafCalls(
        ctx.store,
        { fromNs, toNs, leafService: body.leafService, leafOperation: body.leafOperation },
        { maxFanouts: MAX_FANOUTS },
      );
      if (calls.fanoutStartMs.length === 0)
        throw notFound(
          `no fan-outs of ${body.leafService}/${body.leafOperation} start between from and to`,
        );
      const r = simulateWhatIf(calls, body.policy, { seed: body.seed ?? 1 });
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
