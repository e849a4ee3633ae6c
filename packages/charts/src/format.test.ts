import { describe, expect, it } from 'vitest';
import { formatMs, formatPValue, formatPValueNamed } from './format';

describe('formatPValue', () => {
  it('says "< 1e-6" for what a test can only bound, never 0.0e+0', () => {
    expect(formatPValue(0)).toBe('< 1e-6');
    expect(formatPValue(6e-16)).toBe('< 1e-6');
    expect(formatPValue(2e-5)).toBe('< 0.001');
    expect(formatPValue(0.0123)).toBe('0.012');
    expect(formatPValue(Number.NaN)).toBe('–');
  });

  it('names the value with "=" or with its bound', () => {
    expect(formatPValueNamed('q', 0)).toBe('q < 1e-6');
    expect(formatPValueNamed('q', 0.04)).toBe('q = 0.04');
  });
});

describe('formatMs', () => {
  it('reads float noise below half a nanosecond as 0, and keeps a real nanosecond', () => {
    expect(formatMs(-1e-14)).toBe('0 ms');
    expect(formatMs(4e-7)).toBe('0 ms');
    expect(formatMs(1e-6)).toBe('0.001 µs');
    expect(formatMs(150)).toBe('150 ms');
  });
});
