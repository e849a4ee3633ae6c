import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  addFineHistogram,
  EPISODE_FINE_BINS_PER_OCTAVE,
  fineLatencyBin,
  mergeSortedHistograms,
  windowFromBins,
  windowFromFineHistogram,
} from './episode-histogram';
import { seriesWindow } from './episodes';

/** The fine histogram of raw durations (weights 1), as the SQL builds it. */
function fine(durations: readonly number[]): Map<number, [number, number]> {
  const h = new Map<number, [number, number]>();
  addFineHistogram(h, {
    bins: durations.map(fineLatencyBin),
    calls: durations.map(() => 1),
    weights: durations.map(() => 1),
  });
  return h;
}

const durations = fc.array(fc.integer({ min: 1, max: 5e10 }), { minLength: 1, maxLength: 400 });

describe('windowFromFineHistogram', () => {
  test.prop([durations], { numRuns: 200 })(
    'gives the rank test the exact quarter-octave histogram and quantiles within a bin',
    (ds) => {
      const exact = seriesWindow(7, ds);
      const got = windowFromFineHistogram(7, fine(ds));
      expect(got.calls).toBe(exact.calls);
      expect(got.weightedCalls).toBe(exact.weightedCalls);
      expect(got.buckets).toEqual(exact.buckets);
      expect(got.counts).toEqual(exact.counts);
      // The histogram names the bin of the call reaching the level, so its quantile lies
      // within a bin of the calls around the exact (interpolated) one.
      const sorted = [...ds].sort((x, y) => x - y);
      const near = (q: number, level: number): void => {
        const pos = level * (sorted.length - 1);
        const lo = (sorted[Math.floor(pos)] ?? 0) / 1e6;
        const hi = (sorted[Math.ceil(pos)] ?? 0) / 1e6;
        const bin = 1 / EPISODE_FINE_BINS_PER_OCTAVE;
        expect(Math.log2(q)).toBeGreaterThanOrEqual(Math.log2(lo) - bin);
        expect(Math.log2(q)).toBeLessThanOrEqual(Math.log2(hi) + bin);
      };
      near(got.p50Ms, 0.5);
      near(got.p99Ms, 0.99);
    },
  );

  test.prop([durations])('reads sorted bins as the merged map does', (ds) => {
    const h = fine(ds);
    const bins = [...h.keys()].sort((x, y) => x - y);
    const sorted = {
      bins,
      calls: bins.map((b) => h.get(b)?.[0] ?? 0),
      weights: bins.map((b) => (h.get(b)?.[1] ?? 0) * 1.5),
    };
    const viaMap = new Map(
      bins.map((b, i) => [b, [sorted.calls[i], sorted.weights[i]] as [number, number]]),
    );
    expect(windowFromBins(3, sorted)).toEqual(windowFromFineHistogram(3, viaMap));
  });

  test.prop([durations, durations])('merging parts equals the histogram of the whole', (a, b) => {
    const parts = fine(a);
    for (const [bin, [c, w]] of fine(b))
      addFineHistogram(parts, { bins: [bin], calls: [c], weights: [w] });
    expect(windowFromFineHistogram(1, parts)).toEqual(
      windowFromFineHistogram(1, fine([...a, ...b])),
    );
  });

  it('weighs quantiles by the weighted calls, tests on the stored calls', () => {
    // 100 calls at 1 ms of weight 1 and 100 calls at 10 ms of weight 2: weighted median 10 ms.
    const h = new Map<number, [number, number]>([
      [fineLatencyBin(1e6), [100, 100]],
      [fineLatencyBin(1e7), [100, 200]],
    ]);
    const w = windowFromFineHistogram(0, h);
    expect(w.calls).toBe(200);
    expect(w.weightedCalls).toBe(300);
    expect(Math.abs(w.p50Ms / 10 - 1)).toBeLessThan(0.011);
    expect(w.counts).toEqual([100, 100]);
  });
});

describe('mergeSortedHistograms', () => {
  /** A histogram with ascending distinct bins (as sumMap gives), weights with fractions. */
  const sortedHistogram = fc
    .uniqueArray(fc.integer({ min: 0, max: 1200 }), { maxLength: 60 })
    .chain((bins) =>
      fc.record({
        bins: fc.constant([...bins].sort((a, b) => a - b)),
        calls: fc.array(fc.integer({ min: 1, max: 1000 }), {
          minLength: bins.length,
          maxLength: bins.length,
        }),
        weights: fc.array(fc.double({ min: 0.5, max: 1e6, noNaN: true }), {
          minLength: bins.length,
          maxLength: bins.length,
        }),
      }),
    );

  test.prop([fc.array(sortedHistogram, { minLength: 1, maxLength: 5 })], { numRuns: 200 })(
    'gives the window the map gives, to the last bit',
    (hs) => {
      const viaMap = new Map<number, [number, number]>();
      for (const h of hs) addFineHistogram(viaMap, h);
      const merged = mergeSortedHistograms(hs);
      expect(merged).not.toBeNull();
      expect(windowFromBins(4, merged as NonNullable<typeof merged>)).toEqual(
        windowFromFineHistogram(4, viaMap),
      );
    },
  );

  it('declines bins that do not ascend', () => {
    const h = { bins: [5, 3], calls: [1, 1], weights: [1, 1] };
    expect(mergeSortedHistograms([h])).toBeNull();
  });
});
