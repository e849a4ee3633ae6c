import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type HrTime,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { loadSettings } from '../src/config';
import { serve, type Running } from '../src/server/serve';
import type { Span as ApiSpan } from '@tailscope/contracts';

/**
 * The real OpenTelemetry JS exporters (OTLP protobuf over HTTP, OTLP JSON over HTTP, OTLP gRPC,
 * with and without gzip) send to a real `serve()`; every field of every span comes back
 * unchanged through GET /api/v1/traces/{id}.
 */

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-roundtrip-'));
  running = await serve(
    loadSettings({}, { dataDir: dir, port: '0', otlpHttpPort: '0', otlpGrpcPort: '0' }),
  );
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const gzip = CompressionAlgorithm.GZIP;
const EXPORTERS: [string, () => SpanExporter][] = [
  ['otlp-proto', () => new ProtoExporter({ url: `${running.urls.otlpHttp}/v1/traces` })],
  [
    'otlp-proto gzip',
    () => new ProtoExporter({ url: `${running.urls.otlpHttp}/v1/traces`, compression: gzip }),
  ],
  ['otlp-http (JSON)', () => new JsonExporter({ url: `${running.urls.otlpHttp}/v1/traces` })],
  [
    'otlp-http (JSON) gzip',
    () => new JsonExporter({ url: `${running.urls.otlpHttp}/v1/traces`, compression: gzip }),
  ],
  ['otlp-grpc', () => new GrpcExporter({ url: `http://${running.urls.otlpGrpc}` })],
  [
    'otlp-grpc gzip',
    () => new GrpcExporter({ url: `http://${running.urls.otlpGrpc}`, compression: gzip }),
  ],
];

const RESOURCE: Attributes = {
  'service.name': 'roundtrip',
  'host.name': 'host-a',
  'process.pid': 4242,
  'deployment.weight': 0.75,
  'feature.enabled': true,
  'host.tags': ['a', 'b'],
};

const ns = (t: HrTime) => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();
const t0 = 1_763_800_000_000;

/** Spans through the SDK tracer: every kind of attribute the API allows, events, links, status. */
function recordSpans(
  exporter: SpanExporter,
  batch: boolean,
  traceId: string,
): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes(RESOURCE),
    spanProcessors: [
      batch ? new BatchSpanProcessor({ exporter }) : new SimpleSpanProcessor({ exporter }),
      new SimpleSpanProcessor({ exporter: memory }),
    ],
  });
  const tracer = provider.getTracer('roundtrip-scope', '1.2.3');
  const remote = trace.setSpanContext(context.active(), {
    traceId,
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
    traceState: new TraceState('vendor=opaque,other=1'),
    isRemote: true,
  });
  const root = tracer.startSpan(
    'GET /search',
    {
      kind: SpanKind.SERVER,
      startTime: new Date(t0),
      attributes: {
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'fanout.ratio': 2.5,
        'cache.hit': false,
        'big.count': 9_007_199_254_740_991,
        'negative.int': -17,
        'tags.str': ['x', 'y<z'],
        'tags.int': [1, 2, 3],
        'tags.double': [1.5, -0.25],
        'tags.bool': [true, false],
        'empty.string': '',
        'unicode.string': 'größe 🚀',
      },
      links: [
        {
          context: {
            traceId: 'aaaabbbbccccddddeeeeffff00001111',
            spanId: '1234567890abcdef',
            traceFlags: TraceFlags.SAMPLED,
            traceState: new TraceState('link=state'),
          },
          attributes: { 'link.kind': 'follows', 'link.weight': 3 },
        },
      ],
    },
    remote,
  );
  root.addEvent('cache.miss', { 'cache.key': 'k1', 'cache.size': 10 }, new Date(t0 + 1));
  root.addEvent('retry', { attempt: 2, 'backoff.ms': 12.5, final: true }, new Date(t0 + 2));
  const child = tracer.startSpan(
    'GET /leaf',
    { kind: SpanKind.CLIENT, startTime: new Date(t0 + 3), attributes: { 'peer.service': 'leaf' } },
    trace.setSpan(context.active(), root),
  );
  child.setStatus({ code: SpanStatusCode.OK });
  child.end(new Date(t0 + 7));
  const producer = tracer.startSpan(
    'enqueue',
    { kind: SpanKind.PRODUCER, startTime: new Date(t0 + 4) },
    trace.setSpan(context.active(), root),
  );
  producer.end(new Date(t0 + 5));
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'deadline exceeded' });
  root.end(new Date(t0 + 10));
  // The memory exporter forgets its spans on shutdown: read them first.
  return provider.forceFlush().then(async () => {
    const finished = memory.getFinishedSpans();
    await provider.shutdown();
    return finished;
  });
}

