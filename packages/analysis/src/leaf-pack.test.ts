import { describe, expect, it } from 'vitest';
import { buildLeafCalls } from './leaf-calls-builder';
import { LeafPackError, packLeafCalls, unpackLeafCalls } from './leaf-pack';

const calls = buildLeafCalls(
  [
    {
      traceId: 'b'.repeat(32),
      parentSpanId: '2'.repeat(16),
      startMs: 1_700_000_000_123.5,
      calls: [
        {
          startMs: 0,
          durationMs: 4.25,
          host: 'h1',
          mode: 'dedicated',
          background: 'none',
          attributes: { zone: 'a' },
        },
        {
          startMs: 0.125,
          durationMs: 1000.5,
          host: 'h2',
          mode: 'contended',
          background: 'gc',
          attributes: { zone: 'b' },
        },
      ],
    },
    {
      traceId: 'a'.repeat(32),
      parentSpanId: '1'.repeat(16),
      startMs: 1_700_000_000_000,
      calls: [
        {
          startMs: 0,
          durationMs: 3,
          host: 'h2',
          mode: 'contended',
          background: 'none',
          attributes: {},
        },
        {
          startMs: 0,
          durationMs: 3,
          host: 'h3',
          mode: 'dedicated',
          background: 'none',
          attributes: { zone: 'a' },
        },
        {
          startMs: 1,
          durationMs: 2,
          host: 'h1',
          mode: 'dedicated',
          background: 'none',
          attributes: { zone: 'a' },
        },
      ],
    },
  ],
  ['zone'],
);

describe('packed LeafCalls', () => {
  it('round-trips every column and dictionary', () => {
    const bytes = packLeafCalls(calls, { leafService: 'kv' });
    const { calls: back, meta } = unpackLeafCalls(bytes);
    expect(meta).toEqual({ leafService: 'kv' });
    expect(back).toEqual(calls);
    expect(back.traceIds[0]).toBe('a'.repeat(32)); // sorted by start
    expect(Array.from(back.fanoutOffsets)).toEqual([0, 3, 5]);
    expect(back.backgrounds[0]).toBe('none');
  });

  it('reads from an unaligned copy and widens float32 columns', () => {
    const bytes = packLeafCalls(calls, {}, { float32: true });
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    const { calls: back } = unpackLeafCalls(shifted.subarray(3));
    expect(back.durationMs).toBeInstanceOf(Float64Array);
    expect(Array.from(back.durationMs)).toEqual(Array.from(Float32Array.from(calls.durationMs)));
  });

  it('carries sampling weights as an optional per-fan-out column', () => {
    const weighted = { ...calls, weights: Float64Array.of(4, 1) };
    const bytes = packLeafCalls(weighted, {}, { float32: true });
    const { calls: back } = unpackLeafCalls(bytes);
    // f64 whatever the precision: weights such as 2^56 / (2^56 - T) need every bit.
    expect(back.weights).toEqual(Float64Array.of(4, 1));
    // Without weights the column is absent and the buffer is what it always was.
    expect(unpackLeafCalls(packLeafCalls(calls)).calls.weights).toBeUndefined();
    expect(new DataView(bytes.buffer).getUint32(4, true)).toBe(1);
  });

  it('rejects what is not a packed buffer', () => {
    expect(() => unpackLeafCalls(new Uint8Array(4))).toThrow(LeafPackError);
    expect(() => unpackLeafCalls(new TextEncoder().encode('NOPE00000000'))).toThrow(/magic/);
    const bytes = packLeafCalls(calls);
    expect(() => unpackLeafCalls(bytes.subarray(0, bytes.length - 8))).toThrow(/past the end/);
  });
});
