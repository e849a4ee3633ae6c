import { describe, expect, it } from 'vitest';
import { RateMeter } from './rate';

describe('RateMeter', () => {
  it('averages over the time elapsed, then over the last minute', () => {
    let now = 1_000_000;
    const meter = new RateMeter(() => now);
    meter.record(500);
    now += 10_000;
    meter.record(500);
    expect(meter.perSecond()).toBe(100);
    now += 55_000;
    // The first 500 fell out of the window; the second is still in it.
    expect(meter.perSecond()).toBeCloseTo(500 / 60, 6);
    now += 120_000;
    expect(meter.perSecond()).toBe(0);
  });
});
