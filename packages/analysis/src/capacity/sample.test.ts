import { describe, expect, it } from 'vitest';
import { quantileInclusive } from '../quantile';
import { prepareCapacity, rootTimes, simulateCapacityWhatIf } from './answer';
import { sampleCapacity } from './sample';
import { exponential, queueTrees } from './synthetic';

/** The capacity preview (sample.ts): a seeded sample of whole requests of a kept fit. */
describe('sampleCapacity', () => {
  const model = { ratePerMs: 0.16, servers: 4, service: exponential(10) };
  const trees = queueTrees(model, 40_000, 11);
  const prepared = prepareCapacity(trees, { seed: 3 });

  it('keeps every request when asked for all, in order, as the fit has them', () => {
    const all = sampleCapacity(prepared, 1e9, 5);
    expect(all.fit.preview).toEqual({ of: 40_000 });
    expect(all.fit.trees.parent).toEqual(trees.parent);
    expect(all.fit.trees.durationMs).toEqual(trees.durationMs);
    expect(all.fit.index.instances.map((x) => x.nodes)).toEqual(
      prepared.fit.index.instances.map((x) => x.nodes),
    );
    expect(all.fit.arrival).toEqual(prepared.fit.arrival);
  });

  it('draws whole requests, seeded, and at 1x gives back their recorded times exactly', () => {
    const a = sampleCapacity(prepared, 2000, 5);
    const b = sampleCapacity(prepared, 2000, 5);
    const c = sampleCapacity(prepared, 2000, 6);
    expect(a.fit.trees.traceIds).toEqual(b.fit.trees.traceIds);
    expect(a.fit.trees.traceIds).not.toEqual(c.fit.trees.traceIds);
    expect(new Set(a.fit.trees.traceIds).size).toBe(2000);
    // Each sampled request is a whole recorded one: same root time under its trace id.
    const recorded = rootTimes(trees);
    const byId = new Map(trees.traceIds.map((id, q) => [id, recorded[q]!]));
    const roots = rootTimes(a.fit.trees);
    a.fit.trees.traceIds.forEach((id, q) => {
      expect(roots[q]).toBe(byId.get(id));
    });
    const r = simulateCapacityWhatIf(a, [{ kind: 'load', factor: 1 }], { bootstrapSamples: 50 });
    expect(r.requests).toBe(2000);
    expect(r.whatIf!.p99.value).toBeCloseTo(r.baseline.p99, 9);
    expect(r.notes[0]).toMatch(/^preview: 2000 of the 40000 requests/);
  });

  it('predicts the whole fit at 1.5x and 2x within 10% on p50 and 20% on p99', () => {
    // A preview of 5,000 requests and shorter simulations against the full answer: the
    // tolerances are those of a p99 read from 5,000 requests (50 above it).
    const preview = sampleCapacity(prepared, 5000, 1);
    for (const factor of [1.5, 2]) {
      const full = simulateCapacityWhatIf(prepared, [{ kind: 'load', factor }], {
        bootstrapSamples: 50,
      });
      const quick = simulateCapacityWhatIf(preview, [{ kind: 'load', factor }], {
        bootstrapSamples: 50,
      });
      expect(quick.services[0]!.utilisationAfter).toBe(full.services[0]!.utilisationAfter);
      const rel = (a: number, b: number) => Math.abs(a / b - 1);
      expect(rel(quick.whatIf!.p50.value, full.whatIf!.p50.value)).toBeLessThan(0.1);
      expect(rel(quick.whatIf!.p99.value, full.whatIf!.p99.value)).toBeLessThan(0.2);
      // And the preview's baseline is its own sample's (like is compared with like).
      const own = Float64Array.from(rootTimes(preview.fit.trees)).sort();
      expect(quick.baseline.p50).toBe(quantileInclusive(own, 0.5));
    }
  });
});
