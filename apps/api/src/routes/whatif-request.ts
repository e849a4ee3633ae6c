import type { ReplayWhatIfBody, WhatIfBody } from '@tailscope/contracts';
import type { RequestWhatIfResult } from '@tailscope/analysis';
import type { ApiContext } from './context';
import type { QueryBudgetError } from '../store/budget';
import { loadRequestColumns } from '../store/request-columns';
import {
  capWideParents,
  MAX_FANOUT_CALLS,
  sampledFanoutsOf,
  WIDE_FANOUT_SEED,
  wideFanoutNote,
} from '../store/wide-fanouts';
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
function treesKey(body: WhatIfBody, range: string, weights: boolean): string {
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

const MEMO_ENTRIES = 64;

/**
 * Per store, so two servers in one process (tests, an embedding app) never answer from each
 * other's reads; a store's maps go with it.
 */
interface Memo {
  reads: Map<string, { value: Promise<unknown>; expiresAt: number }>;
  overBudget: Map<string, { error: QueryBudgetError; expiresAt: number }>;
}
const memos = new WeakMap<object, Memo>();
function memoOf(store: object): Memo {
  let m = memos.get(store);
  if (!m) {
    m = { reads: new Map(), overBudget: new Map() };
    memos.set(store, m);
  }
  return m;
}

/** Drops the oldest entries past MEMO_ENTRIES (a Map iterates in insertion order). */
function trim(map: Map<string, unknown>): void {
  for (const k of map.keys()) {
    if (map.size <= MEMO_ENTRIES) break;
    map.delete(k);
  }
}

/**
 * A range's small reads (stored bounds, sampling) kept as long as its trees, for previews: at
 * 100,000 requests they cost more than the replay itself (measured 70-150 ms for the sampling
 * read under load). At most MEMO_ENTRIES per store, oldest out first.
 */
export function memoized<T>(
  store: object,
  key: string,
  ttlMs: number,
  read: () => Promise<T>,
): Promise<T> {
  const memo = memoOf(store).reads;
  const now = Date.now();
  const hit = memo.get(key);
  if (hit && hit.expiresAt > now) return hit.value as Promise<T>;
  const value = read();
  memo.delete(key);
  memo.set(key, { value, expiresAt: now + ttlMs });
  // A failed read is not kept.
  value.catch(() => memo.delete(key));
  trim(memo);
  return value;
}

/** A read that exceeded the query budget, remembered for `ttlMs` (at most MEMO_ENTRIES). */
export function rememberOverBudget(
  store: object,
  key: string,
  ttlMs: number,
  error: QueryBudgetError,
): void {
  const over = memoOf(store).overBudget;
  over.delete(key);
  over.set(key, { error, expiresAt: Date.now() + ttlMs });
  trim(over);
}

/** The remembered budget error of a read, while it lasts. */
export function overBudgetRead(store: object, key: string): QueryBudgetError | undefined {
  const over = memoOf(store).overBudget;
  const hit = over.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.error;
  over.delete(key);
  return undefined;
}

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
