import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AdmissionGate,
  answerCostOf,
  BusyError,
  ClientGoneError,
  noteAnswerCost,
  runAsWork,
  type Work,
} from './admission';
import { DEFAULT_QUERY_BUDGET, QueryBudgetError } from './budget';

/** The gate's rules with a fake clock: order of events only, no time is measured. */
describe('admission gate', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const work = (budgetMs = 30_000, signal = new AbortController().signal): Work => ({
    workClass: 'analysis',
    signal,
    deadlineMs: Date.now() + budgetMs,
  });

  it('answers 503 with Retry-After at once beyond its queue, while the earlier ones wait', async () => {
    const gate = new AdmissionGate('analysis', { slots: 1, maxQueue: 2 }, DEFAULT_QUERY_BUDGET);
    const release = await gate.enter(work());
    const waiting = [gate.enter(work()), gate.enter(work())];
    const refused = await gate.enter(work()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BusyError);
    expect((refused as BusyError).statusCode).toBe(503);
    expect((refused as BusyError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(gate.stats()).toMatchObject({ running: 1, queued: 2, rejected: 1, admitted: 1 });
    release();
    const second = await waiting[0];
    expect(gate.stats()).toMatchObject({ running: 1, queued: 1, admitted: 2 });
    second?.();
    (await waiting[1])?.();
    expect(gate.stats()).toMatchObject({ running: 0, queued: 0, finished: 3 });
  });

  it('runs background work in a slot of its own, only while no person waits or runs', async () => {
    const gate = new AdmissionGate('analysis', { slots: 1, maxQueue: 4 }, DEFAULT_QUERY_BUDGET);
    const bg = await gate.enter(work(), { background: true });
    // Background work alone does not make the gate busy for the materializers (chunks.ts).
    expect(gate.busy).toBe(false);
    // The person's slot is free: admitted at once beside the background work.
    const person = await gate.enter(work());
    expect(gate.busy).toBe(true);
    expect(gate.stats()).toMatchObject({ running: 2, queued: 0 });
    // The next background job waits while the first runs, and then while the person runs.
    let second = false;
    const next = gate.enter(work(), { background: true }).then((r) => {
      second = true;
      return r;
    });
    bg();
    await Promise.resolve();
    expect(second).toBe(false);
    person();
    (await next)();
    expect(second).toBe(true);
    expect(gate.stats()).toMatchObject({ running: 0, queued: 0, finished: 3 });
  });

  it('answers 503 without running a request still queued at its deadline', async () => {
    const gate = new AdmissionGate('analysis', { slots: 1, maxQueue: 4 }, DEFAULT_QUERY_BUDGET);
    const release = await gate.enter(work());
    let ran = false;
    const queued = gate.enter(work(1000)).then(() => {
      ran = true;
    });
    const outcome = queued.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1001);
    expect(await outcome).toBeInstanceOf(QueryBudgetError);
    expect(ran).toBe(false);
    expect(gate.stats()).toMatchObject({ queued: 0, expired: 1, running: 1 });
    release();
    expect(gate.stats().running).toBe(0);
  });

  it('drops a queued request whose client left, and refuses one that left before', async () => {
    const gate = new AdmissionGate('analysis', { slots: 1, maxQueue: 4 }, DEFAULT_QUERY_BUDGET);
    const release = await gate.enter(work());
    const ac = new AbortController();
    const queued = gate.enter(work(30_000, ac.signal)).catch((e: unknown) => e);
    ac.abort();
    expect(await queued).toBeInstanceOf(ClientGoneError);
    await expect(gate.enter(work(30_000, ac.signal))).rejects.toBeInstanceOf(ClientGoneError);
    expect(gate.stats()).toMatchObject({ queued: 0, dropped: 1, running: 1 });
    release();
    // The slot is free again: the next request runs at once.
    const next = await gate.enter(work());
    expect(gate.stats().running).toBe(1);
    next();
  });

  it('with no queue, refuses the first request beyond its slots', async () => {
    const gate = new AdmissionGate('analysis', { slots: 2, maxQueue: 0 }, DEFAULT_QUERY_BUDGET);
    const a = await gate.enter(work());
    const b = await gate.enter(work());
    await expect(gate.enter(work())).rejects.toBeInstanceOf(BusyError);
    a();
    b();
    b();
    expect(gate.stats()).toMatchObject({ running: 0, finished: 2 });
  });
});

describe('answer costs', () => {
  const work = (): Work => ({
    workClass: 'analysis',
    signal: new AbortController().signal,
    deadlineMs: Date.now() + 60_000,
  });

  it('keeps the costliest answer a request used, per request, and none outside one', async () => {
    const a = work();
    const b = work();
    await runAsWork(a, async () => {
      noteAnswerCost(300);
      await Promise.resolve();
      noteAnswerCost(120);
    });
    runAsWork(b, () => {
      noteAnswerCost(40);
    });
    noteAnswerCost(999); // no request: nothing to note it on
    expect([answerCostOf(a), answerCostOf(b), answerCostOf(work())]).toEqual([300, 40, 0]);
  });
});
