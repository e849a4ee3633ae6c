import { describe, expect, it } from 'vitest';
import { eventRows, pathLabel, pathRows } from './span-details';
import { buildTraceTree } from './trace-tree';
import type { TraceSpan } from '../api/contracts';

const T0 = 1_700_000_000_000_000_000n;
const span = (spanId: string, parent: string, startMs: number, durMs: number): TraceSpan => ({
  spanId,
  parentSpanId: parent,
  name: spanId,
  kind: 'internal',
  service: 'mysql',
  startTimeUnixNano: String(T0 + BigInt(startMs * 1e6)),
  durationNs: durMs * 1e6,
  attributes: {},
  resource: {},
  events: [],
  links: [],
  status: { code: 'unset', message: '' },
});

describe('span details', () => {
  it('labels HotROD lock waits by their event attribute, with offsets', () => {
    const s = span('sql', 'root', 10, 400);
    s.events = [
      {
        name: 'log',
        timeUnixNano: String(T0 + 310_000_000n),
        attributes: { event: 'Acquired lock with 0 transactions waiting behind', level: 'info' },
      },
      {
        name: 'log',
        timeUnixNano: String(T0 + 10_500_000n),
        attributes: { event: 'Waiting for lock behind 2 transactions' },
      },
      { name: 'exception', timeUnixNano: String(T0 + 400_000_000n), attributes: {} },
    ];
    const rows = eventRows(s, T0);
    expect(rows.map((r) => r.label)).toEqual([
      'Waiting for lock behind 2 transactions',
      'Acquired lock with 0 transactions waiting behind',
      'exception',
    ]);
    expect(rows[0]?.atSpanMs).toBeCloseTo(0.5, 9);
    expect(rows[1]?.atTraceMs).toBeCloseTo(310, 9);
    expect(rows[1]?.attributes).toEqual({ level: 'info' });
  });

  it('lists path spans by self time, skipping zero-time wrappers', () => {
    const tree = buildTraceTree([span('root', '', 0, 100), span('sql', 'root', 0, 90)]);
    const rows = pathRows(
      [
        { spanId: 'root', selfMs: 10 },
        { spanId: 'sql', selfMs: 90 },
        { spanId: 'gone', selfMs: 0 },
      ],
      tree.byId,
    );
    expect(rows.map((r) => [r.span.span.spanId, r.share])).toEqual([
      ['sql', 0.9],
      ['root', 0.1],
    ]);
  });

  it('names a client span answered by a server as waiting on the callee', () => {
    const tree = buildTraceTree([
      span('root', '', 0, 100),
      { ...span('call', 'root', 0, 90), kind: 'client', service: 'frontend' },
      { ...span('answer', 'call', 5, 80), kind: 'server', service: 'demo-leaf' },
      { ...span('bare', 'root', 95, 2), kind: 'client', service: 'frontend' },
    ]);
    const label = (id: string) => {
      const t = tree.byId.get(id);
      return t ? pathLabel(t) : '';
    };
    expect(label('call')).toBe(
      'frontend: waiting on demo-leaf: network, queueing or a CPU-starved callee',
    );
    expect(label('bare')).toBe('frontend: bare');
    expect(label('answer')).toBe('demo-leaf: answer');
  });
});
