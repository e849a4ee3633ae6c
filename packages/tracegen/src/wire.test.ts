import { describe, expect, it } from 'vitest';
import {
  createGenerator,
  encodeOtlpJson,
  encodeOtlpProtobuf,
  fanoutPresetNames,
  presetSpec,
} from './index';
import { decodeJson, decodeProtobuf, type ReferenceSpan } from './otlp-reference';

function firstBatch(name: (typeof fanoutPresetNames)[number], requests = 20) {
  const gen = createGenerator(presetSpec(name), { requests, seed: 3 });
  const batch = gen.batches().next().value;
  if (!batch) throw new Error('no batch');
  return { gen, batch };
}

describe('OTLP protobuf decodes with protobufjs and the opentelemetry-proto definitions', () => {
  it.each(fanoutPresetNames)('%s: every span, id, time and attribute round-trips', (name) => {
    const { gen, batch } = firstBatch(name);
    const spans = decodeProtobuf(encodeOtlpProtobuf(batch));
    expect(spans).toHaveLength(batch.spanCount);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    expect(byId.size).toBe(spans.length);
    const { operation, shape } = gen.truth;
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(s.scope).toEqual({ name: '@tailscope/tracegen', version: '0.1.0' });
      expect(Object.keys(s.resource).sort()).toEqual(
        ['deploy.zone', 'host.name', 'host.sharing_mode', 'service.name'].sort(),
      );
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
      expect(s.flags & 0xff).toBe(1);
      if (s.parentSpanId) {
        const parent = byId.get(s.parentSpanId);
        expect(parent?.traceId).toBe(s.traceId);
        // Children lie inside their parents.
        expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(
          BigInt(parent?.startTimeUnixNano ?? '0'),
        );
        expect(BigInt(s.endTimeUnixNano)).toBeLessThanOrEqual(
          BigInt(parent?.endTimeUnixNano ?? '0'),
        );
      }
    }
    const roots = spans.filter((s) => !s.parentSpanId && s.kind === 2);
    expect(roots.length).toBe(batch.requestCount);
    for (const r of roots) {
      expect(r.name).toBe(operation.parentOperation);
      expect(r.resource['service.name']).toBe(operation.parentService);
    }
    const servers = spans.filter((s) => s.parentSpanId && s.kind === 2);
    expect(servers.length).toBe(batch.callCount);
    for (const s of servers) {
      expect(s.name).toBe(operation.leafOperation);
      expect(s.resource['service.name']).toBe(operation.leafService);
      expect(s.attributes['build.id']).toBeDefined();
      expect(s.flags).toBe(0x301);
      const parent = byId.get(s.parentSpanId);
      if (shape === 'client-server') {
        expect(parent?.kind).toBe(3);
        expect(parent?.attributes['server.address']).toBe(s.resource['host.name']);
        expect(parent?.attributes['peer.service']).toBe(operation.leafService);
      } else {
        expect(parent?.parentSpanId).toBe('');
      }
    }
    const background = spans.filter((s) => s.kind === 1);
    expect(background.length).toBe(batch.windows.length);
    for (const s of background) expect(s.attributes['background.activity']).toBe(s.name);
  });

  it('writes times as exact unix nanoseconds from the start time', () => {
    const gen = createGenerator(presetSpec('bobtail'), {
      requests: 1,
      seed: 1,
      start: 1_700_000_000_123_456_789n,
    });
    const batch = [...gen.batches()][0];
    if (!batch) throw new Error('no batch');
    const root = decodeProtobuf(encodeOtlpProtobuf(batch)).find((s) => !s.parentSpanId);
    const expected = 1_700_000_000_123_456_789n + BigInt(batch.reqStartNs[0] ?? 0);
    expect(root?.startTimeUnixNano).toBe(String(expected));
  });
});

describe('OTLP/JSON', () => {
  const normalise = (spans: ReferenceSpan[]) =>
    spans.map((s) => ({ ...s, parentSpanId: s.parentSpanId || '' }));

  it.each(fanoutPresetNames)('%s: says exactly what the protobuf says', (name) => {
    const { batch } = firstBatch(name);
    const json = encodeOtlpJson(batch);
    expect(normalise(decodeJson(json))).toEqual(
      normalise(decodeProtobuf(encodeOtlpProtobuf(batch))),
    );
  });
});
