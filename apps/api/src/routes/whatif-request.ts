import type { ReplayWhatIfBody, WhatIfBody } from '@tailscope/contracts';
import type { RequestWhatIfResult } from '@tailscope/analysis';
import type { ApiContext } from './context';
import { loadRequestColumns } from '../store/requests/columns';
import {
  capWideParents,
  MAX_FANOUT_CALLS,
  sampledFanoutsOf,
  WIDE_FANOUT_SEED,
  wideFanoutNote,
} from '../store/fanouts/wide';
import type { AnalysisPool } from '../whatif-worker/pool';

/**
 * Whole requests (traces) replayed at most: 100,000 of the `microservices` preset are 5.9M
 * spans, 260 MB as columns (request-columns.ts). Beyond, a uniform sample (said in the notes).
 */
export const MAX_REQUEST_TREES = 100_000;
/** Spans read for them at most (the last requests may be partial; said in the notes). */
export const MAX_REQUEST_SPANS = 8_000_000;

/**
 * A range whose end is this recent (or absent: now) is live: spans still arrive, and "now"
 * moves, so its cached trees live REQUEST_CACHE_LIVE_TTL_MS; a past range's live
 * REQUEST_CACHE_TTL_MS (late spans are rare there).
 */
const LIVE_MS = 60_000;
const REQUEST_CACHE_LIVE_TTL_MS = 15_000;
const REQUEST_CACHE_TTL_MS = 5 * 60_000;

/** The cache's byte bound: half the query budget's memory, at most 1 GiB. */
export const cacheBytes = (ctx: ApiContext): number =>
  Math.min(1024 ** 3, Math.floor(ctx.store.budget.maxMemoryBytes / 2));

/**
 * The range as a cache key, and how long what is read over it may be kept. A live range is
 * keyed by the body's own from/to (absent `to`: now), so a slider's answers share it while
 * "now" moves; a past range by its instants.
 */
export function rangeCache(
  body: WhatIfBody,
  asked: { fromNs: bigint; toNs: bigint; toMs: number },
): { key: string; live: boolean; ttlMs: number } {
  const live = asked.toMs > Date.now() - LIVE_MS;
  return {
    key: JSON.stringify(
      live
        ? ['live', body.from ?? null, body.to ?? null]
        : [asked.fromNs.toString(), asked.toNs.toString()],
    ),
    live,
    ttlMs: live ? REQUEST_CACHE_LIVE_TTL_MS : REQUEST_CACHE_TTL_MS,
  };
}

/** The trees' cache key: the range and everything else that decides what is read. */
export function treesKey(body: WhatIfBody, range: string, weights: boolean): string {
  return JSON.stringify([
    range,
    body.leafService,
    body.leafOperation,
    weights,
    MAX_REQUEST_TREES,
    MAX_REQUEST_SPANS,
    MAX_FANOUT_CALLS,
  ]);
}

/** Where a wide fan-out was sampled, in the notes. */
const WHOLE = 'whole requests';

/**
 * The whole-request replay (issue #14): the requests holding the leaf operation, their call
 * trees, the edge re-timed in them. The trees and the replay plan stay cached on the analysis
 * worker (request-cache.ts): the first answer for a range reads and builds them, the next ones
 * (a slider moving) only replay. Null when no request with a root span holds the edge.
 */
export async function replayWholeRequests(
  ctx: ApiContext,
  pool: AnalysisPool,
  body: ReplayWhatIfBody,
  asked: { fromNs: bigint; toNs: bigint; toMs: number },
  cancel: AbortSignal,
  weights: boolean,
): Promise<{
  result: RequestWhatIfResult;
  notes: string[];
  /** Whether the replay cache answered, and how long ago it read the spans. */
  cache: { hit: boolean; ageMs: number };
  /** Spans of more than MAX_FANOUT_CALLS children whose children were sampled. */
  sampledFanouts: number;
} | null> {
  const { key: rangeKey, ttlMs } = rangeCache(body, asked);
  const target = {
    leafService: body.leafService,
    leafOperation: body.leafOperation,
    ...(body.parentService !== undefined ? { parentService: body.parentService } : {}),
    ...(body.parentOperation !== undefined ? { parentOperation: body.parentOperation } : {}),
  };
  const job = {
    kind: 'whatif-request-columns' as const,
    key: treesKey(body, rangeKey, weights),
    target,
    policy: body.policy,
    options: { seed: body.seed ?? 1, preview: body.quality === 'preview' },
    ttlMs,
    maxBytes: cacheBytes(ctx),
  };
  let reply = await pool.run(job, cancel);
  if (reply.miss) {
    const loaded = await loadRequestColumns(
      ctx.store,
      {
        fromNs: asked.fromNs,
        toNs: asked.toNs,
        leafService: body.leafService,
        leafOperation: body.leafOperation,
      },
      { maxTraces: MAX_REQUEST_TREES, maxSpans: MAX_REQUEST_SPANS },
      { weights },
    );
    if (!loaded) return null;
    // One huge fan-out must not make the replay unusable (issue 25): bounded children per span.
    const capped = capWideParents(loaded.columns, MAX_FANOUT_CALLS, WIDE_FANOUT_SEED);
    reply = await pool.run(
      {
        ...job,
        columns: capped.columns,
        readNotes: [
          ...(capped.sampledFanouts > 0 ? [wideFanoutNote(capped.sampledFanouts, WHOLE)] : []),
          ...(loaded.sampled
            ? [
                `more than ${MAX_REQUEST_TREES} requests matched: a uniform sample of ${MAX_REQUEST_TREES} was replayed whole`,
              ]
            : []),
          ...(loaded.truncated
            ? [`span limit (${MAX_REQUEST_SPANS}) reached: the last requests may be partial`]
            : []),
        ],
        ...(loaded.traceWeights ? { traceWeights: loaded.traceWeights } : {}),
      },
      cancel,
    );
  }
  if (reply.miss) return null;
  const { result } = reply;
  if (Number.isNaN(result.request.baseline.p50)) return null; // no request holds the edge
  // The cache is not in the notes: the same body answers the same, read now or from the cache.
  return {
    result,
    notes: reply.readNotes,
    cache: { hit: reply.cached, ageMs: reply.ageMs },
    // From the notes, which the replay cache keeps with the trees.
    sampledFanouts: sampledFanoutsOf(reply.readNotes, WHOLE),
  };
}
