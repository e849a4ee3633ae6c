import { describe, expect, it } from 'vitest';
import type { Episode } from '../api/episodes';
import { episodeEntries } from './episode-entries';

const ep = (service: string, parentService: string, fromMs: number, toMs: number): Episode => ({
  service,
  host: `${service}-00`,
  parentService,
  kind: 'callee',
  fromMs,
  toMs,
  p99Ms: 200,
  baselineP99Ms: 6,
  ratio: 33,
  calls: 800,
  qValue: 0,
});

describe('episodeEntries', () => {
  it("lists a caller's episode under its callee's over the same window (microservices' fault)", () => {
    const customer = ep('customer', 'frontend', 30_000, 70_000);
    const mysql = ep('mysql', 'customer', 30_000, 70_000);
    expect(episodeEntries([customer, mysql])).toEqual([{ episode: mysql, callers: [customer] }]);
  });

  it('lists a callee with no server spans within its caller whose own spans grew', () => {
    const split = (calls: number, serverMs: number, baselineServerMs: number) => ({
      calls,
      baselineCalls: calls,
      clientMs: serverMs + 1,
      baselineClientMs: baselineServerMs + 1,
      serverMs,
      baselineServerMs,
      outsideMs: 1,
      baselineOutsideMs: 1,
    });
    const customer = {
      ...ep('customer', 'frontend', 30_000, 70_000),
      spanEvidence: split(800, 120, 4),
    };
    const mysql = { ...ep('mysql', 'customer', 30_000, 70_000), spanEvidence: split(0, 0, 0) };
    expect(episodeEntries([mysql, customer])).toEqual([
      { episode: customer, callers: [], within: [mysql] },
    ]);
    // Had customer's own server time not grown, the fault is below it: mysql leads.
    const flat = { ...customer, spanEvidence: split(800, 4, 4) };
    expect(episodeEntries([mysql, flat])).toEqual([{ episode: mysql, callers: [flat] }]);
    // A callee with server spans of its own leads as before.
    const seen = { ...mysql, spanEvidence: split(800, 120, 4) };
    expect(episodeEntries([seen, customer])).toEqual([{ episode: seen, callers: [customer] }]);
  });

  it('follows a chain to the deepest callee', () => {
    const a = ep('frontend', 'gateway', 0, 60_000);
    const b = ep('customer', 'frontend', 0, 60_000);
    const c = ep('mysql', 'customer', 10_000, 50_000);
    expect(episodeEntries([a, b, c])).toEqual([{ episode: c, callers: [a, b] }]);
  });

  it('keeps episodes apart in other windows or of unrelated services', () => {
    const early = ep('customer', 'frontend', 0, 60_000);
    const late = ep('mysql', 'customer', 60_000, 120_000);
    const other = ep('redis', 'driver', 0, 60_000);
    expect(episodeEntries([early, late, other]).map((x) => x.episode)).toEqual([
      early,
      late,
      other,
    ]);
  });

  it('ends on a cycle of callers instead of looping', () => {
    const a = ep('a', 'b', 0, 60_000);
    const b = ep('b', 'a', 0, 60_000);
    expect(episodeEntries([a, b])).toEqual([
      { episode: a, callers: [] },
      { episode: b, callers: [] },
    ]);
  });
});
