import { NO_BACKGROUND } from './conventions';
import type { AttributeColumn, LeafCalls } from './types';
import { emptyRecord, ownEntry } from './own-keys';

/** One call as plain values (ms relative to its fan-out's first call start). */
export interface CallRecord {
  startMs: number;
  durationMs: number;
  host: string;
  mode: string;
  background: string;
  attributes?: Readonly<Record<string, string>>;
}

/** One fan-out as plain values; `startMs` is epoch ms of its earliest call. */
export interface FanoutRecord {
  traceId: string;
  parentSpanId: string;
  startMs: number;
  calls: readonly CallRecord[];
}

/** Dictionary encoder: first-seen order, optional fixed first entries. */
class Dictionary {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  constructor(first: readonly string[] = []) {
    for (const v of first) this.id(v);
  }
  id(v: string): number {
    let i = this.ids.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.ids.set(v, i);
    }
    return i;
  }
}

/**
 * Columnar LeafCalls from records, fan-outs sorted by (startMs, traceId, parentSpanId) and
 * calls kept in the order given. Dictionaries are in first-seen order, with 'none' first among
 * backgrounds. `attributeKeys` become `attributes` columns (a call without the key gets '').
 * O(calls).
 */
export function buildLeafCalls(
  fanouts: readonly FanoutRecord[],
  attributeKeys: readonly string[] = [],
): LeafCalls {
  const sorted = [...fanouts].sort(
    (a, b) =>
      a.startMs - b.startMs ||
      compareText(a.traceId, b.traceId) ||
      compareText(a.parentSpanId, b.parentSpanId),
  );
  const total = sorted.reduce((n, f) => n + f.calls.length, 0);
  const hosts = new Dictionary();
  const modes = new Dictionary();
  const backgrounds = new Dictionary([NO_BACKGROUND]);
  const attrDicts = attributeKeys.map(() => new Dictionary());
  const out: LeafCalls = {
    fanoutOffsets: new Uint32Array(sorted.length + 1),
    fanoutStartMs: new Float64Array(sorted.length),
    traceIds: [],
    parentSpanIds: [],
    startMs: new Float64Array(total),
    durationMs: new Float64Array(total),
    host: new Uint32Array(total),
    mode: new Uint32Array(total),
    background: new Uint32Array(total),
    hosts: hosts.values,
    modes: modes.values,
    backgrounds: backgrounds.values,
  };
  const attrIndex = attributeKeys.map(() => new Uint32Array(total));
  let i = 0;
  sorted.forEach((f, k) => {
    out.fanoutStartMs[k] = f.startMs;
    out.traceIds.push(f.traceId);
    out.parentSpanIds?.push(f.parentSpanId);
    for (const c of f.calls) {
      out.startMs[i] = c.startMs;
      out.durationMs[i] = c.durationMs;
      out.host[i] = hosts.id(c.host);
      out.mode[i] = modes.id(c.mode);
      out.background[i] = backgrounds.id(c.background);
      attributeKeys.forEach((key, j) => {
        (attrIndex[j] as Uint32Array)[i] = (attrDicts[j] as Dictionary).id(
          ownEntry(c.attributes, key) ?? '',
        );
      });
      i++;
    }
    out.fanoutOffsets[k + 1] = i;
  });
  if (attributeKeys.length > 0) {
    const attributes = emptyRecord<AttributeColumn>();
    attributeKeys.forEach((key, j) => {
      attributes[key] = {
        values: (attrDicts[j] as Dictionary).values,
        index: attrIndex[j] as Uint32Array,
      };
    });
    out.attributes = attributes;
  }
  return out;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
