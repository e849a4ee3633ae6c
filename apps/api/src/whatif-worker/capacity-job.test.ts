import { describe, expect, it } from 'vitest';
import {
  PREVIEW_REQUESTS,
  prepareCapacity,
  requestTreesFromColumns,
  sampleCapacity,
  simulateCapacityWhatIf,
  type CapacityChange,
} from '@tailscope/analysis';
import { randomTraceSpans, spanColumnsFromSpans } from '@tailscope/analysis/testing';
import { runRequestColumns } from '../cache/request-cache';
import { capacityCacheStats, runCapacity, type CapacityJob } from './capacity-job';

/** The capacity fit cache (capacity-job.ts): misses, hits, and answers equal to a fresh fit. */
describe('runCapacity', () => {
  const columns = spanColumnsFromSpans(randomTraceSpans(4, 400, { duplicates: false }));
  const target = { leafService: 'route', leafOperation: 'op1' };
  const job = (over: Partial<CapacityJob> = {}): CapacityJob => ({
    kind: 'capacity',
    key: 'k1',
    changes: [{ kind: 'load', factor: 1.5 }],
    target,
    options: { seed: 2, preview: false },
    ttlMs: 1000,
    maxBytes: 1e9,
    ...over,
  });
  const fresh = (changes: CapacityChange[], seed: number) =>
    simulateCapacityWhatIf(prepareCapacity(requestTreesFromColumns(columns), { seed }), changes, {
      seed,
      bootstrapSamples: 1000,
    });

  it('misses without columns, fills, then answers from the kept fit as a fresh fit does', () => {
    expect(runCapacity(job({ key: 'a' }), 0)).toEqual({ miss: true });
    const filled = runCapacity(job({ key: 'a', columns, readNotes: ['a sample'] }), 0);
    // A second change on the kept fit (its simulations of 1.5x kept too) ...
    const two: CapacityChange[] = [{ kind: 'load', factor: 2 }];
    const hit = runCapacity(job({ key: 'a', changes: two }), 10);
    const again = runCapacity(job({ key: 'a' }), 20);
    if (filled.miss || hit.miss || again.miss) throw new Error('expected answers');
    expect([filled.cached, hit.cached, again.cached]).toEqual([false, true, true]);
    expect(hit.ageMs).toBe(10);
    expect(hit.readNotes).toEqual(['a sample']);
    // ... answers exactly as a fit made for it alone.
    expect(hit.capacity).toEqual(fresh(two, 2));
    expect(again.capacity).toEqual(filled.capacity);
    expect(filled.capacity).toEqual(fresh([{ kind: 'load', factor: 1.5 }], 2));
  });

  it("fits the whole-request replay's kept trees of the same read, as from the columns", () => {
    // The replay read these requests (trees key 'r'): no kept fit, no columns.
    runRequestColumns(
      {
        kind: 'whatif-request-columns',
        key: 'r',
        columns,
        readNotes: ['read note'],
        target,
        policy: { kind: 'hedge', delayPercentile: 90 },
        options: { seed: 2, preview: false },
        ttlMs: 1000,
        maxBytes: 1e9,
      },
      100,
    );
    expect(runCapacity(job({ key: 'kept', treesKey: 'r' }), 150)).toEqual({
      miss: true,
      treesKept: true,
    });
    expect(runCapacity(job({ key: 'kept', treesKey: 'none' }), 150)).toEqual({ miss: true });
    const kept = runCapacity(job({ key: 'kept', treesKey: 'r', fromKeptTrees: true }), 160);
    if (kept.miss) throw new Error('expected an answer');
    // No spans read: a hit aged as the replay's read, with its notes; the same fit.
    expect([kept.cached, kept.ageMs, kept.readNotes]).toEqual([true, 60, ['read note']]);
    expect(kept.capacity).toEqual(fresh([{ kind: 'load', factor: 1.5 }], 2));
    // It lives no longer than the trees (read at 100, kept 1000 ms).
    expect(runCapacity(job({ key: 'kept' }), 1099).miss).toBe(false);
    expect(runCapacity(job({ key: 'kept' }), 1100)).toEqual({ miss: true });
  });

  it('keys the seed in: another seed is another entry', () => {
    const s3 = runCapacity(job({ key: 'a/3', columns, options: { seed: 3, preview: false } }), 0);
    if (s3.miss) throw new Error('expected an answer');
    expect(s3.capacity).toEqual(fresh([{ kind: 'load', factor: 1.5 }], 3));
  });

  it('answers a preview from the sample of the kept fit, the same each time', () => {
    const preview = { seed: 2, preview: true };
    const p1 = runCapacity(job({ key: 'p', columns, options: preview }), 0);
    const p2 = runCapacity(job({ key: 'p', options: preview }), 1);
    if (p1.miss || p2.miss) throw new Error('expected answers');
    expect(p2.cached).toBe(true);
    expect(p2.capacity).toEqual(p1.capacity);
    const sample = sampleCapacity(
      prepareCapacity(requestTreesFromColumns(columns), { seed: 2 }),
      PREVIEW_REQUESTS,
      2,
    );
    expect(p1.capacity).toEqual(
      simulateCapacityWhatIf(sample, [{ kind: 'load', factor: 1.5 }], {
        seed: 2,
        bootstrapSamples: 200,
      }),
    );
  });

  it('expires entries and keeps within the byte bound', () => {
    runCapacity(job({ key: 'ttl', columns }), 0);
    expect(runCapacity(job({ key: 'ttl' }), 1000)).toEqual({ miss: true });
    runCapacity(job({ key: 'small1', columns, maxBytes: 1 }), 2000);
    runCapacity(job({ key: 'small2', columns, maxBytes: 1 }), 2000);
    // Only the entry just used stays (it is never evicted by its own answer).
    expect(capacityCacheStats().entries).toBe(1);
    expect(runCapacity(job({ key: 'small2' }), 2001).miss).toBe(false);
  });
});
