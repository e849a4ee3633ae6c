import {
  capacityTrees,
  machinesForSlo,
  PREVIEW_REQUESTS,
  prepareCapacity,
  requestTreesFromColumns,
  sampleCapacity,
  simulateCapacityWhatIf,
  simulateRequestWhatIf,
  type CapacityChange,
  type CapacityWhatIf,
  type CpuReading,
  type EdgeTarget,
  type LoadChange,
  type MachinesForSlo,
  type PreparedCapacity,
  type RequestTrees,
  type RequestWhatIfResult,
  type SpanColumns,
  type WhatIfPolicy,
} from '@tailscope/analysis';
import { keptTrees, requestCacheStats, typedBytes } from '../cache/request-cache';

/**
 * Issue 29's load and machine-count what-if on an analysis thread: the requests' trees, the
 * capacity fit, the prediction, and (with a policy) the policy replayed on the requests
 * re-timed at the new load.
 *
 * The fit is kept (the fit cache): a job names what was read (`key`); a job without columns
 * answers from the kept fit or reports a miss, and the caller reads the spans and sends them.
 * These jobs run on the one thread of the whole-request replay (pool.ts), so the same key finds
 * its entry, and both caches together stay within `maxBytes`. A kept fit answers exactly as a
 * fresh one: the fit is a function of the trees and the seed, and its simulations are seeded.
 */
export interface CapacityJob {
  kind: 'capacity';
  /** What was (or would be) read, and the seed: the cache key of the fit. */
  key: string;
  /** The spans, when the main thread read them (after a miss); absent: answer from the cache. */
  columns?: SpanColumns;
  /**
   * The whole-request replay's trees key of the same read (request-cache.ts). With no kept fit
   * and no columns, a miss says whether that replay keeps these trees (`treesKept`); the caller
   * then sends the job again with `fromKeptTrees` and the CPU readings (no spans read), and the
   * kept trees are fitted: the same fit as from the columns read again.
   */
  treesKey?: string;
  fromKeptTrees?: boolean;
  /** Runtime metrics' CPU per instance over the range, sent with the columns (calibration). */
  cpu?: CpuReading[];
  /** What the read found worth saying (a sample), kept with the entry. */
  readNotes?: string[];
  changes: CapacityChange[];
  policy?: WhatIfPolicy;
  target: EdgeTarget;
  options: { seed: number; preview: boolean; sloMs?: number };
  /** How long a new entry lives, ms, and the caches' byte bound. */
  ttlMs: number;
  maxBytes: number;
}

export interface CapacityAnswerParts {
  capacity: CapacityWhatIf;
  /** The policy's replay at the new load (absent without a policy, or when saturated). */
  replay?: RequestWhatIfResult;
  machinesForSlo?: MachinesForSlo & { sloMs: number };
}

export type CapacityResult =
  | { miss: true; treesKept?: true }
  | (CapacityAnswerParts & {
      miss: false;
      cached: boolean;
      ageMs: number;
      readNotes: string[];
      /** The thread's time on this job, ms (the response's Server-Timing `compute`). */
      computeMs: number;
    });

interface Entry {
  prepared: PreparedCapacity;
  /** The preview's sample of the fit (sample.ts), made at the first preview. */
  preview?: PreparedCapacity;
  readNotes: string[];
  bytes: number;
  createdAt: number;
  expiresAt: number;
}

const fits = new Map<string, Entry>();

function evict(now: number, maxBytes: number, keep: string): void {
  for (const [k, e] of fits) if (e.expiresAt <= now && k !== keep) fits.delete(k);
  // The replay cache shares the thread's heap: its bytes count against the same bound.
  let total = requestCacheStats().bytes;
  for (const e of fits.values()) total += e.bytes;
  for (const [k, e] of fits) {
    if (total <= maxBytes) break;
    if (k === keep) continue;
    fits.delete(k);
    total -= e.bytes;
  }
}

