import { SpanKind, SpanStatusCode, type HrTime } from '@opentelemetry/api';
import { ProtobufTraceSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import protobuf from 'protobufjs/minimal';
import { randomFromSeed } from '@tailscope/analysis/testing';

/**
 * Fan-out traces as the OpenTelemetry JS SDK would export them (ReadableSpans serialized by the
 * SDK's own OTLP serializers), seeded so every run sends the same bytes. Used by the ingest tests
 * and by bench/src/ingest.ts (through `otlpFixtures` in the package entry).
 */

function hex(rand: () => number, digits: number): string {
  let s = '';
  for (let i = 0; i < digits; i++) s += Math.floor(rand() * 16).toString(16);
  return /^0+$/.test(s) ? '1' + s.slice(1) : s;
}

function hrTime(ns: bigint): HrTime {
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
}

const T0 = 1_763_800_000_000_000_000n;

/**
 * `spans` spans in fan-out traces of `width` leaves each: a root SERVER span, one CLIENT call per
 * leaf and the leaf's SERVER span, with the attributes a real service sets (strings and ints).
 */
export function fanoutSpans(spans: number, seed: number, width = 9): ReadableSpan[] {
  const rand = randomFromSeed(seed);
  const out: ReadableSpan[] = [];
  const frontend = resourceFromAttributes({
    'service.name': 'frontend',
    'host.name': 'fe-1',
    'process.pid': 1200 + (seed % 100),
    'telemetry.sdk.language': 'nodejs',
  });
  const leaves = Array.from({ length: 8 }, (_, h) =>
    resourceFromAttributes({
      'service.name': 'leaf',
      'host.name': `leaf-${h}`,
      'host.sharing_mode': h % 2 === 0 ? 'dedicated' : 'shared',
      'process.pid': 3000 + h,
      'telemetry.sdk.language': 'nodejs',
    }),
  );
  const scope = { name: '@tailscope/demo', version: '0.1.0' };
  let t = T0 + BigInt(seed) * 1_000_000_000n;
  while (out.length < spans) {
    const traceId = hex(rand, 32);
    const rootId = hex(rand, 16);
    const rootStart = t;
    let rootEnd = rootStart;
    for (let i = 0; i < width && out.length < spans - 2; i++) {
      const callId = hex(rand, 16);
      const leafId = hex(rand, 16);
      const start = rootStart + BigInt(Math.floor(rand() * 50_000));
      const dur = BigInt(200_000 + Math.floor(rand() * 4_000_000));
      const host = Math.floor(rand() * 8);
      if (start + dur > rootEnd) rootEnd = start + dur + 10_000n;
      const common = {
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
        ended: true,
        links: [],
        instrumentationScope: scope,
      };
      out.push({
        ...common,
        name: 'GET /leaf',
        kind: SpanKind.CLIENT,
        spanContext: () => ({ traceId, spanId: callId, traceFlags: 1 }),
        parentSpanContext: { traceId, spanId: rootId, traceFlags: 1 },
        startTime: hrTime(start),
        endTime: hrTime(start + dur),
        duration: hrTime(dur),
        status: { code: SpanStatusCode.UNSET },
        attributes: {
          'http.request.method': 'GET',
          'server.address': `leaf-${host}`,
          'server.port': 8080,
          'peer.service': 'leaf',
          'http.response.status_code': 200,
        },
        events: [],
        resource: frontend,
      });
      const slow = rand() < 0.01;
      out.push({
        ...common,
        name: 'GET /leaf',
        kind: SpanKind.SERVER,
        spanContext: () => ({ traceId, spanId: leafId, traceFlags: 1 }),
        parentSpanContext: { traceId, spanId: callId, traceFlags: 1 },
        startTime: hrTime(start + 50_000n),
        endTime: hrTime(start + dur - 50_000n),
        duration: hrTime(dur - 100_000n),
        status: slow
          ? { code: SpanStatusCode.ERROR, message: 'deadline exceeded' }
          : { code: SpanStatusCode.OK },
        attributes: { 'http.route': '/leaf', 'http.response.status_code': slow ? 504 : 200 },
        events: slow
          ? [{ name: 'gc', time: hrTime(start + 60_000n), attributes: { 'gc.pause_ms': 12.5 } }]
          : [],
        resource: leaves[host] ?? frontend,
      });
    }
    out.push({
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
      ended: true,
      links: [],
      instrumentationScope: scope,
      name: 'GET /search',
      kind: SpanKind.SERVER,
      spanContext: () => ({ traceId, spanId: rootId, traceFlags: 1 }),
      startTime: hrTime(rootStart),
      endTime: hrTime(rootEnd),
      duration: hrTime(rootEnd - rootStart),
      status: { code: SpanStatusCode.UNSET },
      attributes: { 'http.route': '/search', 'http.request.method': 'GET' },
      events: [],
      resource: frontend,
    });
    t += 5_000_000n;
  }
  return out.slice(0, spans);
}

export function protobufRequest(spans: ReadableSpan[]): Buffer {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('serializer returned nothing');
  return Buffer.from(bytes);
}

export function jsonRequest(spans: ReadableSpan[]): Buffer {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('serializer returned nothing');
  return Buffer.from(bytes);
}

/** google.rpc.Status or ExportTracePartialSuccess: field 1 a number, field 2 a string. */
export function decodePair(bytes: Uint8Array): { n: number; text: string } {
  const r = protobuf.Reader.create(bytes);
  const out = { n: 0, text: '' };
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === 1 << 3) out.n = Number(r.int64());
    else if (tag === ((2 << 3) | 2)) out.text = r.string();
    else r.skipType(tag & 7);
  }
  return out;
}

/** ExportTraceServiceResponse -> its partial_success (field 1). */
export function decodeExportResponse(bytes: Uint8Array): { n: number; text: string } | undefined {
  const r = protobuf.Reader.create(bytes);
  let partial: { n: number; text: string } | undefined;
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === ((1 << 3) | 2)) partial = decodePair(r.bytes());
    else r.skipType(tag & 7);
  }
  return partial;
}

export function otlpJson(spans: Record<string, unknown>[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'errors' } }] },
        scopeSpans: [{ scope: { name: 'errors' }, spans }],
      },
    ],
  });
}

/** A valid OTLP/JSON span of `traceId`, numbered `i`. */
export const jsonSpan = (traceId: string, i: number) => ({
  traceId,
  spanId: (i + 1).toString(16).padStart(16, '0'),
  name: `op-${i}`,
  kind: 2,
  startTimeUnixNano: String(1_763_800_000_000_000_000n + BigInt(i)),
  endTimeUnixNano: String(1_763_800_000_000_100_000n + BigInt(i)),
});
