import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_NICE, engineNiceFromEnv, niceEngineThreads, poolThreadIds } from './nice';

describe('the engine threads nice value', () => {
  it('reads TAILSCOPE_ENGINE_NICE, and names it when it is wrong', () => {
    expect(engineNiceFromEnv({})).toBe(DEFAULT_ENGINE_NICE);
    expect(engineNiceFromEnv({ TAILSCOPE_ENGINE_NICE: '0' })).toBe(0);
    expect(engineNiceFromEnv({ TAILSCOPE_ENGINE_NICE: '19' })).toBe(19);
    for (const bad of ['-1', '20', '2.5', 'high'])
      expect(() => engineNiceFromEnv({ TAILSCOPE_ENGINE_NICE: bad })).toThrow(
        /TAILSCOPE_ENGINE_NICE must be an integer between 0 and 19/,
      );
  });

  it.runIf(process.platform === 'linux')(
    "finds libuv's pool threads, not the main thread, and lowers only them",
    async () => {
      const tids = await poolThreadIds();
      expect(tids.length).toBeGreaterThan(0);
      expect(tids.length).toBeLessThanOrEqual(Number(process.env.UV_THREADPOOL_SIZE ?? 4));
      expect(tids).not.toContain(process.pid);
      const main = getPriority(process.pid);
      const set = await niceEngineThreads(12);
      expect(set.skipped).toBeUndefined();
      expect(set.threads.sort()).toEqual(tids.sort());
      for (const tid of set.threads) expect(getPriority(tid)).toBe(12);
      expect(getPriority(process.pid)).toBe(main);
      expect((await niceEngineThreads(0)).threads).toEqual([]);
    },
  );
});
