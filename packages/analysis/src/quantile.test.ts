import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  countAtMost,
  quantileInclusive,
  quantileSummary,
  quantileUnsorted,
  selectKth,
  sortAscending,
} from './quantile';
import { fanoutPickHash, murmurHash3, pickIndex, randomFromSeed } from './hash';

const values = fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }), {
  minLength: 1,
  maxLength: 200,
});
const level = fc.double({ min: 0, max: 1, noNaN: true });

describe('type-7 quantiles', () => {
  it('interpolates as R type 7 / numpy linear', () => {
    const s = sortAscending([1, 2, 3, 4]);
    expect(quantileInclusive(s, 0.5)).toBe(2.5);
    expect(quantileInclusive(s, 0)).toBe(1);
    expect(quantileInclusive(s, 1)).toBe(4);
    expect(quantileInclusive(s, 0.99)).toBeCloseTo(3.97, 12);
    expect(quantileInclusive([], 0.5)).toBeNaN();
    expect(quantileInclusive([7], 0.3)).toBe(7);
  });

  test.prop([values, level, level])('monotone in q', (xs, q1, q2) => {
    const s = sortAscending(xs);
    const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1];
    expect(quantileInclusive(s, lo)).toBeLessThanOrEqual(quantileInclusive(s, hi));
  });

  test.prop([values, level, fc.integer()])('independent of input order', (xs, q, seed) => {
    const r = randomFromSeed(seed);
    const shuffled = [...xs];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j] as number, shuffled[i] as number];
    }
    expect(quantileInclusive(sortAscending(shuffled), q)).toBe(
      quantileInclusive(sortAscending(xs), q),
    );
    expect(quantileUnsorted(shuffled, q)).toBe(quantileInclusive(sortAscending(xs), q));
  });

  test.prop([values, values, level])(
    'merge equals whole: quantile of the merge of two sorted parts',
    (a, b, q) => {
      const sa = sortAscending(a);
      const sb = sortAscending(b);
      const merged = new Float64Array(sa.length + sb.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < sa.length || j < sb.length) {
        merged[k++] =
          j >= sb.length || (i < sa.length && (sa[i] as number) <= (sb[j] as number))
            ? (sa[i++] as number)
            : (sb[j++] as number);
      }
      expect(quantileInclusive(merged, q)).toBe(quantileInclusive(sortAscending([...a, ...b]), q));
    },
  );

  test.prop([values, values, fc.double({ min: -1e9, max: 1e9, noNaN: true })])(
    'ECDF counts of parts add up to the count of the whole',
    (a, b, t) => {
      expect(countAtMost(sortAscending(a), t) + countAtMost(sortAscending(b), t)).toBe(
        countAtMost(sortAscending([...a, ...b]), t),
      );
    },
  );

  test.prop([values, fc.nat()])('selectKth returns the k-th order statistic', (xs, k0) => {
    const k = (k0 % xs.length) + 1;
    const sorted = sortAscending(xs);
    expect(selectKth(Float64Array.from(xs), k)).toBe(sorted[k - 1]);
  });

  it('summarizes p50/p95/p99/p99.9', () => {
    const s = sortAscending(Array.from({ length: 1001 }, (_, i) => i));
    expect(quantileSummary(s)).toEqual({ p50: 500, p95: 950, p99: 990, p999: 999 });
  });
});

describe('hashing and picks', () => {
  it('murmurHash3 matches the reference vectors (and ClickHouse murmurHash3_32)', () => {
    expect(murmurHash3('')).toBe(0);
    expect(murmurHash3('hello')).toBe(613153351);
    expect(murmurHash3('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723);
    expect(murmurHash3('', 1)).toBe(0x514e28b7);
  });

  it('picks every index of a fan-out about equally often', () => {
    const n = 10;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < 20_000; i++) {
      const k = pickIndex(fanoutPickHash(3, `trace-${i}`, 'p'), n);
      counts[k] = (counts[k] as number) + 1;
    }
    // 2,000 expected per index; 5 sd of a binomial(20000, 0.1) is ~212.
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(212);
  });

  it('seeded generator is reproducible and uniform-looking', () => {
    const a = randomFromSeed(42);
    const b = randomFromSeed(42);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    // sd of the mean of 10,000 U(0,1) is 0.0029; 5 sd.
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.0145);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });
});
