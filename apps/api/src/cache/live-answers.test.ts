import { describe, expect, it } from 'vitest';
import { LiveAnswers, liveAnswersFromEnv, liveFamily } from './live-answers';

const answer = (fromMs: number, toMs: number, computedAt: number, payload = `{"to":${toMs}}`) => ({
  payload,
  contentType: 'application/json',
  fromMs,
  toMs,
  computedAt,
});

describe('live answers', () => {
  it('serves a slow answer to the same question over a grown or moved live range, while young', () => {
    const HOUR = 3_600_000;
    const live = new LiveAnswers({
      maxAgeMs: 300_000,
      refreshAfterMs: 30_000,
      minComputeMs: 1_000,
    });
    const fam = liveFamily('/api/v1/fanouts', { from: '1', to: '2', leafService: 'kv' });
    live.keep(fam, answer(0, HOUR, HOUR), 4_000);
    // "All data" seconds later: same start, later end.
    const hit = live.lookup(fam, { fromMs: 0, toMs: HOUR + 3_000 }, HOUR + 3_000);
    expect(hit?.answer.toMs).toBe(HOUR);
    expect(hit?.ageMs).toBe(3_000);
    expect(hit?.refresh).toBe(false);
    // "Last hour" 59 s later: both ends moved with the clock; old enough to be recomputed.
    expect(live.lookup(fam, { fromMs: 59_000, toMs: HOUR + 59_000 }, HOUR + 59_000)?.refresh).toBe(
      true,
    );
    // A range ending before the kept one, or one it covers too little of: not served.
    expect(live.lookup(fam, { fromMs: 0, toMs: HOUR - 1_000 }, HOUR + 1_000)).toBeUndefined();
    expect(
      live.lookup(fam, { fromMs: HOUR - 20_000, toMs: HOUR + 20_000 }, HOUR + 20_000),
    ).toBeUndefined();
    // "All data" of a store 1,000 s old, grown by a fifth, is served (with its age); a range
    // sharing 70% of it is not.
    const young = liveFamily('/api/v1/edges', {});
    live.keep(young, answer(0, 1_000_000, 1_000_000), 4_000);
    expect(live.lookup(young, { fromMs: 0, toMs: 1_200_000 }, 1_200_000)?.ageMs).toBe(200_000);
    expect(live.lookup(young, { fromMs: 300_000, toMs: 1_290_000 }, 1_290_000)).toBeUndefined();
    // Too old: dropped.
    expect(live.lookup(fam, { fromMs: 0, toMs: HOUR + 1_000 }, HOUR + 300_001)).toBeUndefined();
    expect(live.lookup(young, { fromMs: 0, toMs: 1_300_001 }, 1_300_001)).toBeUndefined();
    expect(live.stats().entries).toBe(0);
  });

  it('never serves the next window of a series (test phases back to back)', () => {
    const live = new LiveAnswers({ minComputeMs: 0 });
    const fam = liveFamily('/api/v1/edges', {});
    live.keep(fam, answer(0, 20_000, 20_000), 2_000);
    expect(live.lookup(fam, { fromMs: 20_000, toMs: 40_000 }, 40_000)).toBeUndefined();
    expect(live.lookup(fam, { fromMs: 1_000, toMs: 21_000 }, 21_000)).toBeDefined();
  });

  it('keeps only slow answers, unless the family has one; never an older range over a newer', () => {
    const live = new LiveAnswers({ minComputeMs: 1_000 });
    const fam = liveFamily('/api/v1/edges', {});
    live.keep(fam, answer(0, 10_000, 10_000), 200);
    expect(live.stats().entries).toBe(0);
    live.keep(fam, answer(0, 10_000, 10_000), 2_000);
    live.keep(fam, answer(0, 12_000, 12_000, 'fresh'), 5);
    expect(live.lookup(fam, { fromMs: 0, toMs: 12_000 }, 12_000)?.answer.payload).toBe('fresh');
    live.keep(fam, answer(0, 11_000, 13_000, 'late'), 3_000);
    expect(live.lookup(fam, { fromMs: 0, toMs: 12_000 }, 13_000)?.answer.payload).toBe('fresh');
  });

  it('runs one refresh per family; families differ by every parameter but the range', () => {
    const live = new LiveAnswers({ refreshAfterMs: 0, minComputeMs: 0 });
    const a = liveFamily('/api/v1/hosts', {
      from: '1',
      to: '2',
      leafService: 'a',
      windowSeconds: 5,
    });
    const b = liveFamily('/api/v1/hosts', { windowSeconds: 5, leafService: 'a', to: '9' });
    const c = liveFamily('/api/v1/hosts', { leafService: 'b', windowSeconds: 5 });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    live.keep(a, answer(0, 10, 10), 0);
    expect(live.lookup(a, { fromMs: 0, toMs: 10 }, 11)?.refresh).toBe(true);
    expect(live.startRefresh(a)).toBe(true);
    expect(live.lookup(a, { fromMs: 0, toMs: 10 }, 12)?.refresh).toBe(false);
    expect(live.startRefresh(a)).toBe(false);
    live.endRefresh(a);
    expect(live.refreshesRunning()).toBe(0);
  });

  it('is bounded in bytes, and configured from the environment', () => {
    const live = new LiveAnswers({ maxBytes: 100, minComputeMs: 0 });
    live.keep('a', answer(0, 1, 1, 'x'.repeat(60)), 0);
    live.keep('b', answer(0, 1, 1, 'y'.repeat(60)), 0);
    expect(live.stats()).toMatchObject({ entries: 1, bytes: 60 });
    expect(live.lookup('b', { fromMs: 0, toMs: 1 }, 1)).toBeDefined();
    expect(liveAnswersFromEnv({})).toEqual({
      maxAgeMs: 300_000,
      refreshAfterMs: 30_000,
      minComputeMs: 250,
    });
    expect(liveAnswersFromEnv({ TAILSCOPE_LIVE_ANSWER_MIN_MS: '1000' })?.minComputeMs).toBe(1000);
    expect(liveAnswersFromEnv({ TAILSCOPE_LIVE_ANSWER_MAX_S: '0' })).toBeNull();
    expect(() => liveAnswersFromEnv({ TAILSCOPE_LIVE_ANSWER_MIN_MS: 'soon' })).toThrow(
      /TAILSCOPE_LIVE_ANSWER_MIN_MS must be a number/,
    );
  });
});
