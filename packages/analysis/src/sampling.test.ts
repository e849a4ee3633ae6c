import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { adjustedCount, otTraceStateValue, parseSamplingThreshold, spanWeight } from './sampling';

describe('OpenTelemetry sampling threshold', () => {
  it('reads the spec examples: th:0 keeps all, th:8 half, th:c a quarter', () => {
    expect(adjustedCount('ot=th:0')).toBe(1);
    expect(adjustedCount('ot=th:8')).toBe(2);
    expect(adjustedCount('ot=th:c')).toBe(4);
    expect(adjustedCount('ot=th:f')).toBe(16);
    // 1/3 kept: T = 0xaaaaaaaaaaaaab (the spec's rounding of 2/3 * 2^56).
    expect(adjustedCount('ot=th:aaaaaaaaaaaaab')).toBeCloseTo(3, 12);
  });

  it('pads to 14 digits on the right: th:8 is 0x80000000000000', () => {
    expect(parseSamplingThreshold('ot=th:8')).toBe(0x80000000000000n);
    expect(parseSamplingThreshold('ot=th:08')).toBe(0x08000000000000n);
    expect(parseSamplingThreshold('ot=th:ffffffffffffff')).toBe((1n << 56n) - 1n);
  });

  it('finds ot among other members and th among other sub-keys', () => {
    expect(otTraceStateValue('congo=t61rcWkgMzE, ot=rv:abc;th:4')).toBe('rv:abc;th:4');
    expect(
      adjustedCount('congo=t61rcWkgMzE, ot=rv:abcdefabcdefab;th:4,rojo=00f067aa0ba902b7'),
    ).toBe(1 / 0.75);
    expect(adjustedCount('xot=th:8')).toBeNull();
  });

  it('gives no information for absent or invalid thresholds', () => {
    for (const ts of [
      '',
      'rojo=1',
      'ot=rv:1234',
      'ot=th:',
      'ot=th:123456789abcdef',
      'ot=th:ABC',
      'ot=th:8x',
      'ot=p:8',
    ]) {
      expect(parseSamplingThreshold(ts), ts).toBeNull();
      expect(spanWeight(ts), ts).toBe(1);
    }
  });

  test.prop([fc.bigInt({ min: 0n, max: (1n << 56n) - 1n })])(
    'adjusted count is >= 1 and grows with the threshold',
    (t) => {
      const hex = t.toString(16).padStart(14, '0').replace(/0+$/, '') || '0';
      const w = adjustedCount(`ot=th:${hex}`);
      expect(parseSamplingThreshold(`ot=th:${hex}`)).toBe(t);
      expect(w).not.toBeNull();
      expect(w as number).toBeGreaterThanOrEqual(1);
      const next = t + 1n < 1n << 56n ? t + 1n : t;
      const hex2 = next.toString(16).padStart(14, '0');
      expect(adjustedCount(`ot=th:${hex2}`) as number).toBeGreaterThanOrEqual(w as number);
    },
  );
});
