import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { concurrencyLimit } from './queue';

/** 1 + the most earlier calls (by index) departing strictly after a call: the definition. */
function bruteForce(arrival: Float64Array, departure: Float64Array): number {
  let most = 0;
  for (let i = 0; i < arrival.length; i++) {
    let over = 0;
    for (let j = 0; j < i; j++) if (departure[j]! > departure[i]!) over++;
    most = Math.max(most, over);
  }
  return most + 1;
}

/** Calls as (gap before the arrival, duration) pairs, arrivals ascending. */
const calls = (maxGap: number, minDuration: number) =>
  fc
    .array(
      fc.tuple(fc.integer({ min: 0, max: maxGap }), fc.integer({ min: minDuration, max: 40 })),
      { maxLength: 300 },
    )
    .map((xs) => {
      const arrival = new Float64Array(xs.length);
      const departure = new Float64Array(xs.length);
      let t = 0;
      xs.forEach(([gap, dur], i) => {
        t += gap;
        arrival[i] = t;
        departure[i] = t + dur;
      });
      return { arrival, departure };
    });

describe('concurrencyLimit: the calls in flight counted as over every earlier call', () => {
  test.prop([calls(10, 0)])('equals the definition (ties in arrival and departure)', (c) => {
    expect(concurrencyLimit(c.arrival, c.departure)).toBe(bruteForce(c.arrival, c.departure));
  });

  test.prop([calls(0, 0)])('equals it with every call in flight at once (beyond the scan)', (c) => {
    expect(concurrencyLimit(c.arrival, c.departure)).toBe(bruteForce(c.arrival, c.departure));
  });

  test.prop([calls(10, -5)])('equals it when a departure precedes its arrival', (c) => {
    expect(concurrencyLimit(c.arrival, c.departure)).toBe(bruteForce(c.arrival, c.departure));
  });
});
