import {
  prepareRequestWhatIf,
  requestTreesFromColumns,
  resolvePolicy,
  simulateRequestWhatIf,
  type EdgeTarget,
  type PreparedRequestWhatIf,
  type RequestTrees,
  type RequestWhatIfResult,
  type SpanColumns,
  type WhatIfPolicy,
} from '@tailscope/analysis';

/**
 * The whole-request what-if with a cache on the worker thread (issue #14, the dashboard slider):
 * successive answers for one range and edge (a slider moving) skip reading the spans, building
 * the trees and compiling the replay plan, which are most of a cold answer's time. One thread
 * runs these jobs (pool.ts), so the same key always finds its entry.
 *
 * Entries: per trees key (range, leaf operation, weights, limits: what was read), the trees, the
 * trace weights, and the prepared plans per (caller, policy family). Bounded by bytes (least
 * recently used out first) and by a time to live the caller chooses (short for a live range,
 * whose data still arrives).
 */

export interface RequestColumnsJob {
  kind: 'whatif-request-columns';
  /** What was (or would be) read: the cache key of the trees. */
  key: string;
  /** The spans, when the main thread read them (after a miss); absent: answer from the cache. */
  columns?: SpanColumns;
  traceWeights?: Record<string, number>;
  /** What the read found worth saying (a sample, a cut), kept with the entry. */
  readNotes?: string[];
  target: EdgeTarget;
  policy: WhatIfPolicy;
  options: { seed: number; preview: boolean };
  /** How long a new entry lives, ms. */
  ttlMs: number;
  /** The cache's byte bound. */
  maxBytes: number;
}

/** A miss (send the columns) or the answer, with whether the cache served it. */
export type RequestColumnsResult =
  | { miss: true }
  | {
      miss: false;
      cached: boolean;
      ageMs: number;
      readNotes: string[];
      result: RequestWhatIfResult;
    };

interface Entry {
  trees: RequestTrees;
  traceWeights?: Record<string, number>;
  plans: Map<string, PreparedRequestWhatIf>;
  readNotes: string[];
  bytes: number;
  createdAt: number;
  expiresAt: number;
}

const cache = new Map<string, Entry>();

/** Bootstrap resamples of a preview (as the browser's fan-out preview). */
export const PREVIEW_BOOTSTRAP = 200;

/** Bytes held by typed arrays reachable from `v` (the trees and plans are columns). */
export function typedBytes(v: unknown, seen = new Set<object>()): number {
  if (typeof v !== 'object' || v === null || seen.has(v)) return 0;
  seen.add(v);
  if (ArrayBuffer.isView(v)) return v.byteLength;
  let sum = 0;
  if (v instanceof Map) for (const x of v.values()) sum += typedBytes(x, seen);
  else if (Array.isArray(v)) {
    // Arrays of strings or numbers: ~16 bytes an element.
    sum += v.length * 16;
    if (v.length > 0 && typeof v[0] === 'object') for (const x of v) sum += typedBytes(x, seen);
  } else for (const x of Object.values(v)) sum += typedBytes(x, seen);
  return sum;
}

function evict(now: number, maxBytes: number, keep: string): void {
  for (const [k, e] of cache) if (e.expiresAt <= now && k !== keep) cache.delete(k);
  let total = 0;
  for (const e of cache.values()) total += e.bytes;
  // Map order is insertion order; a hit re-inserts, so the first entries are the least recent.
  for (const [k, e] of cache) {
    if (total <= maxBytes) break;
    if (k === keep) continue;
    cache.delete(k);
    total -= e.bytes;
  }
}

function planKey(target: EdgeTarget, policy: WhatIfPolicy): string {
  return JSON.stringify([
    target.parentService ?? null,
    target.parentOperation ?? null,
    resolvePolicy(policy).kind === 'pool',
  ]);
}

/** Answers one job from the cache, or fills it from the job's columns. */
export function runRequestColumns(job: RequestColumnsJob, now = Date.now()): RequestColumnsResult {
  let entry = cache.get(job.key);
  if (entry && entry.expiresAt <= now) {
    cache.delete(job.key);
    entry = undefined;
  }
  const cached = entry !== undefined && job.columns === undefined;
  if (!entry) {
    if (!job.columns) return { miss: true };
    const trees = requestTreesFromColumns(job.columns);
    entry = {
      trees,
      ...(job.traceWeights ? { traceWeights: job.traceWeights } : {}),
      plans: new Map(),
      readNotes: job.readNotes ?? [],
      bytes: typedBytes(trees) + (job.traceWeights ? trees.traceIds.length * 64 : 0),
      createdAt: now,
      expiresAt: now + job.ttlMs,
    };
  }
  cache.delete(job.key);
  cache.set(job.key, entry);
  const pk = planKey(job.target, job.policy);
  let prepared = entry.plans.get(pk);
  if (!prepared) {
    prepared = prepareRequestWhatIf(entry.trees, job.target, job.policy);
    entry.plans.set(pk, prepared);
    entry.bytes += typedBytes(prepared.plan) + typedBytes(prepared.mask);
  }
  const result = simulateRequestWhatIf(entry.trees, job.target, job.policy, {
    seed: job.options.seed,
    prepared,
    ...(job.options.preview ? { replays: 1, bootstrapSamples: PREVIEW_BOOTSTRAP } : {}),
    ...(entry.traceWeights ? { traceWeights: entry.traceWeights } : {}),
  });
  evict(now, job.maxBytes, job.key);
  return { miss: false, cached, ageMs: now - entry.createdAt, readNotes: entry.readNotes, result };
}

/**
 * The trees kept under a trees key, if any and not expired: a capacity job (capacity-job.ts)
 * fits them rather than reading the same spans again. Counts as a use (most recent).
 */
export function keptTrees(
  key: string,
  now = Date.now(),
): Pick<Entry, 'trees' | 'readNotes' | 'createdAt' | 'expiresAt'> | undefined {
  const entry = cache.get(key);
  if (!entry || entry.expiresAt <= now) return undefined;
  cache.delete(key);
  cache.set(key, entry);
  return entry;
}

/** Entries and bytes held (for tests and the bench). */
export function requestCacheStats(): { entries: number; bytes: number } {
  let bytes = 0;
  for (const e of cache.values()) bytes += e.bytes;
  return { entries: cache.size, bytes };
}
