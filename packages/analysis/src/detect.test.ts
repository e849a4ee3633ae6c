import { describe, expect, it } from 'vitest';
import { detectFanouts } from './detect';
import type { SpanRecord } from './span-record';
import { hostEpisodes, hostWindowStats } from './hosts';
import { buildLeafCalls, type CallRecord } from './leaf-calls-builder';

const MS = 1_000_000n;
const T0 = 1_700_000_000_000n * MS;

function span(
  p: Partial<SpanRecord> & Pick<SpanRecord, 'spanId' | 'kind' | 'startNs' | 'durationNs'>,
): SpanRecord {
  return {
    traceId: 't'.repeat(32),
    parentSpanId: 'root',
    service: 'kv',
    name: 'get',
    resource: {},
    attributes: {},
    ...p,
  };
}

const root = span({
  spanId: 'root',
  parentSpanId: '',
  kind: 'Server',
  service: 'front',
  name: 'GET /',
  startNs: T0,
  durationNs: 100n * MS,
});

describe('detectFanouts (the TypeScript reference)', () => {
  it('measures CLIENT calls by their own duration with host and names from the SERVER child', () => {
    const spans = [
      root,
      span({
        spanId: 'c1',
        kind: 'Client',
        service: 'front',
        name: 'GET',
        startNs: T0,
        durationNs: 10n * MS,
        attributes: { 'peer.service': 'kv', zone: 'c' },
      }),
      span({
        spanId: 's1',
        parentSpanId: 'c1',
        kind: 'SPAN_KIND_SERVER',
        startNs: T0 + MS,
        durationNs: 8n * MS,
        resource: { 'k8s.node.name': 'node-1', 'host.sharing_mode': 'shared' },
        attributes: { zone: 's' },
      }),
      span({
        spanId: 'c2',
        kind: 'SPAN_KIND_CLIENT',
        service: 'front',
        name: 'GET',
        startNs: T0 + 2n * MS,
        durationNs: 5n * MS,
        attributes: { 'peer.service': 'kv', 'server.address': 'addr-2' },
      }),
    ];
    const ops = detectFanouts(spans, {
      fromNs: T0,
      toNs: T0 + 1000n * MS,
      attributeKeys: ['zone', 'none'],
    });
    // c1 is answered by kv/get; c2 has no SERVER child, so it is peer.service and its own name,
    // kv/GET. Each group has one call: no fan-out yet.
    expect(ops).toEqual([]);
    const both = detectFanouts(
      [
        ...spans,
        span({
          spanId: 's2',
          parentSpanId: 'c2',
          kind: 'Server',
          name: 'get',
          startNs: T0 + 2n * MS,
          durationNs: MS,
          resource: { 'host.name': 'h2' },
        }),
      ],
      { fromNs: T0, toNs: T0 + 1000n * MS, attributeKeys: ['zone', 'none'] },
    );
    expect(both).toHaveLength(1);
    const c = both[0]?.calls;
    expect(both[0]?.operation).toEqual({
      parentService: 'front',
      parentOperation: 'GET /',
      leafService: 'kv',
      leafOperation: 'get',
    });
    expect(Array.from(c?.durationMs ?? [])).toEqual([10, 5]);
    expect(Array.from(c?.startMs ?? [])).toEqual([0, 2]);
    expect(c?.hosts).toEqual(['node-1', 'h2']);
    expect(c?.modes).toEqual(['shared', 'unknown']);
    expect(c?.attributes?.zone?.values).toEqual(['s', '(absent)']);
    expect(c?.attributes?.none?.values).toEqual(['(absent)']);
  });

  it('names CLIENT calls without SERVER span by peer.service, else server.address', () => {
    const spans = [
      root,
      span({
        spanId: 'a',
        kind: 'Client',
        service: 'front',
        name: 'GET',
        startNs: T0,
        durationNs: 4n * MS,
        attributes: { 'server.address': 'db-1' },
      }),
      span({
        spanId: 'b',
        kind: 'Client',
        service: 'front',
        name: 'GET',
        startNs: T0,
        durationNs: 6n * MS,
        attributes: { 'server.address': 'db-1' },
      }),
    ];
    const [op] = detectFanouts(spans, { fromNs: T0, toNs: T0 + MS * 1000n });
    expect(op?.operation.leafService).toBe('db-1');
    expect(op?.operation.leafOperation).toBe('GET');
    expect(op?.calls.hosts).toEqual(['db-1']);
    expect(op?.calls.modes).toEqual(['unknown']);
  });

  it('takes SERVER children directly under the parent, keeps all of a request calls, marks background', () => {
    const spans = [
      root,
      span({
        spanId: 'x1',
        kind: 'Server',
        startNs: T0,
        durationNs: 10n * MS,
        resource: { 'host.id': 'h1' },
      }),
      span({
        spanId: 'x2',
        kind: 'Server',
        startNs: T0 + 5n * MS,
        durationNs: 10n * MS,
        resource: { 'service.instance.id': 'h2' },
      }),
      span({
        spanId: 'x3',
        kind: 'Server',
        startNs: T0 + 50n * MS,
        durationNs: 10n * MS,
        resource: {},
      }), // overlaps neither, but one request's calls on one edge are one fan-out (width 3)
      span({
        spanId: 'bg1',
        parentSpanId: '',
        kind: 'Internal',
        startNs: T0 + 8n * MS,
        durationNs: 100n * MS,
        resource: { 'host.id': 'h1' },
        attributes: { 'background.activity': 'gc' },
      }),
      span({
        spanId: 'bg2',
        parentSpanId: '',
        kind: 'Internal',
        startNs: T0,
        durationNs: 100n * MS,
        resource: { 'host.id': 'h1' },
        attributes: { 'background.activity': 'backup' },
      }),
      span({
        spanId: 'bg3',
        parentSpanId: '',
        kind: 'Internal',
        startNs: T0 + 15n * MS,
        durationNs: MS,
        resource: { 'service.instance.id': 'h2' },
        attributes: { 'background.activity': 'gc' },
      }),
    ];
    const [op] = detectFanouts(spans, { fromNs: T0, toNs: T0 + 1000n * MS });
    expect(Array.from(op?.calls.fanoutOffsets ?? [])).toEqual([0, 3]);
    // 2 of 3 in flight at once, not sent at once: a pool of 2.
    expect(op?.structures).toEqual([{ concurrency: 2, structure: 'pool' }]);
    // h1's call overlaps gc and backup: the alphabetically first; h2's ends as bg3 starts: none.
    expect(op?.calls.hosts).toEqual(['h1', 'h2', 'unknown']);
    expect(Array.from(op?.calls.background ?? []).map((b) => op?.calls.backgrounds[b])).toEqual([
      'backup',
      'none',
      'none',
    ]);
  });

  it('keeps a fan-out by its earliest call start in [from, to)', () => {
    const spans = [
      root,
      span({ spanId: 'y1', kind: 'Server', startNs: T0 + 10n * MS, durationNs: 10n * MS }),
      span({ spanId: 'y2', kind: 'Server', startNs: T0 + 12n * MS, durationNs: 10n * MS }),
    ];
    expect(detectFanouts(spans, { fromNs: T0 + 10n * MS, toNs: T0 + 11n * MS })).toHaveLength(1);
    expect(detectFanouts(spans, { fromNs: T0 + 11n * MS, toNs: T0 + 20n * MS })).toHaveLength(0);
  });
});

