import { describe, expect, it } from 'vitest';
import { readSpanRows } from './columns';

/** Rows of six float64 (trace key, span key, parent key, start, duration, descriptor key). */
function rows(values: number[][], offset: number): Buffer {
  const bytes = Buffer.alloc(offset + values.length * 48);
  values.flat().forEach((v, i) => bytes.writeDoubleLE(v, offset + i * 8));
  return bytes.subarray(offset);
}

describe('readSpanRows', () => {
  const values = [
    [7, 1, -1, 0, 5e6, 900],
    [7, 2, 1, 1e6, 2e6, 901],
    [8, 3, -1, 2e6, 1e6, 900],
    [9, 4, -1, 3e6, 1e6, 902], // a trace the id query did not return
  ];
  const ids = new Map([
    [7, 'trace-a'],
    [8, 'trace-b'],
  ]);

  it('reads aligned and unaligned bodies alike, one exemplar per descriptor key', () => {
    const aligned = readSpanRows(rows(values, 0), ids, 10n);
    const unaligned = readSpanRows(rows(values, 4), ids, 10n);
    expect(unaligned).toEqual(aligned);
    const { columns, exemplars } = aligned;
    expect(columns.traceIds).toEqual(['trace-a', 'trace-b']);
    expect(Array.from(columns.traceOffsets)).toEqual([0, 2, 3]);
    expect(Array.from(columns.desc)).toEqual([0, 1, 0]);
    expect(Array.from(columns.durationNs)).toEqual([5e6, 2e6, 1e6]);
    expect(exemplars).toEqual([
      { descKey: 900, traceId: 'trace-a', spanKey: 1 },
      { descKey: 901, traceId: 'trace-a', spanKey: 2 },
    ]);
  });

  it('refuses a body that is not whole rows', () => {
    expect(() => readSpanRows(Buffer.alloc(50), ids, 0n)).toThrow(/truncated/);
  });
});
