import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_TAIL_REQUESTS, summarizeReport } from './summary';
import type { OperationReport, Report } from './types';

// The summary of a real seeded report (tracegen sick-host: 12 storage hosts, storage-07 slow
// for an episode; 1500 requests, seed 11; replays seed 3), and of the same operation with its
// data cut down to where no recommendation can stand.
const FIXTURE = new URL('./__fixtures__/sick-host-report.json', import.meta.url);
const report = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Report;
const storage = report.operations[0] as OperationReport;

/** A copy of the storage operation under another leaf name, changed by `edit`. */
function variant(leafOperation: string, edit: (op: OperationReport) => void): OperationReport {
  const op = structuredClone(storage);
  op.fanout.leafOperation = leafOperation;
  edit(op);
  return op;
}

describe('summarizeReport', () => {
  it('states the tail, each policy with its interval and cost in machines, and recommends', () => {
    const s = summarizeReport(report);
    const op = s.operations[0];
    expect(op).toMatchObject({ rank: 1, leafService: 'storage', hosts: 12, tailRequests: 15 });
    expect(op?.tail.p99Ms).toBeCloseTo(storage.fanout.table1.allLeaves.p99, 9);
    const hedge = op?.policies.find((p) => p.kind === 'hedge');
    const probation = op?.policies.find((p) => p.kind === 'probation');
    const hedgeRun = storage.whatIf.find((w) => w.policy.kind === 'hedge')?.result;
    // Costs in machines at today's traffic: the share times the 12 storage hosts.
    expect(hedge?.extraMachines).toBeCloseTo((hedgeRun?.extraLoad ?? Number.NaN) * 12, 9);
    expect(hedge?.removedMachines).toBe(0);
    expect(probation?.removedMachines).toBeCloseTo((1 / 18) * 12, 9);
    // Change = replay - today, with the replay's interval shifted by the same amount.
    expect(hedge?.p99ChangeMs.value).toBeCloseTo(
      (hedgeRun?.whatIf.p99.value ?? 0) - (hedgeRun?.baseline.p99 ?? 0),
      9,
    );
    expect(hedge?.clearGain).toBe(true);
    // Hedging cuts the p99 most, and its interval does not overlap probation's: adopt it.
    expect(op?.recommendation).toMatchObject({ verdict: 'adopt', policy: 'hedge at the call p95' });
    expect(s.lines[0]).toMatch(/^1\. api GET \/feed → storage Read: 1,500 fan-outs .* 12 host/);
    expect(s.lines[0]).toContain('Recommendation: adopt hedge at the call p95');
  });

  it('says so where the data cannot support a recommendation, and ranks those last', () => {
    const fewTail = variant('FewTail', (op) => {
      op.stragglers.tailFanouts = MIN_TAIL_REQUESTS - 1;
    });
    const oneHost = variant('OneHost', (op) => {
      op.stragglers.rows = op.stragglers.rows.filter(
        (r) => r.dimension !== 'host' || r.value === 'storage-07',
      );
    });
    const noGain = variant('NoGain', (op) => {
      for (const w of op.whatIf) w.result.whatIf.p99.high = w.result.baseline.p99 + 1;
    });
    const s = summarizeReport({ operations: [fewTail, oneHost, noGain, storage] });
    expect(s.operations.map((o) => [o.leafOperation, o.recommendation.verdict])).toEqual([
      ['Read', 'adopt'],
      ['NoGain', 'keep'],
      ['FewTail', 'insufficient-data'],
      ['OneHost', 'insufficient-data'],
    ]);
    const by = (name: string) => s.operations.find((o) => o.leafOperation === name);
    expect(by('FewTail')?.recommendation.reason).toMatch(/only 9 fan-out\(s\) above the p99/);
    expect(by('OneHost')?.recommendation.reason).toMatch(/one host serves every call/);
    expect(by('NoGain')?.recommendation.policy).toBeNull();
    expect(s.lines[3]).toMatch(/^4\. .*No recommendation: one host/);
  });

  it('picks the cheaper policy when the data cannot tell their gains apart', () => {
    const close = variant('Read', (op) => {
      const [hedge, probation] = op.whatIf;
      if (!hedge || !probation) throw new Error('fixture has both policies');
      // Probation's interval now overlaps hedging's, and it costs less.
      probation.result.whatIf.p99 = { ...hedge.result.whatIf.p99, value: 9, low: 7.9 };
      if (probation.result.probation) probation.result.probation.capacityRemoved = 0.001;
      probation.result.extraLoad = 0.001;
    });
    const s = summarizeReport({ operations: [close] });
    expect(s.operations[0]?.recommendation.policy).toBe('probation (defaults)');
  });
});
