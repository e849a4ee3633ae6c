import type { AttributeColumn, LeafCalls } from './types';
import { emptyRecord, ownEntry } from './own-keys';

/**
 * The packed LeafCalls format of `GET /api/v1/leaves` (docs/analysis.md has the byte layout):
 * a 12-byte preamble (magic "TSLC", u32 version, u32 header length), a UTF-8 JSON header, zero
 * padding to a multiple of 8, then the columns as little-endian typed arrays, each starting at
 * an 8-byte aligned offset of the data section. Strings (dictionaries, trace ids) live in the
 * header; numbers never go through JSON. Pure: bytes in, bytes out.
 */

export const LEAF_PACK_MAGIC = 'TSLC';
export const LEAF_PACK_VERSION = 1;

export type ColumnType = 'u32' | 'f32' | 'f64';

export interface PackedColumn {
  /**
   * fanoutOffsets, fanoutStartMs, startMs, durationMs, host, mode, background, queueMs,
   * weights (per fan-out, optional), attr:KEY
   */
  name: string;
  type: ColumnType;
  /** Byte offset from the start of the data section (a multiple of 8). */
  offset: number;
  /** Number of elements. */
  length: number;
}

export interface LeafPackHeader {
  fanouts: number;
  calls: number;
  columns: PackedColumn[];
  traceIds: string[];
  parentSpanIds: string[];
  hosts: string[];
  modes: string[];
  backgrounds: string[];
  /** Dictionary of each `attr:KEY` column, by KEY. */
  attributes: Record<string, string[]>;
  /** Free-form context from the producer (operation, time range, sampling). */
  meta: Record<string, unknown>;
}

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * Packs LeafCalls. `float32` stores startMs/durationMs as f32 (half the bytes, ~7 significant
 * digits). O(calls); the result is one contiguous buffer.
 */
export function packLeafCalls(
  calls: LeafCalls,
  meta: Record<string, unknown> = {},
  opts: { float32?: boolean } = {},
): Uint8Array {
  const timeType: ColumnType = opts.float32 ? 'f32' : 'f64';
  const sources: [string, ColumnType, ArrayLike<number>][] = [
    ['fanoutOffsets', 'u32', calls.fanoutOffsets],
    ['fanoutStartMs', 'f64', calls.fanoutStartMs],
    ['startMs', timeType, calls.startMs],
    ['durationMs', timeType, calls.durationMs],
    ['host', 'u32', calls.host],
    ['mode', 'u32', calls.mode],
    ['background', 'u32', calls.background],
  ];
  if (calls.queueMs) sources.push(['queueMs', timeType, calls.queueMs]);
  // Sampling adjusted counts, one per fan-out (docs/analysis.md "Sampling"): an optional
  // column, so version-1 readers that do not know it read the rest unchanged.
  if (calls.weights) sources.push(['weights', 'f64', calls.weights]);
  const attributes = emptyRecord<string[]>();
  for (const [key, col] of Object.entries(calls.attributes ?? {})) {
    sources.push([`attr:${key}`, 'u32', col.index]);
    attributes[key] = col.values;
  }
  const columns: PackedColumn[] = [];
  let offset = 0;
  for (const [name, type, data] of sources) {
    columns.push({ name, type, offset, length: data.length });
    offset = align8(offset + data.length * (type === 'f64' ? 8 : 4));
  }
  const header: LeafPackHeader = {
    fanouts: calls.fanoutOffsets.length - 1,
    calls: calls.durationMs.length,
    columns,
    traceIds: calls.traceIds,
    parentSpanIds: calls.parentSpanIds ?? calls.traceIds.map(() => ''),
    hosts: calls.hosts,
    modes: calls.modes,
    backgrounds: calls.backgrounds,
    attributes,
    meta,
  };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const dataStart = align8(12 + headerBytes.length);
  const out = new Uint8Array(dataStart + offset);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(LEAF_PACK_MAGIC), 0);
  view.setUint32(4, LEAF_PACK_VERSION, true);
  view.setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  columns.forEach((c, i) => {
    const data = (sources[i] as [string, ColumnType, ArrayLike<number>])[2];
    const at = dataStart + c.offset;
    const target =
      c.type === 'f64'
        ? new Float64Array(out.buffer, at, c.length)
        : c.type === 'f32'
          ? new Float32Array(out.buffer, at, c.length)
          : new Uint32Array(out.buffer, at, c.length);
    target.set(data);
  });
  return out;
}

