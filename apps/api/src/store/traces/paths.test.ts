import { describe, expect, it } from 'vitest';
import { readPathSpans } from './paths';

/** One RowBinary row as ClickHouse writes it for selectPathSpans' eight columns. */
function row(strings: string[], startNs: bigint, durationNs: bigint): Buffer {
  const parts: Buffer[] = [];
  for (const s of strings) {
    const b = Buffer.from(s, 'utf8');
    // Lengths here stay under 128: one LEB128 byte.
    parts.push(Buffer.from([b.length]), b);
  }
  const nums = Buffer.alloc(16);
  nums.writeBigInt64LE(startNs, 0);
  nums.writeBigUInt64LE(durationNs, 8);
  parts.push(nums);
  return Buffer.concat(parts);
}

describe('readPathSpans', () => {
  it('reads rows back to back, UTF-8 names and 64-bit times exactly', () => {
    const buf = Buffer.concat([
      row(['t1', 'a', '', 'frontend', 'GET /', 'Server'], 1_700_000_000_123_456_789n, 5n),
      row(['t1', 'b', 'a', 'späti', 'Käse', 'Client'], 1_700_000_000_123_456_790n, 2n ** 40n),
    ]);
    expect(readPathSpans(buf)).toEqual([
      {
        traceId: 't1',
        spanId: 'a',
        parentSpanId: '',
        service: 'frontend',
        operation: 'GET /',
        kind: 'Server',
        startNs: 1_700_000_000_123_456_789n,
        durationNs: 5,
      },
      {
        traceId: 't1',
        spanId: 'b',
        parentSpanId: 'a',
        service: 'späti',
        operation: 'Käse',
        kind: 'Client',
        startNs: 1_700_000_000_123_456_790n,
        durationNs: 2 ** 40,
      },
    ]);
  });

  it('reads an empty body as no spans and refuses a cut one', () => {
    expect(readPathSpans(Buffer.alloc(0))).toEqual([]);
    const whole = row(['t', 's', '', 'svc', 'op', 'Server'], 1n, 1n);
    expect(() => readPathSpans(whole.subarray(0, whole.length - 3))).toThrow(/truncated/);
  });
});
