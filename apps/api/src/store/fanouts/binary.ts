import { RowBinaryReader } from '../sql/row-binary';

/** The row `loadLeafCalls` selects, as typed columns (order fixed in fanouts-leaves.ts). */
export interface LeafRow {
  fanouts: number;
  matched: number;
  traceIds: string[];
  parentSpanIds: string[];
  fanoutStartMs: Float64Array;
  /** Fan-out start, ns relative to the query's base (exact integers in float64). */
  fanoutStartRel: Float64Array;
  widths: Uint32Array;
  /** Per call: start, ns relative to the base; duration, ns. */
  startRel: Float64Array;
  durNs: Float64Array;
  host: Uint32Array;
  hostDict: string[];
  mode: Uint32Array;
  modeDict: string[];
  attrs: Uint32Array[];
  attrDicts: string[][];
  /** Per fan-out sampling adjusted count, when the query asked for it. */
  weights?: Float64Array;
}

export function readLeafRow(buf: Buffer, attributeCount: number, weights = false): LeafRow {
  const r = new RowBinaryReader(buf);
  const row: LeafRow = {
    fanouts: r.uint32(),
    matched: r.uint32(),
    traceIds: r.strings(),
    parentSpanIds: r.strings(),
    fanoutStartMs: r.float64s(),
    fanoutStartRel: r.float64s(),
    widths: r.uint32s(),
    startRel: r.float64s(),
    durNs: r.float64s(),
    host: r.uint32s(),
    hostDict: r.dictionary(),
    mode: r.uint32s(),
    modeDict: r.dictionary(),
    attrs: [],
    attrDicts: [],
  };
  for (let i = 0; i < attributeCount; i++) {
    row.attrs.push(r.uint32s());
    row.attrDicts.push(r.dictionary());
  }
  if (weights) row.weights = r.float64s();
  if (!r.done()) throw new Error('RowBinary: unexpected trailing bytes');
  if (row.widths.length !== row.fanouts) throw new Error('RowBinary: fan-out count mismatch');
  return row;
}
