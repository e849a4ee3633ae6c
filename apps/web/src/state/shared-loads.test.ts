import { describe, expect, it } from 'vitest';
import { SharedLoads } from './shared-loads';

/** A load that resolves when told to, and records the signal it was given. */
function deferred() {
  let resolve: (v: string) => void = () => undefined;
  const signals: AbortSignal[] = [];
  const load = (signal: AbortSignal) => {
    signals.push(signal);
    return new Promise<string>((res, rej) => {
      resolve = res;
      signal.addEventListener('abort', () => {
        rej(new Error('aborted'));
      });
    });
  };
  return {
    load,
    signals,
    resolve: (v: string) => {
      resolve(v);
    },
  };
}

describe('SharedLoads', () => {
  it('runs one load per key however many wait, and caches its answer', async () => {
    const loads = new SharedLoads();
    const d = deferred();
    const a = loads.start('k', d.load);
    const b = loads.start('k', d.load);
    expect(d.signals).toHaveLength(1);
    d.resolve('answer');
    await expect(a.promise).resolves.toBe('answer');
    await expect(b.promise).resolves.toBe('answer');
    expect(loads.has('k')).toBe(true);
    expect(loads.get('k')).toBe('answer');
    expect(d.signals[0]?.aborted).toBe(false);
  });

  it('keeps a shared load while anyone waits, and aborts it when the last one leaves', async () => {
    const loads = new SharedLoads();
    const d = deferred();
    const a = loads.start('k', d.load);
    const b = loads.start('k', d.load);
    a.leave();
    a.leave(); // leaving twice counts once
    expect(d.signals[0]?.aborted).toBe(false);
    b.leave();
    expect(d.signals[0]?.aborted).toBe(true);
    await expect(b.promise).rejects.toThrow('aborted');
    expect(loads.has('k')).toBe(false);
    // Asked again after the abort: a fresh load, not the aborted one.
    const again = deferred();
    const c = loads.start('k', again.load);
    again.resolve('fresh');
    await expect(c.promise).resolves.toBe('fresh');
  });

  it('forgets the oldest answer past its bound', async () => {
    const loads = new SharedLoads(2);
    for (const k of ['a', 'b', 'c']) await loads.start(k, () => Promise.resolve(k)).promise;
    expect(['a', 'b', 'c'].map((k) => loads.has(k))).toEqual([false, true, true]);
  });
});
