import { API_PATHS, FanoutsRoute, type Fanout } from '@tailscope/contracts';
import {
  amplificationCurve,
  amplificationFromCounts,
  fanoutVerdict,
  slowestShare,
  type Quantiles,
} from '@tailscope/analysis';
import type { ApiContext } from './context';
import { parseRange, type RouteApp, type TimeRange } from '../foundation';
import { selectEdges } from '../store/edges';
import { selectFanoutOperations, type FanoutOperationRow } from '../store/fanouts';
import { emptyFanoutsHint } from './empty-hint';
import type { Store } from '../store';
import { rangeSampling } from './sampling';
import { cachedAnswer } from '../cache';
import { clampRange } from './clamp-range';

const asQ = (v: readonly number[]): Quantiles => ({
  p50: v[0] ?? NaN,
  p95: v[1] ?? NaN,
  p99: v[2] ?? NaN,
  p999: v[3] ?? NaN,
});

/** The API record of one operation from its SQL aggregate (verdict and curve computed here). */
function toApiFanout(r: FanoutOperationRow): Fanout {
  const oneLeaf = asQ(r.oneLeaf);
  const p95Leaves = asQ(r.p95Leaves);
  const allLeaves = asQ(r.allLeaves);
  const amp = amplificationFromCounts(r.thresholdMs, r.callsAtMost, r.calls, r.widths);
  const structure = r.poolFanouts > r.parallelFanouts ? 'pool' : 'parallel';
  const verdict = fanoutVerdict(amp.verdict, structure, {
    tail: amp.tailFanouts,
    queued: r.queuedTailFanouts,
  });
  return {
    parentService: r.parentService,
    parentOperation: r.parentOperation,
    leafService: r.leafService,
    leafOperation: r.leafOperation,
    requests: r.requests,
    width: { p50: r.widthP50, max: r.widthMax },
    table1: {
      oneLeaf,
      p95Leaves,
      allLeaves,
      slowest5pctShareOfP99: slowestShare(allLeaves.p99, p95Leaves.p99),
    },
    amplification: { ...amp, verdict },
    curve: amplificationCurve(r.widths, amp.singleCallCdf),
    structure,
    concurrency: { p50: r.concurrencyP50, max: r.concurrencyMax },
    ...(structure === 'pool'
      ? { poolSize: r.poolSize, queueWaitMs: asQ(r.queueWaitMs.map((x) => x ?? NaN)) }
      : {}),
  };
}

export function fanoutRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.fanouts.path, { schema: FanoutsRoute }, async (req) => {
    const q = req.query;
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    return cachedAnswer(
      ctx.store,
      'fanouts',
      { ...q, asked: [range.fromMs, range.toMs] },
      range,
      () => answerFanouts(ctx.store, range, q),
    );
  });
}

/** The /api/v1/fanouts answer over the clamped `range` (kept by the answer cache). */
async function answerFanouts(
  store: Store,
  range: TimeRange,
  q: {
    parentService?: string | undefined;
    leafService?: string | undefined;
    leafOperation?: string | undefined;
    thresholdMs?: number | undefined;
    seed?: number | undefined;
  },
) {
  // First: whether any span carries a threshold decides which aggregate runs.
  const sampling = await rangeSampling(store, range);
  const rows = await selectFanoutOperations(
    store,
    {
      fromNs: range.fromNs,
      toNs: range.toNs,
      parentService: q.parentService,
      leafService: q.leafService,
      leafOperation: q.leafOperation,
    },
    { thresholdMs: q.thresholdMs, seed: q.seed ?? 1, weighted: sampling.weighted },
  );
  const fanouts = rows.map(toApiFanout);
  if (fanouts.length > 0) return { from: range.fromMs, to: range.toMs, fanouts, sampling };
  // None: say why, from the edges of the same range and services.
  const edges = await selectEdges(store, {
    fromNs: range.fromNs,
    toNs: range.toNs,
    parentService: q.parentService,
    leafService: q.leafService,
  });
  return { from: range.fromMs, to: range.toMs, fanouts, sampling, ...emptyFanoutsHint(edges) };
}
