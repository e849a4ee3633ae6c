import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Span, TraceResponse, TraceSummaryResponse } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import { mixedSpans, insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * `fields=summary` and the one-span route on the real engine: the summary carries the same
 * spans, ids, times, statuses and critical path as the full answer without any attribute,
 * resource, event or link, and the span route gives back exactly a full answer's span.
 */

const TRACE = 'feed0000000000000000000000000001';
const hex = (n: number): string => n.toString(16).padStart(16, '0');

function nsText(ms: number): string {
  const ns = T0_NS + BigInt(Math.round(ms * 1e6));
  return `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/** A root over a locked query (an error with events and a link) and a parallel cache call. */
function detailedTrace(): string {
  const row = (
    span: number,
    parent: number,
    startMs: number,
    durMs: number,
    extra: Record<string, unknown>,
  ) =>
    JSON.stringify({
      Timestamp: nsText(startMs),
      TraceId: TRACE,
      SpanId: hex(span),
      ParentSpanId: parent === 0 ? '' : hex(parent),
      SpanName: span === 1 ? 'GET /dispatch' : span === 2 ? 'SQL SELECT' : 'GetDriver',
      SpanKind: span === 1 ? 'Server' : 'Client',
      ServiceName: span === 1 ? 'frontend' : span === 2 ? 'mysql' : 'redis',
      ResourceAttributes: { 'service.name': 'x', 'host.name': `host-${span}` },
      SpanAttributes: { 'http.method': 'GET', 'span.n': String(span) },
      Duration: String(Math.round(durMs * 1e6)),
      StatusCode: 'Unset',
      ...extra,
    });
  return [
    row(1, 0, 0, 1_200, {}),
    row(2, 1, 5, 1_100, {
      StatusCode: 'Error',
      StatusMessage: 'lock wait timeout',
      'Events.Timestamp': [nsText(10), nsText(900)],
      'Events.Name': ['Waiting for lock behind 3 transactions', 'Acquired lock'],
      'Events.Attributes': [{ blockers: '3' }, {}],
      'Links.TraceId': ['feed0000000000000000000000000002'],
      'Links.SpanId': [hex(9)],
      'Links.TraceState': [''],
      'Links.Attributes': [{ 'link.kind': 'retry-of' }],
    }),
    row(3, 1, 5, 40, {
      SpanAttributes: { 'http.method': 'GET', 'span.n': '3', 'peer.service': 'redis' },
    }),
  ].join('\n');
}

describe('GET /api/v1/traces/{traceId}?fields=summary and the span route', () => {
  let api: Api;
  let close: () => Promise<void>;
  let store: Awaited<ReturnType<typeof openTempStore>>['store'];

  beforeAll(async () => {
    const t = await openTempStore('trace-summary');
    close = t.close;
    store = t.store;
    await t.store.client.command({
      query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${detailedTrace()}`,
    });
    // Other traces beside it, so a read that ignored the trace id would show.
    await insertSpans(t.store, mixedSpans(3, 50));
    api = await buildStoreApi(t.store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await api.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<T>();
  };

  it('the summary has the full answer spans, times, statuses and path without details', async () => {
    const full = await get<TraceResponse>(`/api/v1/traces/${TRACE}`);
    const summaryRes = await api.inject(`/api/v1/traces/${TRACE}?fields=summary`);
    const summary = summaryRes.json<TraceSummaryResponse>();
    expect(summary.detail).toBe('summary');
    expect(full).not.toHaveProperty('detail');
    expect(summary.criticalPath).toEqual(full.criticalPath);
    expect(summary.criticalPath.map((s) => s.spanId)).toContain(hex(2));
    expect(summary).toMatchObject({ traceId: TRACE, truncated: false, totalSpans: 3 });
    expect(summary.spans).toEqual(
      full.spans.map((s) => ({
        spanId: s.spanId,
        parentSpanId: s.parentSpanId,
        name: s.name,
        kind: s.kind,
        service: s.service,
        startTimeUnixNano: s.startTimeUnixNano,
        durationNs: s.durationNs,
        // An unset status without a message is left out.
        ...(s.status.code === 'unset' && s.status.message === '' ? {} : { status: s.status }),
        // Only the keys naming a call's host and peer stay.
        resource: { 'host.name': s.resource['host.name'] },
        ...(s.spanId === hex(3) ? { attributes: { 'peer.service': 'redis' } } : {}),
      })),
    );
    expect(summary.spans.filter((s) => s.status !== undefined)).toHaveLength(1);
    const error = summary.spans.find((s) => s.spanId === hex(2));
    expect(error?.status).toEqual({ code: 'error', message: 'lock wait timeout' });
    // The first root comes in full, as the span route answers it (the page shows it first).
    const root = full.spans.find((s) => s.parentSpanId === '');
    expect(root).toBeDefined();
    expect(summary.rootSpan).toEqual(root);
    // None of the other spans' details travels: no other attribute, no scope, event or link.
    const { rootSpan: _root, ...rest } = summary;
    const others = JSON.stringify(rest);
    for (const word of ['http.method', 'service.name', 'Waiting for lock', 'retry-of', 'scope'])
      expect(others).not.toContain(word);
    expect(others.length).toBeLessThan(JSON.stringify(full).length * 0.6);
    // fields=full is the default answer, byte for byte.
    // Asked again, the same answer (kept per trace while its stored spans are unchanged).
    const again = await api.inject(`/api/v1/traces/${TRACE}?fields=summary`);
    expect(again.body).toBe(summaryRes.body);
    const explicit = await api.inject(`/api/v1/traces/${TRACE}?fields=full`);
    const plain = await api.inject(`/api/v1/traces/${TRACE}`);
    expect(explicit.body).toBe(plain.body);
  });

  it('the span route answers one span exactly as the full answer holds it', async () => {
    const full = await get<TraceResponse>(`/api/v1/traces/${TRACE}`);
    for (const s of full.spans) {
      const one = await get<Span>(`/api/v1/traces/${TRACE}/spans/${s.spanId}`);
      expect(one).toEqual(s);
    }
    const q = await get<Span>(`/api/v1/traces/${TRACE.toUpperCase()}/spans/${hex(2)}`);
    expect(q.events.map((e) => e.name)).toEqual([
      'Waiting for lock behind 3 transactions',
      'Acquired lock',
    ]);
    expect(q.events[0]?.attributes).toEqual({ blockers: '3' });
    expect(BigInt(q.events[1]?.timeUnixNano ?? '0') - BigInt(q.startTimeUnixNano)).toBe(
      895_000_000n,
    );
    expect(q.links).toEqual([
      {
        traceId: 'feed0000000000000000000000000002',
        spanId: hex(9),
        traceState: '',
        attributes: { 'link.kind': 'retry-of' },
      },
    ]);
    expect(q.resource).toEqual({ 'service.name': 'x', 'host.name': 'host-2' });
  });

  it('404 for an unknown span or trace, 400 naming the field for a bad id or fields', async () => {
    const status = async (url: string, code: number, match?: RegExp) => {
      const res = await api.inject(url);
      expect(res.statusCode, res.body).toBe(code);
      if (match)
        expect(res.json<{ error?: string; message?: string }>()).toSatisfy(
          (b: { error?: string; message?: string }) =>
            match.test(`${b.error ?? ''} ${b.message ?? ''}`),
        );
    };
    await status(`/api/v1/traces/${TRACE}/spans/${hex(77)}`, 404, /no span/);
    // A span of another trace is not this trace's.
    await status(`/api/v1/traces/${'0'.repeat(31)}9/spans/${hex(2)}`, 404);
    await status(`/api/v1/traces/${TRACE}/spans/xyz`, 400, /spanId/);
    await status(`/api/v1/traces/${TRACE}/spans/${'g'.repeat(16)}`, 400, /spanId/);
    await status(`/api/v1/traces/${TRACE}/spans/${'a'.repeat(17)}`, 400, /spanId/);
    await status(`/api/v1/traces/nothex/spans/${hex(2)}`, 400, /traceId/);
    await status(`/api/v1/traces/${TRACE}?fields=some`, 400, /fields/);
    await status(`/api/v1/traces/${'0'.repeat(31)}9?fields=summary`, 404, /no trace/);
  });

  it('a span stored later for the trace is in its next summary', async () => {
    const before = await get<TraceSummaryResponse>(`/api/v1/traces/${TRACE}?fields=summary`);
    // The cache span again under another id: a retried export's late part, say.
    const late = (detailedTrace().split('\n')[2] ?? '').replace(`"${hex(3)}"`, `"${hex(0xff)}"`);
    expect(late).toContain(hex(0xff));
    await store.client.command({ query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${late}` });
    const after = await get<TraceSummaryResponse>(`/api/v1/traces/${TRACE}?fields=summary`);
    expect(after.totalSpans).toBe(before.totalSpans + 1);
    expect(after.spans.map((s) => s.spanId)).toContain(hex(0xff));
  });
});
