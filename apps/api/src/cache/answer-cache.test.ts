import { describe, expect, it } from 'vitest';
import { AnswerCache, MARGIN_GRACE_MS, answerBytes, questionKey } from './answer-cache';
import { runAsWork, type Work } from '../store/engine/admission';

const size = () => 10;

describe('AnswerCache', () => {
  it('keeps an answer for its version only', async () => {
    const c = new AnswerCache();
    let runs = 0;
    const compute = () => Promise.resolve(++runs);
    expect(await c.answer('q', 'v1', compute, size)).toBe(1);
    expect(await c.answer('q', 'v1', compute, size)).toBe(1);
    expect(await c.answer('q', 'v2', compute, size)).toBe(2);
    expect(await c.answer('q', 'v1', compute, size)).toBe(3);
    expect(c.stats()).toMatchObject({ hits: 1, misses: 3, entries: 1, bytes: 10 });
  });

  it('outlives new spans after the range end for MARGIN_GRACE_MS, never new spans in it', async () => {
    let t = 1_000;
    const c = new AnswerCache({ now: () => t });
    let runs = 0;
    const compute = () => Promise.resolve(++runs);
    const v = (exact: string, inner: string) => ({ exact, inner });
    expect(await c.answer('q', v('a', 'i1'), compute, size)).toBe(1);
    // Spans arrived after the end only: the kept answer, while young.
    t += MARGIN_GRACE_MS - 1;
    expect(await c.answer('q', v('b', 'i1'), compute, size)).toBe(1);
    // A span inside the range: computed again, however young.
    expect(await c.answer('q', v('c', 'i2'), compute, size)).toBe(2);
    // Old enough: only the exact version answers.
    t += MARGIN_GRACE_MS;
    expect(await c.answer('q', v('c', 'i2'), compute, size)).toBe(2);
    expect(await c.answer('q', v('d', 'i2'), compute, size)).toBe(3);
    expect(c.stats()).toMatchObject({ hits: 2, marginHits: 1, misses: 3 });
    // A version given as one string matches exactly only.
    const s = new AnswerCache({ now: () => t });
    expect(await s.answer('q', 'x', compute, size)).toBe(4);
    expect(await s.answer('q', 'y', compute, size)).toBe(5);
  });

  it('tells every asker what the answer took to compute: computed, joined or kept', async () => {
    const c = new AnswerCache();
    let release: (v: number) => void = () => undefined;
    const compute = () => new Promise<number>((ok) => (release = ok));
    const costs: number[][] = [[], [], []];
    const a = c.answer('q', 'v', compute, size, (ms) => costs[0]?.push(ms));
    const b = c.answer('q', 'v', compute, size, (ms) => costs[1]?.push(ms));
    await new Promise((ok) => setTimeout(ok, 30));
    release(1);
    await Promise.all([a, b]);
    await c.answer('q', 'v', compute, size, (ms) => costs[2]?.push(ms));
    const [first, joined, kept] = costs.map((x) => x[0] ?? -1);
    // The computation waited for a 30 ms timer: its cost is more than nothing.
    expect(first).toBeGreaterThan(0);
    expect([joined, kept]).toEqual([first, first]);
  });

  it('runs concurrent identical questions once', async () => {
    const c = new AnswerCache();
    let runs = 0;
    let release: (v: number) => void = () => undefined;
    const compute = () => {
      runs++;
      return new Promise<number>((ok) => (release = ok));
    };
    const a = c.answer('q', 'v', compute, size);
    const b = c.answer('q', 'v', compute, size);
    release(7);
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(runs).toBe(1);
    expect(c.stats().joined).toBe(1);
  });

  it("makes background work a person's when a person joins it; a background joiner does not", async () => {
    const c = new AnswerCache();
    let release: (v: number) => void = () => undefined;
    const compute = () => new Promise<number>((ok) => (release = ok));
    const work = (deferred: boolean): Work => ({
      workClass: 'analysis',
      signal: new AbortController().signal,
      deadlineMs: Date.now() + 60_000,
      ...(deferred ? { deferred: true, yieldTo: () => true } : {}),
    });
    const owner = work(true);
    const a = runAsWork(owner, () => c.answer('q', 'v', compute, size));
    const other = runAsWork(work(true), () => c.answer('q', 'v', compute, size));
    expect(owner.deferred).toBe(true);
    const person = runAsWork(work(false), () => c.answer('q', 'v', compute, size));
    expect(owner.deferred).toBe(false);
    release(3);
    expect(await Promise.all([a, other, person])).toEqual([3, 3, 3]);
  });

  it('keeps no failure; a joiner of a failed computation computes on its own', async () => {
    const c = new AnswerCache();
    let fail: (e: Error) => void = () => undefined;
    const a = c.answer('q', 'v', () => new Promise<number>((_, no) => (fail = no)), size);
    const b = c.answer('q', 'v', () => Promise.resolve(5), size);
    fail(new Error('cancelled'));
    await expect(a).rejects.toThrow('cancelled');
    expect(await b).toBe(5);
    expect(await c.answer('q', 'v', () => Promise.resolve(6), size)).toBe(5);
  });

  it('is bounded in entries and bytes, least recently used first', async () => {
    const c = new AnswerCache({ maxEntries: 2, maxBytes: 25 });
    const put = (k: string, n: number) => c.answer(k, 'v', () => Promise.resolve(n), size);
    await put('a', 1);
    await put('b', 2);
    await put('a', 0); // a is now the most recent
    await put('c', 3); // b goes
    expect(c.stats()).toMatchObject({ entries: 2, bytes: 20 });
    expect(await put('b', 9)).toBe(9);
    expect(await put('a', 8)).toBe(8); // a went when b came back
    const big = await c.answer(
      'd',
      'v',
      () => Promise.resolve(4),
      () => 26,
    );
    expect(big).toBe(4);
    expect(c.stats().bytes).toBeLessThanOrEqual(25);
  });
});

describe('questionKey and answerBytes', () => {
  it('ignores parameter order and absent parameters', () => {
    expect(questionKey('r', { a: 1, b: 'x', c: undefined })).toBe(
      questionKey('r', { b: 'x', a: 1 }),
    );
    expect(questionKey('r', { a: 1n })).not.toBe(questionKey('r', { a: 2n }));
    expect(questionKey('r', { a: 1 })).not.toBe(questionKey('s', { a: 1 }));
  });

  it('measures JSON and buffers', () => {
    expect(answerBytes({ a: 'é' })).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(answerBytes(Buffer.alloc(12))).toBe(12);
  });
});
