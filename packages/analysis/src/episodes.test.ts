import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  detectEpisodes,
  episodeWindowSeconds,
  hypergeometricUpperTail,
  seriesWindow,
  type Series,
} from './episodes';
import { SeededRandom } from './random';
import { logFactorial } from './stats';

/** Lognormal latency in ns: median `medianMs`, log-sd `sigma`. */
function lognormalNs(r: SeededRandom, medianMs: number, sigma: number): number {
  const u = Math.max(r.float(), 1e-12);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.float());
  return medianMs * 1e6 * Math.exp(sigma * z);
}

/**
 * `count` steady series of `windows` windows (i.i.d. lognormal, 2 ms median, ~`perWindow`
 * calls each); `slow` plants a slowdown x`factor` on series 0 over windows [from, to).
 */
function steadySeries(
  seed: number,
  count: number,
  windows: number,
  perWindow: number,
  slow?: { from: number; to: number; factor: number },
): Series[] {
  const r = new SeededRandom(seed);
  return Array.from({ length: count }, (_, s) => ({
    key: `svc-${s}`,
    windows: Array.from({ length: windows }, (_, w) => {
      const n = Math.max(1, Math.round(perWindow * (0.7 + 0.6 * r.float())));
      const f = slow && s === 0 && w >= slow.from && w < slow.to ? slow.factor : 1;
      return seriesWindow(
        1000 + w,
        Array.from({ length: n }, () => lognormalNs(r, 2, 0.5) * f),
      );
    }),
  }));
}

const windowMs = 10_000;

describe('detectEpisodes', () => {
  it('finds a planted slowdown with its start and end windows', () => {
    const series = steadySeries(7, 5, 120, 40, { from: 50, to: 62, factor: 5 });
    const { episodes, windowsTested } = detectEpisodes(series, { windowMs });
    expect(windowsTested).toBe(600);
    expect(episodes).toHaveLength(1);
    const e = episodes[0];
    expect(e?.key).toBe('svc-0');
    expect(e?.fromMs).toBe(1050 * windowMs);
    expect(e?.toMs).toBe(1062 * windowMs);
    expect(e?.ratio).toBeGreaterThan(3);
    expect(e?.qValue).toBeLessThan(1e-6);
    expect(e?.baselineP99Ms).toBeGreaterThan(2);
  });

  it('finds a tail-only fault (10% of calls x20) through the p95 split', () => {
    const r = new SeededRandom(3);
    const windows = Array.from({ length: 60 }, (_, w) =>
      seriesWindow(
        w,
        Array.from({ length: 100 }, () => {
          const d = lognormalNs(r, 2, 0.3);
          return w >= 30 && w < 33 && r.float() < 0.1 ? d * 20 : d;
        }),
      ),
    );
    const { episodes } = detectEpisodes([{ key: 'tail', windows }], { windowMs });
    expect(episodes.map((e) => [e.fromMs / windowMs, e.toMs / windowMs])).toEqual([[30, 33]]);
  });

  // The stated rate: BH at alpha = 0.05 keeps P(any episode | no episode anywhere) <= 0.05.
  // 40 fixed seeds of 20 series x 100 windows: at most 2 runs with any episode (expected <= 2,
  // and the ratio filter removes most of those).
  it('flags no episode on i.i.d. data at the stated rate', () => {
    let runsWithEpisodes = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { episodes } = detectEpisodes(steadySeries(seed, 20, 100, 30), { windowMs });
      if (episodes.length > 0) runsWithEpisodes++;
    }
    expect(runsWithEpisodes).toBeLessThanOrEqual(2);
  });

  test.prop([fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 })], {
    numRuns: 15,
  })('is invariant under series and window order', (seed, shuffleSeed) => {
    const series = steadySeries(seed, 4, 40, 20, { from: 10, to: 14, factor: 4 });
    const r = new SeededRandom(shuffleSeed);
    const shuffle = <T>(xs: readonly T[]): T[] => {
      const a = [...xs];
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(r.float() * (i + 1));
        [a[i], a[j]] = [a[j] as T, a[i] as T];
      }
      return a;
    };
    const shuffled = shuffle(series).map((s) => ({ ...s, windows: shuffle(s.windows) }));
    expect(detectEpisodes(shuffled, { windowMs })).toEqual(detectEpisodes(series, { windowMs }));
  });

  it('does not test windows or series with too few calls', () => {
    const series = steadySeries(2, 1, 5, 40);
    expect(detectEpisodes(series, { windowMs }).windowsTested).toBe(0);
    const sparse = steadySeries(2, 1, 50, 2);
    expect(detectEpisodes(sparse, { windowMs, minCalls: 5 }).windowsTested).toBe(0);
  });
});

