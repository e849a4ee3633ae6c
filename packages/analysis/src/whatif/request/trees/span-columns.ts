/**
 * Span columns: the store's per-span rows as typed arrays and dictionaries, and their codes.
 */

import {
  CLIENT_KINDS,
  CONSUMER_KINDS,
  INTERNAL_KINDS,
  PEER_SERVICE_KEY,
  PRODUCER_KINDS,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
} from '../../../conventions';
import { dedupeSpans, hasClientAttributes } from '../../../calls';
import { resourceHost, type SpanRecord } from '../../../span-record';

/** Kind codes of a span descriptor (the same codes as the store's calls SQL). */
export const SPAN_KIND_CODE = {
  other: 0,
  server: 1,
  consumer: 2,
  client: 3,
  producer: 4,
  internal: 5,
} as const;

/**
 * What the calls definition (calls.ts) reads of a span besides its ids and times. Spans share
 * few distinct descriptors (a service's operations on its hosts), so the columns carry an index.
 */
export interface SpanDescriptor {
  kind: number;
  service: string;
  name: string;
  /** The resource's host by the HOST_KEYS chain, '' when none. */
  host: string;
  /** The resource's sharing mode, '' when none. */
  mode: string;
  /** An INTERNAL span with client attributes (hasClientAttributes); false for other kinds. */
  clientAttrs: boolean;
  /** peer.service and server.address of a call span (CLIENT, PRODUCER, or clientAttrs), else ''. */
  peerService: string;
  serverAddress: string;
}

/**
 * Whole traces as columns: the compact input of requestTreesFromColumns, as the store reads it
 * (RowBinary) for 100,000 requests of a few million spans, where span objects with attribute
 * maps would not fit the budget.
 */
export interface SpanColumns {
  /** Sorted. */
  traceIds: string[];
  /** Trace t owns spans [traceOffsets[t], traceOffsets[t + 1]), ordered by (start, span id). */
  traceOffsets: Uint32Array;
  /** Epoch ns the start times count from. */
  baseNs: bigint;
  /** Per span: a key of its span id, unique within its trace (a 53-bit hash from the store). */
  spanKey: Float64Array;
  /** Per span: the key of its parent span id; -1 when the parent span id is empty (a root). */
  parentKey: Float64Array;
  /** Per span: ns from baseNs, and duration ns (integers, exact below 2^53). */
  startNs: Float64Array;
  durationNs: Float64Array;
  /** Per span: index into `descriptors`. */
  desc: Uint32Array;
  descriptors: SpanDescriptor[];
}

/** Columns for n spans, zero-filled, with no traces yet (the readers fill them in order). */
export function spanColumnsFor(
  n: number,
  baseNs: bigint,
  descriptors: SpanDescriptor[],
): SpanColumns {
  return {
    traceIds: [],
    traceOffsets: new Uint32Array(0),
    baseNs,
    spanKey: new Float64Array(n),
    parentKey: new Float64Array(n),
    startNs: new Float64Array(n),
    durationNs: new Float64Array(n),
    desc: new Uint32Array(n),
    descriptors,
  };
}

/** The no-parent key of `parentKey`. */
export const ROOT_PARENT_KEY = -1;

const kindIn = (list: readonly string[], k: string): boolean => list.includes(k);

function kindCode(kind: string): number {
  if (kindIn(SERVER_KINDS, kind)) return SPAN_KIND_CODE.server;
  if (kindIn(CONSUMER_KINDS, kind)) return SPAN_KIND_CODE.consumer;
  if (kindIn(CLIENT_KINDS, kind)) return SPAN_KIND_CODE.client;
  if (kindIn(PRODUCER_KINDS, kind)) return SPAN_KIND_CODE.producer;
  if (kindIn(INTERNAL_KINDS, kind)) return SPAN_KIND_CODE.internal;
  return SPAN_KIND_CODE.other;
}

/** The descriptor of one span, as the store's SQL computes it (request/trees/trees.ts in the API). */
export function spanDescriptor(s: SpanRecord): SpanDescriptor {
  const kind = kindCode(s.kind);
  const clientAttrs = kind === SPAN_KIND_CODE.internal && hasClientAttributes(s.attributes);
  const callSpan =
    kind === SPAN_KIND_CODE.client || kind === SPAN_KIND_CODE.producer || clientAttrs;
  return {
    kind,
    service: s.service,
    name: s.name,
    host: resourceHost(s.resource),
    mode: s.resource[SHARING_MODE_KEY] ?? '',
    clientAttrs,
    peerService: callSpan ? (s.attributes[PEER_SERVICE_KEY] ?? '') : '',
    serverAddress: callSpan ? (s.attributes[SERVER_ADDRESS_KEY] ?? '') : '',
  };
}

const cmp = (a: bigint | string, b: bigint | string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Span objects as columns (deduplicated, traces sorted, spans by start then span id): the
 * reference the store's columnar read is tested against, and a way to feed span objects to
 * requestTreesFromColumns. O(spans log spans).
 */
export function spanColumnsFromSpans(spans: readonly SpanRecord[]): SpanColumns {
  const unique = dedupeSpans(spans).spans.sort(
    (a, b) => cmp(a.traceId, b.traceId) || cmp(a.startNs, b.startNs) || cmp(a.spanId, b.spanId),
  );
  const n = unique.length;
  const baseNs = unique.reduce((m, s) => (s.startNs < m ? s.startNs : m), unique[0]?.startNs ?? 0n);
  const out = spanColumnsFor(n, baseNs, []);
  const offsets: number[] = [];
  const descIndex = new Map<string, number>();
  let keys = new Map<string, number>();
  const keyOf = (id: string): number => {
    let k = keys.get(id);
    if (k === undefined) {
      k = keys.size;
      keys.set(id, k);
    }
    return k;
  };
  unique.forEach((s, i) => {
    if (out.traceIds[out.traceIds.length - 1] !== s.traceId) {
      out.traceIds.push(s.traceId);
      offsets.push(i);
      keys = new Map();
    }
    out.spanKey[i] = keyOf(s.spanId);
    out.parentKey[i] = s.parentSpanId === '' ? ROOT_PARENT_KEY : keyOf(s.parentSpanId);
    out.startNs[i] = Number(s.startNs - baseNs);
    out.durationNs[i] = Number(s.durationNs);
    const d = spanDescriptor(s);
    const dk = JSON.stringify(d);
    let di = descIndex.get(dk);
    if (di === undefined) {
      di = out.descriptors.length;
      out.descriptors.push(d);
      descIndex.set(dk, di);
    }
    out.desc[i] = di;
  });
  offsets.push(n);
  out.traceOffsets = Uint32Array.from(offsets);
  return out;
}
