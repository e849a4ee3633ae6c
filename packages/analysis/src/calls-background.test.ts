import { describe, expect, it } from 'vitest';
import { extractCalls } from './calls';
import type { SpanRecord } from './span-record';

const span = (over: Partial<SpanRecord> & Pick<SpanRecord, 'spanId'>): SpanRecord => ({
  traceId: 't1',
  parentSpanId: 'root',
  kind: 'Internal',
  service: 'kv',
  name: 'get',
  startNs: 1_000n,
  durationNs: 1_000n,
  resource: {},
  attributes: {},
  ...over,
});

describe('calls and background activity', () => {
  it('never counts a background.activity span as a call, even nested under a request', () => {
    const spans = [
      span({
        spanId: 'root',
        parentSpanId: '',
        kind: 'Server',
        service: 'frontend',
        name: 'search',
      }),
      span({ spanId: 'kv1' }),
      span({ spanId: 'kv2' }),
      span({ spanId: 'gc1', name: 'gc', attributes: { 'background.activity': 'gc' } }),
      span({ spanId: 'gc2', name: 'gc', attributes: { 'background.activity': 'gc' } }),
    ];
    expect(extractCalls(spans).map((c) => c.spanId)).toEqual(['kv1', 'kv2']);
  });
});
