import { describe, expect, it } from 'vitest';
import { requestTreesFromColumns, simulateRequestWhatIf } from '@tailscope/analysis';
import { randomTraceSpans, spanColumnsFromSpans } from '@tailscope/analysis/testing';
import { PREVIEW_BOOTSTRAP, requestCacheStats, runRequestColumns } from './request-cache';
import type { RequestColumnsJob } from './request-cache';

/** The worker's whole-request cache (request-cache.ts): hits, time to live, byte bound, preview. */
describe('runRequestColumns', () => {
  const columns = spanColumnsFromSpans(randomTraceSpans(3, 300, { duplicates: false }));
  const target = { leafService: 'route', leafOperation: 'op1' };
  const job = (over: Partial<RequestColumnsJob> = {}): RequestColumnsJob => ({
    kind: 'whatif-request-columns',
    key: 'k1',
    target,
    policy: { kind: 'hedge', delayPercentile: 90 },
    options: { seed: 2, preview: false },
    ttlMs: 1000,
    maxBytes: 1e9,
    ...over,
  });

  it('misses without columns, fills, then answers from the cache as the simulator does', () => {
    expect(runRequestColumns(job({ key: 'fresh' }), 0)).toEqual({ miss: true });
    const filled = runRequestColumns(job({ key: 'fresh', columns, readNotes: ['a sample'] }), 0);
    const hit = runRequestColumns(
      job({ key: 'fresh', policy: { kind: 'hedge', delayPercentile: 99 } }),
      10,
    );
    if (filled.miss || hit.miss) throw new Error('expected answers');
    expect(filled.cached).toBe(false);
    expect(hit.cached).toBe(true);
    expect(hit.ageMs).toBe(10);
    expect(hit.readNotes).toEqual(['a sample']);
    const trees = requestTreesFromColumns(columns);
    expect(hit.result).toEqual(
      simulateRequestWhatIf(trees, target, { kind: 'hedge', delayPercentile: 99 }, { seed: 2 }),
    );
    const preview = runRequestColumns(
      job({ key: 'fresh', options: { seed: 2, preview: true } }),
      20,
    );
    if (preview.miss) throw new Error('expected an answer');
    expect(preview.result).toEqual(
      simulateRequestWhatIf(
        trees,
        target,
        { kind: 'hedge', delayPercentile: 90 },
        { seed: 2, replays: 1, bootstrapSamples: PREVIEW_BOOTSTRAP },
      ),
    );
  });

  it('forgets an entry past its time to live', () => {
    runRequestColumns(job({ key: 'ttl', columns, ttlMs: 100 }), 0);
    expect(runRequestColumns(job({ key: 'ttl' }), 99).miss).toBe(false);
    expect(runRequestColumns(job({ key: 'ttl' }), 100)).toEqual({ miss: true });
  });

  it('keeps under its byte bound, least recently used out first', () => {
    // Later than every earlier test's entry lives: they are gone, this one alone counts.
    const T = 100_000;
    runRequestColumns(job({ key: 'a', columns }), T + 0);
    const one = requestCacheStats().bytes;
    expect(one).toBeGreaterThan(0);
    runRequestColumns(job({ key: 'b', columns }), T + 1);
    runRequestColumns(job({ key: 'a' }), T + 2); // a is now the most recent
    // Room for about two entries: the third pushes out the least recent (b), not a.
    runRequestColumns(job({ key: 'c', columns, maxBytes: 2.5 * one }), T + 3);
    expect(runRequestColumns(job({ key: 'b' }), T + 4)).toEqual({ miss: true });
    expect(runRequestColumns(job({ key: 'a', maxBytes: 2.5 * one }), T + 4).miss).toBe(false);
    expect(requestCacheStats().bytes).toBeLessThanOrEqual(2.5 * one + one);
  });
});
