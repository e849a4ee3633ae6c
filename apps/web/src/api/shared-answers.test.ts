import { beforeEach, describe, expect, it } from 'vitest';
import {
  forgetAnswers,
  isShared,
  noteAnswerAge,
  oldestAnswer,
  sharedAnswer,
  wantsFresh,
} from './shared-answers';

/** A load that answers when told, recording its signal. */
function pending() {
  const signals: AbortSignal[] = [];
  let answer: (v: unknown) => void = () => undefined;
  const load = (signal: AbortSignal) => {
    signals.push(signal);
    return new Promise<unknown>((ok) => (answer = ok));
  };
  return {
    load,
    signals,
    answer: (v: unknown) => {
      answer(v);
    },
  };
}

describe('sharedAnswer', () => {
  beforeEach(forgetAnswers);

  it('shares the analysis routes by URL, not the store stats', () => {
    expect(isShared('/api/v1/stragglers?from=1&to=2')).toBe(true);
    expect(isShared('/api/v1/edges')).toBe(true);
    expect(isShared('/api/v1/stats')).toBe(false);
    expect(isShared('/api/v1/traces?from=1')).toBe(false);
  });

  it('asks once for concurrent callers and keeps the answer', async () => {
    const p = pending();
    const a = sharedAnswer('/u', p.load);
    const b = sharedAnswer('/u', p.load);
    p.answer({ n: 1 });
    expect(await Promise.all([a, b])).toEqual([{ n: 1 }, { n: 1 }]);
    expect(await sharedAnswer('/u', p.load)).toEqual({ n: 1 });
    expect(p.signals).toHaveLength(1);
    forgetAnswers();
    const c = sharedAnswer('/u', p.load);
    p.answer({ n: 2 });
    expect(await c).toEqual({ n: 2 });
    expect(p.signals).toHaveLength(2);
  });

  it('aborts the request only when every caller left', async () => {
    const p = pending();
    const left = new AbortController();
    const a = sharedAnswer('/v', p.load, left.signal);
    const b = sharedAnswer('/v', p.load);
    left.abort();
    await expect(a).rejects.toThrow();
    expect(p.signals[0]?.aborted).toBe(false);
    p.answer(3);
    expect(await b).toBe(3);

    const q = pending();
    const only = new AbortController();
    const c = sharedAnswer('/w', q.load, only.signal);
    only.abort();
    await expect(c).rejects.toThrow();
    expect(q.signals[0]?.aborted).toBe(true);
  });
});

describe('answers the server served from its live answers', () => {
  it('asks each URL fresh once after Refresh, and tracks the oldest served age', () => {
    const url = '/api/v1/edges?from=1&to=2';
    forgetAnswers();
    expect(wantsFresh(url)).toBe(true);
    expect(wantsFresh(url)).toBe(false);
    expect(wantsFresh('/api/v1/fanouts?from=1&to=2')).toBe(true);
    noteAnswerAge(url, 12_000);
    noteAnswerAge('/api/v1/hosts?x', 3_000);
    expect(oldestAnswer()?.ageMs).toBe(12_000);
    noteAnswerAge(url, undefined);
    expect(oldestAnswer()?.ageMs).toBe(3_000);
    forgetAnswers();
    expect(oldestAnswer()).toBeNull();
  });
});
