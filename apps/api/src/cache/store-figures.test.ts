import { describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_STATS_WAIT_MS,
  FiguresKeeper,
  REFRESH_MS,
  WRITTEN_REFRESH_MS,
  statsWaitFromEnv,
} from './store-figures';

describe('TAILSCOPE_STATS_WAIT_MS', () => {
  it('takes whole ms from 0 to 60000 and names itself otherwise', () => {
    expect(statsWaitFromEnv({})).toBe(DEFAULT_STATS_WAIT_MS);
    expect(statsWaitFromEnv({ TAILSCOPE_STATS_WAIT_MS: '0' })).toBe(0);
    expect(statsWaitFromEnv({ TAILSCOPE_STATS_WAIT_MS: '1500' })).toBe(1500);
    for (const bad of ['-1', '1.5', 'soon', '60001', 'Infinity'])
      expect(() => statsWaitFromEnv({ TAILSCOPE_STATS_WAIT_MS: bad })).toThrow(
        /TAILSCOPE_STATS_WAIT_MS/,
      );
  });
});

describe('figures keeper', () => {
  it('computes once for concurrent first readers, then answers the kept figures', async () => {
    let n = 0;
    let clock = 0;
    const keeper = new FiguresKeeper(
      () => Promise.resolve(++n),
      0,
      () => clock,
    );
    const [a, b] = await Promise.all([keeper.read(), keeper.read()]);
    expect([a.figures, b.figures]).toEqual([1, 1]);
    clock = 500;
    expect(await keeper.read()).toEqual({ figures: 1, ageMs: 500 });
    expect(keeper.refreshes).toBe(1);
  });

  it('answers the last figures at once while a refresh cannot finish', async () => {
    let n = 0;
    let finish = (): void => undefined;
    const keeper = new FiguresKeeper(
      () =>
        ++n === 1
          ? Promise.resolve(n)
          : new Promise<number>((r) => {
              finish = () => {
                r(n);
              };
            }),
      0,
    );
    await keeper.read();
    keeper.written();
    // Stale, and its refresh is stuck behind the engine: the reader is not.
    expect((await keeper.read()).figures).toBe(1);
    expect(keeper.refreshes).toBe(2);
    finish();
    await new Promise((r) => setTimeout(r, 0));
    expect((await keeper.read()).figures).toBe(2);
    keeper.stop();
  });

  it('refreshes after ingest at most once per WRITTEN_REFRESH_MS, a reader after REFRESH_MS', async () => {
    vi.useFakeTimers();
    try {
      let n = 0;
      const keeper = new FiguresKeeper(
        () => Promise.resolve(++n),
        0,
        () => Date.now(),
      );
      await keeper.read();
      for (let t = 0; t < WRITTEN_REFRESH_MS - 1000; t += 500) {
        keeper.written();
        await vi.advanceTimersByTimeAsync(500);
      }
      expect(keeper.refreshes).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(keeper.refreshes).toBe(2);
      // A reader of dirty figures older than REFRESH_MS does not wait for ingest's next one.
      keeper.written();
      await vi.advanceTimersByTimeAsync(REFRESH_MS);
      await keeper.read();
      expect(keeper.refreshes).toBe(3);
      keeper.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits for a refresh only when the figures are older than WRITTEN_REFRESH_MS', async () => {
    let n = 0;
    let clock = 0;
    const never = new Promise<number>(() => undefined);
    const keeper = new FiguresKeeper(
      () => (++n === 1 ? Promise.resolve(n) : never),
      60_000,
      () => clock,
    );
    await keeper.read();
    keeper.written();
    // Stale but young: answered at once (its refresh goes on behind it).
    clock = REFRESH_MS;
    expect(await keeper.read()).toEqual({ figures: 1, ageMs: REFRESH_MS });
    expect(keeper.refreshes).toBe(2);
    keeper.stop();
  });
});
