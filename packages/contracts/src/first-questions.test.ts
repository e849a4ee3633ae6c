import { describe, expect, it } from 'vitest';
import { LEAF_CALL_BUDGET, leafFanoutCap } from './first-questions';

describe('leafFanoutCap', () => {
  it('asks for every fan-out while they hold at most the budget of calls', () => {
    expect(leafFanoutCap({ requests: 20_000, width: { p50: 30 } })).toBeUndefined();
    expect(leafFanoutCap({ requests: LEAF_CALL_BUDGET / 50, width: { p50: 50 } })).toBeUndefined();
    // Single-call operations: the API's own default cap applies.
    expect(leafFanoutCap({ requests: 5_000_000, width: { p50: 1 } })).toBeUndefined();
  });

  it('samples fan-outs down to about the budget of calls past it', () => {
    // 10M spans of bigtable-multiget: ~50,000 fan-outs of 100 calls.
    const cap = leafFanoutCap({ requests: 49_701, width: { p50: 100 } });
    expect(cap).toBe(LEAF_CALL_BUDGET / 100);
    expect((cap ?? 0) * 100).toBeLessThanOrEqual(LEAF_CALL_BUDGET);
    // Very wide fan-outs keep enough requests for a p99.
    expect(leafFanoutCap({ requests: 50_000, width: { p50: 5_000 } })).toBe(1000);
    // A width of 0 (no calls recorded) reads as 1.
    expect(leafFanoutCap({ requests: 2_000_000, width: { p50: 0 } })).toBeUndefined();
  });
});
