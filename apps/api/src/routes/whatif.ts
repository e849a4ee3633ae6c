import {
  API_PATHS,
  WhatIfRoute,
  type ReplayWhatIfBody,
  type WhatIfResponse,
} from '@tailscope/contracts';
import { resolvePolicy, type WhatIfPolicy, type WhatIfResult } from '@tailscope/analysis';
import type { ApiContext } from './context';
import { badRequest, notFound, type RouteApp, clientGone, parseRange } from '../foundation';
import { QueryBudgetError } from '../store/engine/budget';
import { loadLeafCalls } from '../store/fanouts';
import {
  capFanoutCalls,
  MAX_FANOUT_CALLS,
  WIDE_FANOUT_SEED,
  wideFanoutNote,
} from '../store/fanouts/wide';
import { analysisPool, type AnalysisPool } from '../whatif-worker/pool';
import { memoized, overBudgetRead, rememberOverBudget } from '../cache/request-reads';
import { clampRange } from './clamp-range';
import { rangeSampling } from './sampling';
import { checkReplaySize, checkWhatIfBody } from './whatif-schema';
import { rangeCache, replayWholeRequests } from './whatif-request';
import { capacityWhatIfAnswer, isCapacityPolicy } from './whatif-capacity';

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
 * Probation keeps windowSeconds / intervalSeconds slots per host: with a one-day window and a
 * millisecond interval that is 86 million per host. The number of intervals over the range is
 * checked by checkReplaySize.
 */
const MAX_PROBATION_SLOTS = 10_000;

function checkProbationSlots(policy: WhatIfPolicy): void {
  if (policy.kind !== 'probation') return;
  const p = resolvePolicy(policy);
  if (p.kind !== 'probation') return;
  const slots = p.windowSeconds / p.intervalSeconds;
  if (!(slots <= MAX_PROBATION_SLOTS))
    throw badRequest(
      `policy.intervalSeconds ${p.intervalSeconds} cuts policy.windowSeconds ${p.windowSeconds} into ${slots.toPrecision(3)} intervals (at most ${MAX_PROBATION_SLOTS}); use a longer interval or a shorter window`,
    );
}