async function fetchTrace(traceId: string): Promise<ApiSpan[]> {
  await running.ingest.flush();
  const res = await fetch(`${running.urls.api}/api/v1/traces/${traceId}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { traceId: string; spans: ApiSpan[] };
  expect(body.traceId).toBe(traceId);
  return body.spans;
}

const KIND = ['internal', 'server', 'client', 'producer', 'consumer'];
const STATUS = ['unset', 'ok', 'error'];

/** What the API must return for a span the SDK recorded. */
function expected(s: ReadableSpan, resource: Attributes, scope: { name: string; version: string }) {
  const ctx = s.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? '',
    traceState: ctx.traceState?.serialize() ?? '',
    name: s.name,
    kind: KIND[s.kind],
    service: String(resource['service.name']),
    startTimeUnixNano: ns(s.startTime),
    durationNs: Number(BigInt(ns(s.endTime)) - BigInt(ns(s.startTime))),
    attributes: s.attributes,
    resource,
    scope,
    events: s.events.map((e) => ({
      name: e.name,
      timeUnixNano: ns(e.time),
      attributes: e.attributes ?? {},
    })),
    links: s.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      traceState: l.context.traceState?.serialize() ?? '',
      attributes: l.attributes ?? {},
    })),
    status: { code: STATUS[s.status.code], message: s.status.message ?? '' },
  };
}

describe.each(EXPORTERS)('round trip through %s', (label, makeExporter) => {
  // One trace per exporter, so a span another exporter sent cannot make a test pass.
  const n = EXPORTERS.findIndex(([l]) => l === label) + 1;
  it('returns every field of every span unchanged', async () => {
    const traceId = `${n.toString(16).padStart(2, '0')}f92f3577b34da6a3ce929d0e0e4736`;
    const spans = await recordSpans(makeExporter(), label.includes('JSON'), traceId);
    expect(spans).toHaveLength(3);
    const got = await fetchTrace(traceId);
    expect(got).toHaveLength(3);
    const scope = { name: 'roundtrip-scope', version: '1.2.3' };
    for (const s of spans) {
      const api = got.find((g) => g.spanId === s.spanContext().spanId);
      expect(api, `span ${s.name}`).toEqual(expected(s, RESOURCE, scope));
    }
  });

  it('returns bytes (as base64), kvlists (as objects) and empty values', async () => {
    const exporter = makeExporter();
    const traceId = `${n.toString(16).padStart(2, '0')}${'e'.repeat(30)}`;
    const span: ReadableSpan = {
      name: 'custom',
      kind: SpanKind.INTERNAL,
      spanContext: () => ({ traceId, spanId: 'fedcba9876543210', traceFlags: 1 }),
      startTime: [1_763_800_000, 123_456_789],
      endTime: [1_763_800_001, 987_654_321],
      duration: [1, 864_197_532],
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        blob: Uint8Array.from([0, 1, 2, 250, 255]),
        nested: { a: 1, b: ['x', 2.5], c: { d: true } },
        list: [null, 'x'],
      } as unknown as Attributes,
      links: [],
      events: [],
      ended: true,
      resource: resourceFromAttributes({ 'service.name': 'custom' }),
      instrumentationScope: { name: 'raw' },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
    const code = await new Promise<number>((resolve) => {
      exporter.export([span], (r) => {
        resolve(r.code);
      });
    });
    await exporter.shutdown();
    expect(code).toBe(0);
    const [api] = await fetchTrace(traceId);
    expect(api?.attributes).toEqual({
      blob: 'AAEC+v8=',
      nested: { a: 1, b: ['x', 2.5], c: { d: true } },
      list: [null, 'x'],
    });
    expect(api?.startTimeUnixNano).toBe('1763800000123456789');
    expect(api?.durationNs).toBe(1_864_197_532);
    expect(api?.scope).toEqual({ name: 'raw', version: '' });
  });
});
