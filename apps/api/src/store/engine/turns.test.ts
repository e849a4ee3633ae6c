import { describe, expect, it } from 'vitest';
import { ClientGoneError, type Work } from './admission';
import { EngineTurns, yieldWhileBusy } from './turns';

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

  it('holds background work while a person is busy, until promoted or not busy', async () => {
    let busy = true;
    const work: Work = {
      workClass: 'analysis',
      signal: new AbortController().signal,
      deadlineMs: Date.now() + 60_000,
      deferred: true,
      yieldTo: () => busy,
    };
    let done = false;
    const held = yieldWhileBusy(work, undefined, 5).then(() => (done = true));
    await new Promise((ok) => setTimeout(ok, 30));
    expect(done).toBe(false);
    busy = false;
    await held;
    // Promoted (a person joined it): no longer held, busy or not.
    busy = true;
    work.deferred = false;
    await yieldWhileBusy(work, undefined, 5);
    // A client gone while held: the query is not sent.
    const gone = new AbortController();
    const w2: Work = { ...work, deferred: true };
    const p = yieldWhileBusy(w2, gone.signal, 5);
    gone.abort();
    await expect(p).rejects.toBeInstanceOf(ClientGoneError);
  });
});
