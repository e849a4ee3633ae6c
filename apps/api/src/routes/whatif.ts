import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { resolvePolicy, type WhatIfPolicy, type WhatIfResult } from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest, notFound } from '../server/errors';
import { loadLeafCalls } from '../store/fanouts';
import { analysisPool, clientGone } from '../whatif-worker/pool';
import { clampRange, parseRange, type TimeRange } from './fanouts';
import { checkWhatIfBody, WhatIfBody, WhatIfResponse } from './whatif-schema';

type Body = Static<typeof WhatIfBody>;

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

/** Longest warm-up asked of the store, ms (a century; the range is clamped to the data anyway). */
const MAX_WARMUP_MS = 100 * 365.25 * 86_400_000;

/**
 * Probation judges the hosts once per intervalSeconds over the replayed range and keeps
 * windowSeconds / intervalSeconds slots per host: both grow without bound as the interval
 * shrinks (5e-324 s once allocated past V8's limit and killed the process; 1e-5 s blocked for
 * minutes). Checked against the stored data of the range before anything runs.
 */
const MAX_PROBATION_INTERVALS = 1_000_000;
const MAX_PROBATION_SLOTS = 10_000;

function checkProbationCost(policy: WhatIfPolicy, range: TimeRange): void {
  if (policy.kind !== 'probation') return;
  const p = resolvePolicy(policy);
  if (p.kind !== 'probation') return;
  const spanSeconds = Number(range.toNs - range.fromNs) / 1e9;
  const intervals = spanSeconds / p.intervalSeconds;
  if (!(intervals <= MAX_PROBATION_INTERVALS))
    throw badRequest(
      `policy.intervalSeconds ${p.intervalSeconds} gives ${intervals.toPrecision(3)} judgement intervals over the stored data of the range (at most ${MAX_PROBATION_INTERVALS}); use a longer interval or a shorter range`,
    );
  const slots = p.windowSeconds / p.intervalSeconds;
  if (!(slots <= MAX_PROBATION_SLOTS))
    throw badRequest(
      `policy.intervalSeconds ${p.intervalSeconds} cuts policy.windowSeconds ${p.windowSeconds} into ${slots.toPrecision(3)} intervals (at most ${MAX_PROBATION_SLOTS}); use a longer interval or a shorter window`,
    );
}

/** POST /api/v1/whatif: replay one leaf operation's recorded fan-outs under a policy. */
export function whatIfRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const pool = analysisPool(app, ctx.store);
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
    async (req, reply): Promise<WhatIfResult> => {
      const cancel = clientGone(reply);
      const body = req.body as Body;
      const text = (v: number | string | undefined): string | undefined =>
        v === undefined ? undefined : String(v);
      const asked = parseRange({ from: text(body.from), to: text(body.to) }, Date.now());
      const warmupMs = Math.min(warmupFor(body.policy), MAX_WARMUP_MS);
      const range = await clampRange(ctx.store, {
        ...asked,
        fromNs: asked.fromNs - BigInt(Math.ceil(warmupMs)) * 1_000_000n,
      });
      checkProbationCost(body.policy, range);
      const { calls, sampled } = await loadLeafCalls(
        ctx.store,
        {
          fromNs: range.fromNs,
          toNs: range.toNs,
          leafService: body.leafService,
          leafOperation: body.leafOperation,
        },
        { maxFanouts: MAX_FANOUTS },
      );
      // Off the main thread: a replay of 200,000 fan-outs takes seconds of CPU.
      const r = await pool.run(
        {
          kind: 'whatif',
          calls,
          policy: body.policy,
          options: {
            seed: body.seed ?? 1,
            ...(warmupMs > 0 ? { warmupUntilMs: asked.fromMs } : {}),
          },
        },
        cancel,
      );
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
      // The contract's fields only (the replayed samples stayed in the worker).
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
