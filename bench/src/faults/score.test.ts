import { describe, expect, it } from 'vitest';
import { parseSchedule, type FaultLabel } from './schedule';
import { delayWindows, falseIncidents, faultFreeMs, scoreFault, summarise } from './score';

/** Scenario: a route delay from 100 s to 160 s between fault-free minutes, two incidents. */
const none = (startMs: number, endMs: number): FaultLabel => ({
  fault: 'none',
  target: '',
  startMs,
  endMs,
  detail: '',
});
const routeDelay: FaultLabel = {
  fault: 'delay',
  target: 'route',
  startMs: 100_000,
  endMs: 160_000,
  detail: '',
};
const labels = [none(40_000, 100_000), routeDelay, none(160_000, 220_000)];
const cause = (service: string, score: number) => ({ service, score });

describe('fault scoring', () => {
  it('takes the incident overlapping the fault most and ranks the target in it', () => {
    const r = scoreFault(routeDelay, [
      { fromMs: 60_000, toMs: 105_000, rootCauses: [cause('customer', 1)] },
      { fromMs: 110_000, toMs: 170_000, rootCauses: [cause('frontend', 0.5), cause('route', 0.4)] },
    ]);
    expect(r).toMatchObject({ detected: true, rank: 2, delayMs: 10_000 });
    expect(r.top).toEqual(['frontend', 'route']);
  });

  it('counts in-process MySQL for customer and a miss when nothing overlaps', () => {
    const lock: FaultLabel = { ...routeDelay, fault: 'lock', target: 'customer' };
    expect(
      scoreFault(lock, [{ fromMs: 90_000, toMs: 120_000, rootCauses: [cause('mysql', 1)] }]).rank,
    ).toBe(1);
    const miss = scoreFault(lock, [{ fromMs: 0, toMs: 100_000, rootCauses: [cause('mysql', 1)] }]);
    expect(miss).toMatchObject({ detected: false, rank: 0, delayMs: null });
  });

  it('takes the detection delay from the first incident over the fault naming the target', () => {
    // A loss fault: short incidents come and go; the one overlapping most is the later one.
    const r = scoreFault(routeDelay, [
      { fromMs: 40_000, toMs: 70_000, rootCauses: [cause('route', 1)] }, // before the fault
      { fromMs: 95_000, toMs: 105_000, rootCauses: [cause('route', 1)] },
      { fromMs: 120_000, toMs: 140_000, rootCauses: [cause('route', 1)] },
    ]);
    expect(r).toMatchObject({ rank: 1, delayMs: -5_000 });
    // An earlier incident over the fault that does not name it does not count.
    const s = scoreFault(routeDelay, [
      { fromMs: 95_000, toMs: 105_000, rootCauses: [cause('customer', 1)] },
      { fromMs: 120_000, toMs: 140_000, rootCauses: [cause('route', 1)] },
    ]);
    expect(s).toMatchObject({ rank: 1, delayMs: 20_000 });
  });

  it('summarises top-1 and top-3 per kind and over all', () => {
    const base = { target: 'route', startMs: 0, endMs: 1, top: [], detected: true };
    const s = summarise([
      { ...base, fault: 'delay', rank: 1, delayMs: 10_000 },
      { ...base, fault: 'delay', rank: 3, delayMs: 30_000 },
      { ...base, fault: 'cpu', rank: 0, delayMs: null, detected: false },
    ]);
    const cols = (k: (typeof s)[number]) => [k.fault, k.faults, k.detected, k.top1, k.top3];
    expect(s.map((k) => [...cols(k), k.medianDelayMs, k.withinTwoWindows])).toEqual([
      ['delay', 2, 2, 0.5, 1, 20_000, 1],
      ['cpu', 1, 0, 0, 0, null, 0],
      ['all', 3, 2, 1 / 3, 2 / 3, 20_000, 1],
    ]);
    // 10 s windows: an incident from 5 s before the fault's start ends its first window 5 s
    // after it (the first window); from 10 s after, 20 s after (the second); 30 s: the fourth.
    expect([-5_000, 0, 10_000, 10_001, 30_000].map((d) => delayWindows(d, 10_000))).toEqual([
      1, 1, 2, 3, 4,
    ]);
  });

  it('calls an incident false only outside every fault and its settling time', () => {
    const incidents = [
      { fromMs: 50_000, toMs: 60_000, rootCauses: [] },
      { fromMs: 165_000, toMs: 175_000, rootCauses: [] },
      { fromMs: 190_000, toMs: 200_000, rootCauses: [] },
    ];
    expect(falseIncidents(labels, incidents, 20_000).map((i) => i.fromMs)).toEqual([
      50_000, 190_000,
    ]);
    // The stretch after the fault loses its settling time.
    expect(faultFreeMs(labels, 20_000)).toBe(60_000 + 40_000);
  });

  it('parses a schedule and names what is wrong', () => {
    expect(parseSchedule('delay:route, cpu:customer')).toEqual([
      { fault: 'delay', target: 'route' },
      { fault: 'cpu', target: 'customer' },
    ]);
    expect(() => parseSchedule('flood:route')).toThrow(/unknown fault "flood"/);
    expect(() => parseSchedule('pool:route')).toThrow(/pool cannot target "route"/);
    // No gc fault on HotROD: its runtime's settings made no visible slowdown (docs/incidents.md).
    expect(() => parseSchedule('gc:route')).toThrow(/unknown fault "gc"/);
    // A fault-free run.
    expect(parseSchedule('none')).toEqual([]);
  });
});