/** POST /api/v1/whatif: replay one leaf operation's recorded fan-outs under a policy. */
export function whatIfRoutes(app: RouteApp, ctx: ApiContext): void {
  const pool = analysisPool(app, ctx.store);
  app.post(
    API_PATHS.whatif.path,
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
    async (req, reply): Promise<WhatIfResponse> => {
      const gateMs = reply.elapsedTime;
      const cancel = clientGone(reply);
      const raw = req.body;
      const text = (v: number | string | undefined): string | undefined =>
        v === undefined ? undefined : String(v);
      const asked = parseRange({ from: text(raw.from), to: text(raw.to) }, Date.now());
      // Load and machines (issue 29), alone or beside a policy: their own path.
      if (isCapacityPolicy(raw.policy) || (raw.capacity?.length ?? 0) > 0)
        // The fit cache said as the replay cache is (capacity-job.ts): not in the body.
        return capacityWhatIfAnswer(
          ctx,
          pool,
          raw,
          asked,
          cancel,
          (hit, ageMs) => {
            void reply.header(
              'tailscope-replay-cache',
              hit ? `hit; age=${(ageMs / 1000).toFixed(1)}s` : 'miss',
            );
          },
          // Where the time went (docs/capacity.md "Performance"): before the handler (the
          // admission gate, parsing), in the analysis pool, on its thread.
          (t) => {
            const f = (ms: number) => ms.toFixed(1);
            void reply.header(
              'server-timing',
              `gate;dur=${f(gateMs)}, answer;dur=${f(t.answerMs)}, pool;dur=${f(t.poolMs)}, compute;dur=${f(t.computeMs)}`,
            );
          },
        );
      const body: ReplayWhatIfBody = { ...raw, policy: raw.policy };
      const warmupMs = Math.min(warmupFor(body.policy), MAX_WARMUP_MS);
      // A preview (a control moving) reuses the range's small reads as it reuses its trees.
      const preview = body.quality === 'preview';
      const cache = rangeCache(body, asked);
      const kept = <T>(what: string, read: () => Promise<T>): Promise<T> =>
        preview
          ? memoized(ctx.store, JSON.stringify([what, cache.key, warmupMs]), cache.ttlMs, read)
          : read();
      const range = await kept('clamp', () =>
        clampRange(ctx.store, {
          ...asked,
          fromNs: asked.fromNs - BigInt(Math.ceil(warmupMs)) * 1_000_000n,
        }),
      );
      // Judged over the stored data of the range (warm-up included): a wide range over little
      // data is fine, a short interval over much data is not.
      const tooBig = checkReplaySize(body.policy, Number(range.toNs - range.fromNs) / 1e6, 0);
      if (tooBig) throw tooBig;
      checkProbationSlots(body.policy);
      // Weighted outputs when some span of the reported range carries a threshold.
      const sampling = await kept('sampling', () =>
        rangeSampling(ctx.store, {
          fromNs: asked.fromNs > range.fromNs ? asked.fromNs : range.fromNs,
          toNs: range.toNs,
        }),
      );
      // A preview answers from the whole-request replay alone: its trees and plan are cached,
      // the fan-out read and replay are not.
      const readFanouts = () =>
        replayFanouts(ctx, pool, body, cancel, {
          range,
          warmupUntilMs: warmupMs > 0 ? asked.fromMs : undefined,
          weighted: sampling.weighted,
          cacheKey: cache.key,
          ttlMs: cache.ttlMs,
        });
      const oneCaller = body.parentService !== undefined || body.parentOperation !== undefined;
      // One caller, or a pool: the whole-request replay answers the edge figures (byTree below),
      // so a full answer reads the fan-outs only when no whole request answers (the What-if
      // page always names the caller; bench:pages found its full answer spending 3 s on a
      // fan-out read and replay it then set aside).
      const treeFirst = preview || oneCaller || body.policy.kind === 'pool';
      let fanouts: Awaited<ReturnType<typeof readFanouts>> = treeFirst
        ? { r: null, sampled: false }
        : await readFanouts();
      const whole = await replayWholeRequests(ctx, pool, body, asked, cancel, sampling.weighted);
      // No whole request holds the edge (a request longer than the window its spans are read
      // in, e.g. one of 30 days): a preview answers from the fan-out replay, as the full answer
      // does, rather than 404 where the full one answers (issue 25).
      const previewByFanouts = preview && whole === null;
      if (
        previewByFanouts ||
        (treeFirst && !preview && (whole === null || whole.result.requests === 0))
      )
        fanouts = await readFanouts();
      const { r, sampled } = fanouts;
      const fanoutRead = { overBudget: fanouts.overBudget };
      if (fanoutRead.overBudget && whole === null) throw fanoutRead.overBudget;
      // Whether the whole requests came from the replay cache (request-cache.ts), for clients and
      // tests that care; not in the body, which stays the same for the same request.
      if (whole)
        void reply.header(
          'tailscope-replay-cache',
          whole.cache.hit ? `hit; age=${(whole.cache.ageMs / 1000).toFixed(1)}s` : 'miss',
        );
      if (oneCaller && whole === null)
        throw notFound(
          `no requests in which ${body.parentService ?? '*'}/${body.parentOperation ?? '*'} calls ${body.leafService}/${body.leafOperation} between from and to`,
        );
      if ((r?.requests ?? 0) === 0 && (whole === null || whole.result.requests === 0))
        throw notFound(
          `no fan-outs of ${body.leafService}/${body.leafOperation} start between from and to`,
        );
      // One caller, a pool, or an edge without fan-outs (sequential calls): the edge figures
      // come from the whole-request replay too.
      const byTree =
        whole !== null &&
        (body.parentService !== undefined ||
          body.parentOperation !== undefined ||
          body.policy.kind === 'pool' ||
          r === null ||
          r.requests === 0);
      const main = byTree ? whole.result : r;
      if (!main) throw notFound(`no requests of ${body.leafService}/${body.leafOperation}`);
      const sampledFanouts = Math.max(
        byTree ? 0 : (fanouts.sampledFanouts ?? 0),
        whole?.sampledFanouts ?? 0,
      );
      const notes = [
        ...(!byTree && (fanouts.sampledFanouts ?? 0) > 0
          ? [wideFanoutNote(fanouts.sampledFanouts ?? 0, 'fan-out replay')]
          : []),
        ...(sampled && !byTree
          ? [
              `more than ${MAX_FANOUTS} fan-outs matched: a uniform sample of ${MAX_FANOUTS} was replayed`,
            ]
          : []),
        ...main.notes,
        ...(whole ? whole.notes : []),
      ];
      return {
        requests: main.requests,
        baseline: main.baseline,
        whatIf: main.whatIf,
        extraLoad: main.extraLoad,
        ...(main.probation ? { probation: main.probation } : {}),
        ...(main.completeness ? { completeness: main.completeness } : {}),
        ...(main.avoidHosts ? { avoidHosts: main.avoidHosts } : {}),
        applicable: main.applicable,
        ...(main.reason !== undefined ? { reason: main.reason } : {}),
        ...(whole ? { request: whole.result.request } : {}),
        notes: [
          ...(fanoutRead.overBudget
            ? [
                `the fan-out read exceeded the query budget (${fanoutRead.overBudget.message}): the edge figures come from the whole-request replay`,
              ]
            : []),
          ...(previewByFanouts
            ? [
                'preview: no whole request holds the edge in the range, so the fan-out replay answered, as for quality "full"',
              ]
            : []),
          ...(preview && !previewByFanouts
            ? [
                'preview: the whole-request replay alone (edge figures from it), one replay, 200 bootstrap resamples; ask quality "full" for the pooled answer',
              ]
            : []),
          ...notes,
        ],
        sampling,
        quality: preview ? 'preview' : 'full',
        ...(sampledFanouts > 0 ? { sampledFanouts } : {}),
      };
    },
  );
}