describe('hypergeometricUpperTail', () => {
  it('matches a direct sum', () => {
    // N=20, K=7, d=5: P(X >= 3) summed by hand from C(7,x) C(13,5-x) / C(20,5).
    const c = (n: number, k: number): number => {
      let v = 1;
      for (let i = 1; i <= k; i++) v = (v * (n - k + i)) / i;
      return v;
    };
    const direct = [3, 4, 5].reduce((s, x) => s + c(7, x) * c(13, 5 - x), 0) / c(20, 5);
    expect(hypergeometricUpperTail(3, 20, 7, 5)).toBeCloseTo(direct, 12);
    expect(hypergeometricUpperTail(0, 20, 7, 5)).toBe(1);
    expect(hypergeometricUpperTail(6, 20, 7, 5)).toBe(0);
  });

  /** Every term of the tail from log-factorials, none skipped: the definition. */
  const directTail = (a: number, n: number, k: number, d: number): number => {
    const logC = (m: number, r: number): number =>
      logFactorial(m) - logFactorial(r) - logFactorial(m - r);
    let sum = 0;
    for (let x = Math.max(a, 0, d - (n - k)); x <= Math.min(k, d); x++)
      sum += Math.exp(logC(k, x) + logC(n - k, d - x) - logC(n, d));
    return Math.min(1, sum);
  };

  test.prop(
    [
      fc
        .record({
          n: fc.integer({ min: 1, max: 200_000 }),
          k: fc.integer({ min: 0, max: 1000 }),
          d: fc.integer({ min: 0, max: 1000 }),
          a: fc.integer({ min: 0, max: 1200 }),
        })
        .map(({ n, k: kP, d: dP, a: aP }) => {
          // Shares in thousandths: fast-check's doubles gather at 0 and 1, and the tails near
          // the mode (where both branches meet) need the middle.
          const k = Math.round((kP / 1000) * n);
          const d = Math.min(Math.round((dP / 1000) * n), 5000);
          return { n, k, d, a: Math.round((aP / 1000) * Math.min(k, d)) };
        }),
    ],
    { numRuns: 300, seed: 28 },
  )(
    'is the direct sum within 1e-12 (absolute) and 1e-9 (relative), on both sides of the mode',
    ({ n, k, d, a }) => {
      const got = hypergeometricUpperTail(a, n, k, d);
      const want = directTail(a, n, k, d);
      expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-12 + 1e-9 * want);
    },
  );
});

describe('episodeWindowSeconds', () => {
  it('aims at 100-300 windows, never under 10 s', () => {
    expect(episodeWindowSeconds(60_000)).toBe(10);
    expect(episodeWindowSeconds(3_600_000)).toBe(20);
    expect(episodeWindowSeconds(86_400_000)).toBe(300);
    for (const h of [1, 2, 6, 24, 24 * 7, 24 * 30]) {
      const w = episodeWindowSeconds(h * 3_600_000);
      const n = (h * 3600) / w;
      expect(n).toBeLessThanOrEqual(300);
      expect(n).toBeGreaterThanOrEqual(100);
    }
  });
});
