import { describe, expect, it } from 'vitest';
import { ClientGoneError } from './admission';
import { EngineTurns } from './turns';

describe('engine turns', () => {
  it('gives the next turn to urgent queries before waiting analysis ones, in order', async () => {
    const turns = new EngineTurns();
    const order: string[] = [];
    const first = await turns.take(true);
    const waiting = [
      ['analysis 1', false],
      ['analysis 2', false],
      ['stats', true],
      ['insert', true],
    ].map(([name, urgent]) =>
      turns.take(urgent === true).then((release) => {
        order.push(String(name));
        release();
      }),
    );
    expect(turns.queued).toBe(4);
    first();
    await Promise.all(waiting);
    expect(order).toEqual(['stats', 'insert', 'analysis 1', 'analysis 2']);
    // Free again: the next turn is given at once.
    (await turns.take(false))();
  });

  it('drops a waiting turn whose client left, and the others still get theirs', async () => {
    const turns = new EngineTurns();
    const first = await turns.take(false);
    const ac = new AbortController();
    const gone = turns.take(false, ac.signal).catch((e: unknown) => e);
    const next = turns.take(false);
    ac.abort();
    expect(await gone).toBeInstanceOf(ClientGoneError);
    expect(turns.queued).toBe(1);
    first();
    (await next)();
    expect(turns.queued).toBe(0);
  });

  it("gives a deferred turn (a live answer's recomputation) after every other waiting", async () => {
    const turns = new EngineTurns();
    const first = await turns.take(false);
    const order: string[] = [];
    const waiting = (
      [
        ['refresh', false, true],
        ['analysis', false, false],
        ['insert', true, false],
      ] as const
    ).map(([name, urgent, deferred]) =>
      turns.take(urgent, undefined, deferred).then((release) => {
        order.push(name);
        release();
      }),
    );
    first();
    await Promise.all(waiting);
    expect(order).toEqual(['insert', 'analysis', 'refresh']);
  });
});
