import { describe, expect, it } from 'vitest';
import { attributeStragglers } from './attribution';
import { randomFromSeed } from './hash';
import { buildLeafCalls, type FanoutRecord } from './leaf-calls-builder';

/**
 * A cause must explain time, once (issue 24): hosts whose calls only *start* late are the last
 * to finish more often (significant, RR > 1) but are faster, so giving them the others'
 * latencies does not lower the p99; and a small host with no straggler had a Haldane-corrected
 * risk ratio of x2.2.
 */
function lateStarters(): FanoutRecord[] {
  const rnd = randomFromSeed(7);
  const fanouts: FanoutRecord[] = [];
  for (let f = 0; f < 4000; f++) {
    const calls = [];
    for (let c = 0; c < 10; c++) {
      // host-0 starts its call 40 ms after the others (dispatch order) and is faster than them:
      // it finishes last more often, yet giving it the others' latencies would raise the p99.
      const host = `host-${String(c)}`;
      calls.push({
        startMs: c === 0 ? 40 : 0,
        durationMs: 5 + (c === 0 ? 6 : 10) * -Math.log(1 - rnd()),
        host,
        mode: 'dedicated',
        background: 'none',
      });
    }
    // One call in 400 fan-outs goes to a tiny, fast host: it is never the straggler.
    if (f % 400 === 0)
      calls.push({
        startMs: 0,
        durationMs: 1,
        host: 'tiny',
        mode: 'dedicated',
        background: 'none',
      });
    fanouts.push({ traceId: `t${String(f)}`, parentSpanId: 'p', startMs: f * 10, calls });
  }
  return fanouts;
}

describe('the cause rule', () => {
  const result = attributeStragglers(buildLeafCalls(lateStarters()), {
    dimensions: ['host'],
    seed: 5,
  });
  const row = (value: string) => {
    const r = result.rows.find((x) => x.value === value);
    if (!r) throw new Error(`no row ${value}`);
    return r;
  };

  it('does not call a value a cause when the p99 would not drop without it', () => {
    const late = row('host-0');
    expect(late.qValue).toBeLessThan(0.05);
    expect(late.riskRatio).toBeGreaterThan(1);
    expect(late.p99DropMs).not.toBeNull();
    expect(late.p99DropMs).toBeLessThanOrEqual(0);
    expect(late.cause).toBe(false);
  });

  it('gives a value with no straggler the observed risk ratio 0, inside its interval', () => {
    const tiny = row('tiny');
    expect(tiny.stragglers).toBe(0);
    expect(tiny.riskRatio).toBe(0);
    expect(tiny.riskRatioHigh).toBeGreaterThan(0);
    expect(tiny.cause).toBe(false);
  });

  it('keeps every cause explaining time', () => {
    for (const r of result.rows.filter((x) => x.cause)) {
      expect(r.stragglers).toBeGreaterThan(0);
      expect(r.p99DropMs).toBeGreaterThan(0);
    }
  });
});