/**
 * The kept fit of a job's key, or a new one from its columns or the replay's kept trees; else a
 * miss, saying whether the replay keeps the trees.
 */
function entryOf(
  job: CapacityJob,
  now: number,
): { entry: Entry; cached: boolean } | { miss: true; treesKept: boolean } {
  let entry = fits.get(job.key);
  if (entry && entry.expiresAt <= now) {
    fits.delete(job.key);
    entry = undefined;
  }
  let cached = entry !== undefined && job.columns === undefined;
  if (!entry) {
    const kept =
      job.columns === undefined && job.treesKey !== undefined
        ? keptTrees(job.treesKey, now)
        : undefined;
    let trees: RequestTrees;
    if (job.columns) trees = requestTreesFromColumns(job.columns);
    else if (kept && job.fromKeptTrees) trees = kept.trees;
    else return { miss: true, treesKept: kept !== undefined };
    const prepared = prepareCapacity(trees, {
      seed: job.options.seed,
      ...(job.cpu ? { cpu: job.cpu } : {}),
    });
    // From the replay's trees: no spans read (a hit, aged as that read), living no longer than
    // they do. Their bytes count in both caches: the bound errs on the side of evicting.
    cached = kept !== undefined;
    entry = {
      prepared,
      readNotes: kept ? kept.readNotes : (job.readNotes ?? []),
      bytes: typedBytes(prepared),
      createdAt: kept ? kept.createdAt : now,
      expiresAt: kept ? Math.min(kept.expiresAt, now + job.ttlMs) : now + job.ttlMs,
    };
  }
  fits.delete(job.key);
  fits.set(job.key, entry);
  return { entry, cached };
}

export function runCapacity(job: CapacityJob, now = Date.now()): CapacityResult {
  const t0 = performance.now();
  const found = entryOf(job, now);
  if ('miss' in found) return found.treesKept ? { miss: true, treesKept: true } : { miss: true };
  const { entry, cached } = found;
  const seed = job.options.seed;
  const preview = job.options.preview;
  if (preview && !entry.preview) {
    entry.preview = sampleCapacity(entry.prepared, PREVIEW_REQUESTS, seed);
    entry.bytes += typedBytes(entry.preview);
  }
  const prepared = preview && entry.preview ? entry.preview : entry.prepared;
  const parts = answer(prepared, job, seed, preview);
  evict(now, job.maxBytes, job.key);
  return {
    miss: false,
    cached,
    ageMs: now - entry.createdAt,
    readNotes: entry.readNotes,
    ...parts,
    computeMs: performance.now() - t0,
  };
}

function answer(
  prepared: PreparedCapacity,
  job: CapacityJob,
  seed: number,
  preview: boolean,
): CapacityAnswerParts {
  const bootstrapSamples = preview ? 200 : 1000;
  const capacity = simulateCapacityWhatIf(prepared, job.changes, { seed, bootstrapSamples });
  const sloMs = job.options.sloMs;
  const load: LoadChange = job.changes.find((c) => c.kind === 'load') ?? {
    kind: 'load',
    factor: 1,
  };
  const slo =
    sloMs === undefined
      ? {}
      : { machinesForSlo: { sloMs, ...machinesForSlo(prepared, load, sloMs, seed) } };
  if (!job.policy) return { capacity, ...slo };
  const { trees: atLoad } = capacityTrees(prepared, job.changes, seed);
  if (!atLoad) return { capacity, ...slo };
  const replay = simulateRequestWhatIf(atLoad, job.target, job.policy, {
    seed,
    ...(preview ? { replays: 1, bootstrapSamples: 200 } : {}),
  });
  return { capacity, replay, ...slo };
}

/** Fits kept and their bytes (for tests and the bench). */
export function capacityCacheStats(): { entries: number; bytes: number } {
  let bytes = 0;
  for (const e of fits.values()) bytes += e.bytes;
  return { entries: fits.size, bytes };
}
