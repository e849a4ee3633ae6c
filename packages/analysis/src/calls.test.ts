import { describe, expect, it } from 'vitest';
import { dedupeSpans, extractCalls } from './calls';
import { skewPairs } from './skew';
import type { SpanRecord } from './span-record';
import { groupRequestEdges } from './structure';

const MS = 1_000_000n;
const T0 = 1_700_000_000_000n * MS;

let next = 0;
function span(p: Partial<SpanRecord> & Pick<SpanRecord, 'kind'>): SpanRecord {
  return {
    traceId: 't'.repeat(32),
    spanId: `s${next++}`,
    parentSpanId: 'root',
    service: 'front',
    name: 'op',
    startNs: T0,
    durationNs: 10n * MS,
    resource: {},
    attributes: {},
    ...p,
  };
}

const root = span({ spanId: 'root', parentSpanId: '', kind: 'Server', name: 'GET /dispatch' });
const http = { 'http.method': 'GET', 'http.url': '0.0.0.0:8083' };

describe('extractCalls (the TypeScript reference of calls)', () => {
  it('finds HotROD-style INTERNAL calls behind a wrapper, named by their SERVER answer', () => {
    const wrap = span({ spanId: 'w', kind: 'Internal', name: 'HTTP GET: /route' });
    const call = span({
      spanId: 'c',
      parentSpanId: 'w',
      kind: 'Internal',
      name: 'HTTP GET',
      attributes: http,
    });
    const server = span({
      parentSpanId: 'c',
      kind: 'Server',
      service: 'route',
      name: 'HTTP GET /route',
      resource: { 'host.name': 'r1' },
    });
    const [c, ...rest] = extractCalls([root, wrap, call, server]);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      callerSpanId: 'root',
      callerService: 'front',
      callerOperation: 'GET /dispatch',
      via: 'internal',
      leafService: 'route',
      leafOperation: 'HTTP GET /route',
      host: 'r1',
      clientHost: 'unknown',
      wrappers: 1,
      answers: 1,
    });
  });

  it('does not take an INTERNAL span with two children, or with no client attributes, for a call', () => {
    const group = span({ spanId: 'g', kind: 'Internal', name: 'fetch all' });
    const a = span({
      parentSpanId: 'g',
      kind: 'Client',
      service: 'front',
      attributes: { 'peer.service': 'kv' },
    });
    const b = span({
      parentSpanId: 'g',
      kind: 'Client',
      service: 'front',
      attributes: { 'peer.service': 'kv' },
    });
    const calls = extractCalls([root, group, a, b]);
    // The group is the caller (not a wrapper: two children), and no call itself.
    expect(calls.map((c) => [c.callerOperation, c.leafService, c.wrappers])).toEqual([
      ['fetch all', 'kv', 0],
      ['fetch all', 'kv', 0],
    ]);
  });

  it('walks at most MAX_WRAPPER_HOPS wrappers', () => {
    const chain = ['w1', 'w2', 'w3', 'w4'].map((id, i) =>
      span({ spanId: id, parentSpanId: i === 0 ? 'root' : `w${i}`, kind: 'Internal', name: id }),
    );
    const call = span({ parentSpanId: 'w4', kind: 'Client', attributes: { 'peer.service': 'kv' } });
    const [c] = extractCalls([root, ...chain, call]);
    expect(c).toMatchObject({ callerSpanId: 'w1', callerOperation: 'w1', wrappers: 3 });
  });

  it('counts a call answered by two SERVER spans once, named and placed by the earlier', () => {
    const call = span({ spanId: 'c', kind: 'Client', startNs: T0, durationNs: 30n * MS });
    const retry = span({
      parentSpanId: 'c',
      kind: 'Server',
      service: 'kv',
      name: 'get',
      startNs: T0 + 12n * MS,
      resource: { 'host.name': 'b' },
    });
    const first = span({
      parentSpanId: 'c',
      kind: 'Server',
      service: 'kv',
      name: 'get',
      startNs: T0 + MS,
      resource: { 'host.name': 'a' },
    });
    const calls = extractCalls([root, call, retry, first]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ host: 'a', answers: 2, skewNs: 0n, endNs: T0 + 30n * MS });
  });

  it('dedupes spans by (traceId, spanId) and counts the extra copies', () => {
    const call = span({ spanId: 'c', kind: 'Client', attributes: { 'peer.service': 'kv' } });
    const server = span({
      spanId: 'sv',
      parentSpanId: 'c',
      kind: 'Server',
      service: 'kv',
      name: 'get',
    });
    const { spans, duplicates } = dedupeSpans([root, call, call, server, { ...server }, root]);
    expect(duplicates).toBe(3);
    const calls = extractCalls(spans);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.answers).toBe(1);
  });

  it('a PRODUCER naming its broker is a call to the broker, whichever consumer starts first', () => {
    const p = span({
      spanId: 'p',
      kind: 'Producer',
      name: 'events publish',
      attributes: { 'messaging.system': 'kafka', 'peer.service': 'kafka' },
    });
    const consumer = (id: string, service: string, ms: bigint) =>
      span({
        spanId: id,
        parentSpanId: 'p',
        kind: 'Consumer',
        service,
        name: 'process',
        startNs: T0 + ms * MS,
      });
    for (const [a, b] of [
      [consumer('c1', 'audit', 20n), consumer('c2', 'notifier', 21n)],
      [consumer('c1', 'audit', 21n), consumer('c2', 'notifier', 20n)],
    ] as const) {
      const calls = extractCalls([root, p, a, b]);
      expect(calls.map((c) => [c.leafService, c.leafOperation, c.answers])).toEqual([
        ['kafka', 'events publish', 2],
      ]);
    }
  });

  it('a PRODUCER with two CONSUMERs is one call, not a fan-out', () => {
    const p = span({
      spanId: 'p',
      kind: 'Producer',
      name: 'publish',
      attributes: { 'messaging.system': 'kafka' },
    });
    const c1 = span({
      parentSpanId: 'p',
      kind: 'Consumer',
      service: 'audit',
      name: 'consume',
      startNs: T0 + 20n * MS,
    });
    const c2 = span({
      parentSpanId: 'p',
      kind: 'Consumer',
      service: 'audit',
      name: 'consume',
      startNs: T0 + 21n * MS,
    });
    const calls = extractCalls([root, p, c1, c2]);
    expect(calls.map((c) => [c.via, c.leafService, c.leafOperation, c.answers, c.skewNs])).toEqual([
      ['producer', 'audit', 'consume', 2, 0n],
    ]);
    expect(groupRequestEdges(calls).map((e) => e.structure)).toEqual(['single']);
  });

  it('times a skewed call on the caller clock and counts the skew per host pair', () => {
    const call = span({
      spanId: 'c',
      kind: 'Client',
      startNs: T0,
      durationNs: 10n * MS,
      resource: { 'host.name': 'fe' },
    });
    const server = span({
      parentSpanId: 'c',
      kind: 'Server',
      service: 'kv',
      name: 'get',
      startNs: T0 - 3n * MS,
      durationNs: 8n * MS,
      resource: { 'host.name': 'kv1' },
    });
    const calls = extractCalls([root, call, server]);
    expect(calls[0]).toMatchObject({ startNs: T0, endNs: T0 + 10n * MS, skewNs: 3n * MS });
    expect(skewPairs(calls)).toEqual([{ clientHost: 'fe', serverHost: 'kv1', calls: 1, maxMs: 3 }]);
  });

  it('takes cross-service INTERNAL spans and peer.service INTERNAL spans for calls', () => {
    const driver = span({ spanId: 'd', kind: 'Server', service: 'driver', name: 'FindNearest' });
    const redis = span({
      parentSpanId: 'd',
      kind: 'Internal',
      service: 'redis',
      name: 'GetDriver',
    });
    const own = span({ parentSpanId: 'd', kind: 'Internal', service: 'driver', name: 'compute' });
    const mysql = span({
      parentSpanId: 'root',
      kind: 'Internal',
      service: 'mysql',
      name: 'SQL SELECT',
      attributes: { 'peer.service': 'mysql' },
    });
    const calls = extractCalls([root, driver, redis, own, mysql]);
    expect(
      calls.map((c) => [c.via, c.callerOperation, c.leafService, c.leafOperation, c.host]),
    ).toEqual([
      ['server', 'GET /dispatch', 'driver', 'FindNearest', 'unknown'],
      ['cross-service', 'FindNearest', 'redis', 'GetDriver', 'unknown'],
      ['internal', 'GET /dispatch', 'mysql', 'SQL SELECT', 'unknown'],
    ]);
  });

  it('keeps the request of a call whose caller span is missing, names empty', () => {
    const call = span({
      parentSpanId: 'gone',
      kind: 'Client',
      attributes: { 'server.address': 'kv-3' },
    });
    expect(extractCalls([call])[0]).toMatchObject({
      callerSpanId: 'gone',
      callerService: '',
      callerDurationNs: 0n,
      leafService: 'kv-3',
      host: 'kv-3',
    });
  });
});