describe('host windows and episodes', () => {
  it('finds the host that was slow for three windows, not diluted over the hour', () => {
    const fanouts = [];
    for (let f = 0; f < 600; f++) {
      const calls: CallRecord[] = [];
      for (let h = 0; h < 10; h++) {
        const sick = h === 3 && f >= 200 && f < 380;
        calls.push({
          startMs: 0,
          durationMs: sick ? 50 + (f % 7) : 5 + (f % 5) * 0.5,
          host: `h${h}`,
          mode: 'm',
          background: 'none',
        });
      }
      fanouts.push({
        traceId: `t${f}`,
        parentSpanId: 'p',
        startMs: 1_700_000_000_000 + f * 1000,
        calls,
      });
    }
    const calls = buildLeafCalls(fanouts);
    const cells = hostWindowStats(calls, 60_000);
    const fleet = cells.filter((c) => c.host === null);
    expect(fleet.reduce((s, c) => s + c.calls, 0)).toBe(6000);
    const episodes = hostEpisodes(cells, { windowMs: 60_000 });
    expect(episodes).toHaveLength(1);
    expect(episodes[0]?.host).toBe('h3');
    expect(episodes[0]?.windows).toBeGreaterThanOrEqual(2);
    expect(episodes[0]?.worstP99Ms).toBeGreaterThan(50);
    expect(episodes[0]?.fleetP99Ms).toBeLessThan(8);
    expect(() => hostWindowStats(calls, 0)).toThrow(RangeError);
  });
});
