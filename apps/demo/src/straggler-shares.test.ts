import { describe, expect, it } from 'vitest';
import { stragglerShares, type RawSpan } from './straggler-shares';

let id = 0;
function span(p: Partial<RawSpan> & Pick<RawSpan, 'kind'>): RawSpan {
  id++;
  return {
    traceId: 't',
    spanId: `s${String(id)}`,
    parentSpanId: '',
    startNs: 0n,
    endNs: 0n,
    attributes: {},
    resource: {},
    ...p,
  };
}

/** A fan-out of calls (host, end ms); each CLIENT call has a SERVER child on its host. */
function fanout(trace: string, calls: [string, string, number][]): RawSpan[] {
  const root = span({ traceId: trace, kind: 2, resource: { 'service.name': 'demo-root' } });
  const out = [root];
  for (const [host, mode, endMs] of calls) {
    const c = span({
      traceId: trace,
      kind: 3,
      parentSpanId: root.spanId,
      endNs: BigInt(endMs * 1e6),
    });
    const s = span({
      traceId: trace,
      kind: 2,
      parentSpanId: c.spanId,
      resource: { 'host.name': host, 'host.sharing_mode': mode, 'tailscope.demo.role': 'plain' },
    });
    out.push(c, s);
  }
  return out;
}

describe('stragglerShares', () => {
  it('counts the last call of each fan-out and the background activity it overlapped', () => {
    const spans = [
      ...fanout('a', [
        ['h1', 'contended', 30],
        ['h2', 'dedicated', 5],
      ]),
      ...fanout('b', [
        ['h1', 'contended', 4],
        ['h2', 'dedicated', 9],
      ]),
      ...fanout('c', [
        ['h1', 'contended', 20],
        ['h3', 'dedicated', 6],
      ]),
      span({
        kind: 1,
        startNs: 0n,
        endNs: 50_000_000n,
        attributes: { 'background.activity': 'compaction' },
        resource: { 'host.name': 'h2' },
      }),
    ];
    const r = stragglerShares(spans);
    expect(r).toMatchObject({ fanouts: 3, calls: 6 });
    const row = (dim: string, value: string) =>
      r.rows.find((x) => x.dimension === dim && x.value === value);
    expect(row('mode', 'contended')).toMatchObject({ calls: 3, stragglers: 2, trafficShare: 0.5 });
    expect(row('mode', 'contended')?.lift).toBeCloseTo(4 / 3);
    expect(row('activity', 'compaction')).toMatchObject({ calls: 2, stragglers: 1 });
    expect(row('host', 'h3')).toMatchObject({ calls: 1, stragglers: 0, lift: 0 });
  });

  it('leaves hedge backups and shadows out of the fan-out', () => {
    const spans = fanout('a', [
      ['h1', 'dedicated', 3],
      ['h2', 'dedicated', 4],
      ['h3', 'dedicated', 99],
    ]);
    const backup = spans.find((s) => s.kind === 3 && s.endNs === 99_000_000n);
    if (backup) backup.attributes['tailscope.hedge'] = 'backup';
    const r = stragglerShares(spans);
    expect(r.calls).toBe(2);
    expect(r.rows.find((x) => x.dimension === 'host' && x.value === 'h2')?.stragglers).toBe(1);
  });
});
