import { describe, expect, it } from 'vitest';
import { ClientGoneError } from './admission';
import { EngineTurns, TURN_RANK } from './engine-turns';

const { interactive, background, analysis } = TURN_RANK;

describe('engine turns', () => {
  it('gives the next turn by rank: interactive, background, analysis, each in order', async () => {
    const turns = new EngineTurns();
    const order: string[] = [];
    const first = await turns.take(analysis);
    const waiting = (
      [
        ['analysis 1', analysis],
        ['materialize', background],
        ['analysis 2', analysis],
        ['stats', interactive],
        ['insert', background],
        ['trace', interactive],
      ] as const
    ).map(([name, rank]) =>
      turns.take(rank).then((release) => {
        order.push(name);
        release();
      }),
    );
    expect(turns.queued).toBe(6);
    first();
    await Promise.all(waiting);
    expect(order).toEqual(['stats', 'trace', 'materialize', 'insert', 'analysis 1', 'analysis 2']);
    // Free again: the next turn is given at once.
    (await turns.take(analysis))();
  });

  it('drops a waiting turn whose client left, and the others still get theirs', async () => {
    const turns = new EngineTurns();
    const first = await turns.take(analysis);
    const ac = new AbortController();
    const gone = turns.take(analysis, ac.signal).catch((e: unknown) => e);
    const next = turns.take(analysis);
    ac.abort();
    expect(await gone).toBeInstanceOf(ClientGoneError);
    expect(turns.queued).toBe(1);
    first();
    (await next)();
    expect(turns.queued).toBe(0);
  });
});
