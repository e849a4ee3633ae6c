import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/store';
import { startServer } from './query-support';

/**
 * Trace reads against the real server (HTTP listeners, ingest, embedded engine): attribute
 * keys holding a newline survive the round trip, one huge trace or span costs a bounded answer
 * with a truncation flag, and spans stored with times outside 1970-2106 (a wrapped negative
 * time, a year past 2200: what ingest accepted before it refused them) neither hide their
 * trace (404) nor move the overview's oldest/newest.
 */

let server: Awaited<ReturnType<typeof startServer>>;
const MAX_SPANS = 50;
const MAX_ATTRIBUTES = 20;

beforeAll(async () => {
  server = await startServer('query-traces', {
    TAILSCOPE_TRACE_MAX_SPANS: String(MAX_SPANS),
    TAILSCOPE_TRACE_MAX_ATTRIBUTES: String(MAX_ATTRIBUTES),
    // Ingest keeps 128 attributes a span by default; this test stores more to read fewer.
    TAILSCOPE_OTLP_MAX_ATTRIBUTES: '10000',
  });
});

afterAll(async () => {
  await server.stop();
});

const T0_NS = 1_763_800_000_000_000_000n;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

interface OtlpSpan {
  traceId: string;
  spanId: string;
  startNs: bigint;
  attributes?: Record<string, string>;
}

async function exportJson(spans: OtlpSpan[]): Promise<void> {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              name: 'op',
              kind: 2,
              startTimeUnixNano: s.startNs.toString(),
              endTimeUnixNano: (s.startNs + 1_000_000n).toString(),
              attributes: Object.entries(s.attributes ?? {}).map(([key, v]) => ({
                key,
                value: { stringValue: v },
              })),
            })),
          },
        ],
      },
    ],
  };
  const res = await fetch(`${server.running.urls.otlpHttp}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  await server.running.ingest.flush();
}

interface TraceAnswer {
  spans: {
    spanId: string;
    startTimeUnixNano: string;
    attributes: Record<string, unknown>;
    omitted?: { attributes: number; events: number; links: number };
  }[];
  truncated: boolean;
  totalSpans: number;
}

async function getTrace(traceId: string): Promise<{ status: number; body: TraceAnswer }> {
  const res = await fetch(`${server.base}/api/v1/traces/${traceId}`);
  return { status: res.status, body: (await res.json()) as TraceAnswer };
}

describe('GET /api/v1/traces/{traceId}', () => {
  it('keeps attribute keys that hold a newline, a tab or a carriage return', async () => {
    const traceId = hex(0xa1, 32);
    const attributes = { 'multi\nline': 'v1', 'tab\tkey': 'v2', 'cr\rkey': 'v3', plain: 'v\n4' };
    await exportJson([{ traceId, spanId: hex(1, 16), startNs: T0_NS, attributes }]);
    const { status, body } = await getTrace(traceId);
    expect(status).toBe(200);
    expect(body.spans[0]?.attributes).toEqual(attributes);
    expect(body.truncated).toBe(false);
    expect(body.totalSpans).toBe(1);
  });

  it('returns at most TAILSCOPE_TRACE_MAX_SPANS spans, earliest first, flagged', async () => {
    const traceId = hex(0xb2, 32);
    const spans = Array.from({ length: MAX_SPANS * 3 }, (_, i) => ({
      traceId,
      spanId: hex(1000 + i, 16),
      startNs: T0_NS + BigInt(MAX_SPANS * 3 - i) * 1_000_000n,
    }));
    await exportJson(spans);
    const { status, body } = await getTrace(traceId);
    expect(status).toBe(200);
    expect(body.truncated).toBe(true);
    expect(body.totalSpans).toBe(MAX_SPANS * 3);
    expect(body.spans).toHaveLength(MAX_SPANS);
    const starts = body.spans.map((s) => BigInt(s.startTimeUnixNano));
    expect(starts[0]).toBe(T0_NS + 1_000_000n);
    expect(starts.every((t, i) => i === 0 || t >= (starts[i - 1] as bigint))).toBe(true);
  });

  it('returns at most TAILSCOPE_TRACE_MAX_ATTRIBUTES attributes per span, counting the rest', async () => {
    const traceId = hex(0xc3, 32);
    const attributes = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`k${String(i).padStart(4, '0')}`, `v${i}`]),
    );
    await exportJson([{ traceId, spanId: hex(7, 16), startNs: T0_NS, attributes }]);
    const { status, body } = await getTrace(traceId);
    expect(status).toBe(200);
    const span = body.spans[0];
    expect(Object.keys(span?.attributes ?? {})).toHaveLength(MAX_ATTRIBUTES);
    expect(span?.omitted).toEqual({ attributes: 5000 - MAX_ATTRIBUTES, events: 0, links: 0 });
  });

  it('finds spans stored at wrapped (negative) and far-future times, and keeps stats sane', async () => {
    const store = server.running.store;
    const insert = (traceId: string, spanId: string, ns: bigint) =>
      store.command(sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ServiceName, SpanName, SpanKind, Duration)
        VALUES (fromUnixTimestamp64Nano(toInt64(${ns.toString()})), ${traceId}, ${spanId}, 'svc', 'op', 'Server', 5)`);
    // A start at or above 2^63 ns, written as Int64, is stored negative (year 1677-1970).
    const wrapped = hex(0xd4, 32);
    await insert(wrapped, hex(1, 16), -5_000_000_000_000_000_000n);
    // Year 2201, and a trace mixing 2025 and 2201.
    const future = hex(0xe5, 32);
    await insert(future, hex(2, 16), 7_300_000_000_000_000_000n);
    const mixed = hex(0xf6, 32);
    await insert(mixed, hex(3, 16), T0_NS);
    await insert(mixed, hex(4, 16), 7_300_000_000_000_000_000n);

    const w = await getTrace(wrapped);
    expect(w.status).toBe(200);
    expect(w.body.spans.map((s) => s.startTimeUnixNano)).toEqual(['-5000000000000000000']);
    const f = await getTrace(future);
    expect(f.status).toBe(200);
    expect(f.body.spans.map((s) => s.startTimeUnixNano)).toEqual(['7300000000000000000']);
    const m = await getTrace(mixed);
    expect(m.body.spans.map((s) => s.spanId)).toEqual([hex(3, 16), hex(4, 16)]);

    const stats = (await (await fetch(`${server.base}/api/v1/stats`)).json()) as {
      spans: number;
      oldestUnixNano: string | null;
      newestUnixNano: string | null;
    };
    expect(BigInt(stats.oldestUnixNano ?? '-1')).toBeGreaterThanOrEqual(0n);
    expect(BigInt(stats.newestUnixNano ?? '-1')).toBeLessThan(7_258_118_400_000_000_000n);
    expect(BigInt(stats.oldestUnixNano ?? '0')).toBe(T0_NS);
  });
});
