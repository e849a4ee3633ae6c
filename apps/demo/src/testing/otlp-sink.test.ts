import { describe, expect, it } from 'vitest';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { decodeTraces } from './otlp-sink';

describe('decodeTraces', () => {
  it('reads back what the SDK serializer wrote', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'host.name': 'host-07', 'host.sharing_mode': 'shared' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const parent = provider.getTracer('t').startSpan('root');
    parent.end();
    const child = provider.getTracer('t').startSpan('GET', {
      attributes: { 'tailscope.hedge': 'backup', 'tailscope.shard': 3, ok: true, ratio: 1.5 },
    });
    child.end();
    const bytes = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans());
    const spans = decodeTraces(Buffer.from(bytes ?? new Uint8Array()));
    expect(spans).toHaveLength(2);
    const got = spans.find((s) => s.name === 'GET');
    expect(got?.attributes).toEqual({
      'tailscope.hedge': 'backup',
      'tailscope.shard': '3',
      ok: 'true',
      ratio: '1.5',
    });
    expect(got?.resource['host.name']).toBe('host-07');
    expect(got?.spanId).toBe(child.spanContext().spanId);
    expect(got && got.endNs >= got.startNs).toBe(true);
    await provider.shutdown();
  });
});
