import { describe, expect, it } from 'vitest';
import { AskedEarly } from './asked-early';

describe('AskedEarly', () => {
  it('asks a key once and hands its answer to the first take only', async () => {
    const early = new AskedEarly<number>();
    let asks = 0;
    const ask = () => Promise.resolve(++asks);
    early.ask('a', ask);
    early.ask('a', ask);
    expect(asks).toBe(1);
    await expect(early.take('a')).resolves.toBe(1);
    expect(early.take('a')).toBeUndefined();
  });

  it('keeps the newest few and leaves a failure to the taker', async () => {
    const early = new AskedEarly<number>(2);
    early.ask('fails', () => Promise.reject(new Error('HTTP 503')));
    early.ask('b', () => Promise.resolve(2));
    early.ask('c', () => Promise.resolve(3));
    expect(early.take('fails')).toBeUndefined();
    await expect(early.take('b')).resolves.toBe(2);
    const kept = new AskedEarly<number>(2);
    kept.ask('fails', () => Promise.reject(new Error('HTTP 503')));
    await expect(kept.take('fails')).rejects.toThrow('HTTP 503');
  });
});
