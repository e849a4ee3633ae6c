import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_YIELDS, startChunkMaterializer } from './chunks';

describe('startChunkMaterializer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives its timer passes way to analyses, MAX_YIELDS ticks in a row at most', async () => {
    vi.useFakeTimers();
    let busy = false;
    let passes = 0;
    const m = startChunkMaterializer(
      () => {
        passes++;
        return Promise.resolve({ chunks: 0 });
      },
      { intervalMs: 1000, historyMs: 0, yieldTo: () => busy },
    );
    await vi.advanceTimersByTimeAsync(3000);
    expect(passes).toBe(3);
    busy = true;
    // Busy all along: MAX_YIELDS ticks skipped, then one runs, then again.
    await vi.advanceTimersByTimeAsync((MAX_YIELDS + 1) * 1000);
    expect(passes).toBe(4);
    await vi.advanceTimersByTimeAsync(MAX_YIELDS * 1000);
    expect(passes).toBe(4);
    busy = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(passes).toBe(5);
    await m.stop();
  });
});