/**
 * The fan-out read and replay. A read over the budget (live fan-out detection over millions of
 * spans) leaves the edge figures to the whole-request replay, said in the notes; a memory
 * failure is remembered as long as the range's trees, so the next answer at rest does not spend
 * seconds failing again.
 */
async function replayFanouts(
  ctx: ApiContext,
  pool: AnalysisPool,
  body: ReplayWhatIfBody,
  cancel: AbortSignal,
  o: {
    range: { fromNs: bigint; toNs: bigint };
    warmupUntilMs: number | undefined;
    weighted: boolean;
    cacheKey: string;
    ttlMs: number;
  },
): Promise<{
  r: WhatIfResult | null;
  sampled: boolean;
  sampledFanouts?: number;
  overBudget?: QueryBudgetError;
}> {
  const overKey = JSON.stringify(['fanouts', o.cacheKey, body.leafService, body.leafOperation]);
  const known = overBudgetRead(ctx.store, overKey);
  if (known) return { r: null, sampled: false, overBudget: known };
  let loaded;
  try {
    loaded = await loadLeafCalls(
      ctx.store,
      {
        fromNs: o.range.fromNs,
        toNs: o.range.toNs,
        leafService: body.leafService,
        leafOperation: body.leafOperation,
      },
      { maxFanouts: MAX_FANOUTS, weights: o.weighted },
    );
  } catch (e) {
    if (!(e instanceof QueryBudgetError)) throw e;
    // Memory is decided by the data (remembered); time also by the machine's load (not).
    if (e.kind === 'memory') rememberOverBudget(ctx.store, overKey, o.ttlMs, e);
    return { r: null, sampled: false, overBudget: e };
  }
  // One huge fan-out must not make the replay unusable (issue 25): bounded calls per fan-out.
  const capped = capFanoutCalls(loaded.calls, MAX_FANOUT_CALLS, WIDE_FANOUT_SEED);
  // Off the main thread: a replay of 200,000 fan-outs takes seconds of CPU.
  const r = await pool.run(
    {
      kind: 'whatif',
      calls: capped.calls,
      policy: body.policy,
      options: {
        seed: body.seed ?? 1,
        ...(o.warmupUntilMs !== undefined ? { warmupUntilMs: o.warmupUntilMs } : {}),
      },
    },
    cancel,
  );
  return { r, sampled: loaded.sampled, sampledFanouts: capped.sampledFanouts };
}
