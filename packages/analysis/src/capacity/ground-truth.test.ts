import { describe, expect, it } from 'vitest';
import { quantileInclusive } from '../quantile';
import { capacityWhatIf, prepareCapacity, simulateCapacityWhatIf } from './answer';
import { machinesForSlo } from './machines';
import {
  chainTrees,
  exponential,
  logNormal,
  queueTrees,
  ROOT_AFTER_MS,
  ROOT_BEFORE_MS,
  runQueue,
  type QueueModel,
} from './synthetic';

/** p50 and p99 of the request time under the model at `factor` times its load (Monte Carlo). */
function truth(m: QueueModel, factor: number): { p50: number; p99: number } {
  const q = runQueue({ ...m, ratePerMs: m.ratePerMs * factor }, 1_000_000, 99, 20_000);
  const t = Float64Array.from(
    q.waitMs,
    (w, i) => ROOT_BEFORE_MS + w + q.serviceMs[i]! + ROOT_AFTER_MS,
  ).sort();
  return { p50: quantileInclusive(t, 0.5), p99: quantileInclusive(t, 0.99) };
}

// Tolerance: 5% on p50 and p99 (the issue's), for a recording of 100,000 requests at
// utilisation 0.4 predicted at 0.48, 0.6 and 0.8 against 1,000,000 arrivals of the true model.
const TOL = 0.05;

describe.each([
  { name: 'M/M/4', model: { ratePerMs: 0.16, servers: 4, service: exponential(10) } },
  {
    name: 'M/G/3 (log-normal service)',
    model: { ratePerMs: 0.12, servers: 3, service: logNormal(10, 0.8) },
  },
])('a recording of $name predicts its own tail at more load', ({ model }) => {
  const trees = queueTrees(model, 100_000, 7);
  const prepared = prepareCapacity(trees, { seed: 3 });

  it('fits the queue: k, utilisation, the M/G/k model', () => {
    const r = simulateCapacityWhatIf(prepared, [{ kind: 'load', factor: 1 }], {
      bootstrapSamples: 200,
    });
    const db = r.services.find((s) => s.service === 'db')!;
    expect(db.k).toBe(model.servers);
    expect(db.model).toBe('mgk');
    expect(db.fitError).toBeLessThan(0.05);
    expect(Math.abs(db.utilisation - 0.4)).toBeLessThan(0.06);
    // 1x replays the recording exactly (no wait changes).
    expect(r.whatIf!.p99.value).toBeCloseTo(r.baseline.p99, 9);
  });

  it.each([1.2, 1.5, 2])(
    'predicts p50 and p99 at %sx within 5%%',
    (factor) => {
      const r = simulateCapacityWhatIf(prepared, [{ kind: 'load', factor }], {
        bootstrapSamples: 200,
      });
      const want = truth(model, factor);
      const got = r.whatIf!;
      const e = (a: number, b: number) => `${((a / b - 1) * 100).toFixed(1)}%`;
      console.log(
        `x${factor}: p50 ${got.p50.value.toFixed(2)} vs ${want.p50.toFixed(2)} (${e(got.p50.value, want.p50)}), p99 ${got.p99.value.toFixed(2)} vs ${want.p99.toFixed(2)} (${e(got.p99.value, want.p99)})`,
      );
      expect(
        Math.abs(got.p50.value / want.p50 - 1),
        `p50 ${got.p50.value} vs ${want.p50}`,
      ).toBeLessThan(TOL);
      expect(
        Math.abs(got.p99.value / want.p99 - 1),
        `p99 ${got.p99.value} vs ${want.p99}`,
      ).toBeLessThan(TOL);
    },
    120_000,
  );
});

describe('saturation and machines', () => {
  const model = { ratePerMs: 0.16, servers: 4, service: exponential(10) };
  const trees = queueTrees(model, 20_000, 11);

  it('says the service saturates at 3x instead of a number', () => {
    const r = capacityWhatIf(trees, [{ kind: 'load', factor: 3 }], { bootstrapSamples: 100 });
    expect(r.whatIf).toBeUndefined();
    expect(r.saturated).toEqual(['db']);
    expect(r.saturatesFirst).toBe('db');
    expect(r.notes[0]).toMatch(/db saturates/);
  });

  it('flags extrapolation beyond the highest load observed and widens the intervals', () => {
    const p = prepareCapacity(trees);
    const a = simulateCapacityWhatIf(p, [{ kind: 'load', factor: 1.5 }], { bootstrapSamples: 200 });
    expect(a.extrapolated).toBe(true);
    expect(a.services[0]!.loadOverObserved).toBeGreaterThan(1.2);
    expect(a.notes.join(' ')).toMatch(/intervals widened/);
  });

  it('a second machine at 2x load halves the per-instance load', () => {
    const p = prepareCapacity(trees);
    const two = simulateCapacityWhatIf(
      p,
      [
        { kind: 'load', factor: 2 },
        { kind: 'machines', service: 'db', count: 2 },
      ],
      { bootstrapSamples: 100 },
    );
    const db = two.services[0]!;
    expect(db.instancesAfter).toBe(2);
    expect(Math.abs(db.utilisationAfter - db.utilisation)).toBeLessThan(1e-9);
    expect(two.whatIf!.p99.value).toBeCloseTo(two.baseline.p99, 9);
  });

  it('rejects a count below 1 and an unknown service, naming the field', () => {
    const p = prepareCapacity(trees);
    expect(() =>
      simulateCapacityWhatIf(p, [{ kind: 'machines', service: 'db', delta: -1 }]),
    ).toThrow(/db would have 0 instances/);
    expect(() =>
      simulateCapacityWhatIf(p, [{ kind: 'machines', service: 'nope', count: 1 }]),
    ).toThrow(/answered no call/);
    expect(() => simulateCapacityWhatIf(p, [{ kind: 'load', factor: 17 }])).toThrow(/\(0, 16\]/);
  });
});