/** Error thrown for bytes that are not a packed LeafCalls buffer. */
export class LeafPackError extends Error {
  override name = 'LeafPackError';
}

/**
 * Unpacks a buffer from `packLeafCalls` (or the API). Columns are zero-copy views when the
 * buffer is 8-byte aligned (f32 columns are widened to Float64Array). O(header + f32 columns).
 * Throws LeafPackError on a wrong magic, version, truncated buffer or missing column.
 */
export function unpackLeafCalls(input: Uint8Array | ArrayBuffer): {
  calls: LeafCalls;
  meta: Record<string, unknown>;
} {
  let bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  if (bytes.length < 12) throw new LeafPackError('buffer shorter than the 12-byte preamble');
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  if (magic !== LEAF_PACK_MAGIC) throw new LeafPackError(`bad magic ${JSON.stringify(magic)}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== LEAF_PACK_VERSION) throw new LeafPackError(`unsupported version ${version}`);
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.length) throw new LeafPackError('truncated header');
  const header = JSON.parse(
    new TextDecoder().decode(bytes.subarray(12, 12 + headerLength)),
  ) as LeafPackHeader;
  const dataStart = bytes.byteOffset + align8(12 + headerLength);
  const read = (name: string): Float64Array | Uint32Array | undefined => {
    const c = header.columns.find((x) => x.name === name);
    if (!c) return undefined;
    const size = c.type === 'f64' ? 8 : 4;
    if (dataStart - bytes.byteOffset + c.offset + c.length * size > bytes.length) {
      throw new LeafPackError(`column ${name} runs past the end of the buffer`);
    }
    const at = dataStart + c.offset;
    if (c.type === 'f64') return new Float64Array(bytes.buffer, at, c.length);
    if (c.type === 'f32') return Float64Array.from(new Float32Array(bytes.buffer, at, c.length));
    return new Uint32Array(bytes.buffer, at, c.length);
  };
  const floats = (name: string): Float64Array => {
    const col = read(name);
    if (!(col instanceof Float64Array))
      throw new LeafPackError(`missing or mistyped column ${name}`);
    return col;
  };
  const ints = (name: string): Uint32Array => {
    const col = read(name);
    if (!(col instanceof Uint32Array))
      throw new LeafPackError(`missing or mistyped column ${name}`);
    return col;
  };
  const calls: LeafCalls = {
    fanoutOffsets: ints('fanoutOffsets'),
    fanoutStartMs: floats('fanoutStartMs'),
    traceIds: header.traceIds,
    parentSpanIds: header.parentSpanIds,
    startMs: floats('startMs'),
    durationMs: floats('durationMs'),
    host: ints('host'),
    mode: ints('mode'),
    background: ints('background'),
    hosts: header.hosts,
    modes: header.modes,
    backgrounds: header.backgrounds,
  };
  const queue = read('queueMs');
  if (queue instanceof Float64Array) calls.queueMs = queue;
  const weights = read('weights');
  if (weights instanceof Float64Array) {
    if (weights.length !== calls.fanoutStartMs.length)
      throw new LeafPackError(
        `column weights has ${weights.length} entries for ${calls.fanoutStartMs.length} fan-outs`,
      );
    calls.weights = weights;
  }
  const keys = Object.keys(header.attributes);
  if (keys.length > 0) {
    const attributes = emptyRecord<AttributeColumn>();
    for (const key of keys) {
      attributes[key] = {
        values: ownEntry(header.attributes, key) ?? [],
        index: ints(`attr:${key}`),
      };
    }
    calls.attributes = attributes;
  }
  return { calls, meta: header.meta };
}