describe('machines for an objective', () => {
  const model = { ratePerMs: 0.16, servers: 4, service: exponential(10) };
  const p = prepareCapacity(queueTrees(model, 20_000, 13));
  const slo = capacityWhatIf(p.fit.trees, [{ kind: 'load', factor: 1 }], { fit: p.fit }).baseline
    .p99;

  it("today's count at today's traffic keeps today's p99", () => {
    const r = machinesForSlo(p, { kind: 'load', factor: 1 }, slo);
    expect(r.counts).toEqual({ db: 1 });
    expect(r.steps).toBe(1);
  });

  it('2x traffic (utilisation 0.8) needs a second db to keep it', () => {
    const r = machinesForSlo(p, { kind: 'load', factor: 2 }, slo);
    expect(r.counts?.db).toBe(2);
    expect(r.p99Ms).toBeLessThanOrEqual(slo);
    // One machine does not: the prediction at 2x is over the objective.
    const one = simulateCapacityWhatIf(p, [{ kind: 'load', factor: 2 }], { bootstrapSamples: 100 });
    expect(one.whatIf?.p99.value).toBeGreaterThan(slo);
  });
});

// A scripted load sends on a schedule (HotROD's bench load: requests 1 / rate apart), and a
// lock serializes a ~300 ms query: such a queue stays flat up to its knee at utilisation 1,
// where Poisson arrivals at the same rates queue long before. The model reads the arrival
// pattern from the recording's own gaps (fit.ts arrivalGaps). Tolerance 5%, as above.
describe('a scripted load (periodic arrivals) behind a lock keeps its knee at utilisation 1', () => {
  const model: QueueModel = {
    ratePerMs: 0.0008,
    servers: 1,
    service: logNormal(300, 0.1),
    arrivals: 'periodic',
  };
  const prepared = prepareCapacity(queueTrees(model, 20_000, 7), { seed: 3 });

  it.each([2, 3.5, 4])('predicts p50 and p99 at x%s (utilisation 0.24 -> 0.96 at most)', (f) => {
    const got = simulateCapacityWhatIf(prepared, [{ kind: 'load', factor: f }], {
      bootstrapSamples: 100,
    }).whatIf!;
    const want = truth(model, f);
    console.log(
      `periodic x${f}: p50 ${got.p50.value.toFixed(1)} vs ${want.p50.toFixed(1)}, p99 ${got.p99.value.toFixed(1)} vs ${want.p99.toFixed(1)}`,
    );
    expect(Math.abs(got.p50.value / want.p50 - 1)).toBeLessThan(TOL);
    expect(Math.abs(got.p99.value / want.p99 - 1)).toBeLessThan(TOL);
  });

  // A short recording (HotROD's: 96 dispatches) holds 95 gaps between its first and last
  // arrival: read as 96 calls over that span the load is 96 / 95 too high (1%), which near
  // the knee (0.24 x 4) is a long queue where there is none. The windows span one gap more.
  it('reads the load of a short recording without the first and last arrival bias', () => {
    const short = prepareCapacity(queueTrees(model, 96, 11), { seed: 3 });
    const w = short.fit.services[0]!.instances[0]!.windows;
    const calls = w.reduce((a, x) => a + x.calls, 0);
    const span = w.length * short.fit.services[0]!.windowMs;
    expect(calls).toBe(96);
    expect(Math.abs(calls / span / model.ratePerMs - 1)).toBeLessThan(1e-3);
  });

  it('saturates past the knee', () => {
    const r = simulateCapacityWhatIf(prepared, [{ kind: 'load', factor: 4.5 }], {
      bootstrapSamples: 20,
    });
    expect(r.saturated).toEqual(['db']);
  });
});

// Calls that wait on one another: each request asks db 10 times in a row (the next call 0.1 ms
// after the answer), one FIFO server for every call. Simulated as independent arrivals they
// would queue behind their own request; the model serves a request's chain as one visit
// (fit.ts visitsOf). Truth: the same event-driven recording at the new rate, 200,000 requests.
describe.each([
  { arrivals: 'periodic' as const, factors: [2, 3.5, 6] },
  { arrivals: 'poisson' as const, factors: [1.5, 2.5] },
])('a chain of 10 calls per request ($arrivals requests)', ({ arrivals, factors }) => {
  const model: QueueModel = {
    ratePerMs: 0.0008,
    servers: 1,
    service: logNormal(15, 0.3),
    arrivals,
  };
  const prepared = prepareCapacity(chainTrees(model, 10, 20_000, 7).trees, { seed: 3 });

  it.each(factors)('predicts p50 and p99 at x%s', (f) => {
    const got = simulateCapacityWhatIf(prepared, [{ kind: 'load', factor: f }], {
      bootstrapSamples: 100,
    }).whatIf!;
    const t = chainTrees({ ...model, ratePerMs: model.ratePerMs * f }, 10, 200_000, 99);
    const sorted = t.requestMs.sort();
    const want = { p50: quantileInclusive(sorted, 0.5), p99: quantileInclusive(sorted, 0.99) };
    console.log(
      `chain ${arrivals} x${f}: p50 ${got.p50.value.toFixed(1)} vs ${want.p50.toFixed(1)}, p99 ${got.p99.value.toFixed(1)} vs ${want.p99.toFixed(1)}`,
    );
    expect(Math.abs(got.p50.value / want.p50 - 1)).toBeLessThan(TOL);
    expect(Math.abs(got.p99.value / want.p99 - 1)).toBeLessThan(TOL);
  });
});
