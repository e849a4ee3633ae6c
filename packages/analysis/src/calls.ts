import {
  ABSENT_ATTRIBUTE,
  BACKGROUND_KEY,
  CALL_SYSTEM_KEYS,
  CLIENT_KINDS,
  CONSUMER_KINDS,
  HTTP_METHOD_KEYS,
  HTTP_TARGET_KEYS,
  INTERNAL_KINDS,
  MAX_WRAPPER_HOPS,
  PEER_SERVICE_KEY,
  PRODUCER_KINDS,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
} from './conventions';
import { resourceHost, type SpanRecord } from './span-record';
import { ownEntry } from './own-keys';

/**
 * Calls as real traces carry them (DESIGN.md "Definitions": Call; issue #12), in TypeScript: the
 * one definition the SQL builders (apps/api/src/store/calls-sql.ts) are tested against. Written
 * for clarity (maps, no typed arrays), O(spans).
 *
 * - Spans are deduplicated by (traceId, spanId); the first copy seen wins.
 * - A **call** is (a) a CLIENT or PRODUCER span, or an INTERNAL span with client attributes
 *   (isClientSpan), timed by its own start and duration (the caller's clock), named by its
 *   earliest SERVER or CONSUMER child (the answer; several answers are still one call), else by
 *   `peer.service` (else `server.address`) and its own name; (b) a SERVER span whose parent is
 *   not a call span (no client span between the caller and it): its own time, names, resource;
 *   (c) an INTERNAL span without client attributes that is not a wrapper and whose service is
 *   not its caller's (a span of another service directly under the caller: HotROD's `redis`).
 * - The **caller** is the nearest ancestor that is not a wrapper, walking at most
 *   MAX_WRAPPER_HOPS wrappers. A wrapper is an INTERNAL span without client attributes with
 *   exactly one child (children deduplicated). A missing caller span leaves its names empty and
 *   its duration 0; the request is still identified by the parent span id.
 * - **Skew**: a call whose SERVER answers reach outside its own [start, end] (by skewNs, the
 *   largest distance outside) stays timed by the caller; the pair (clientHost, serverHost) is
 *   counted (skew.ts `skewPairs`).
 * - Spans with an empty parent span id are roots, never calls.
 * - A `background.activity` span (GC, compaction) is evidence about its host, not traffic: never
 *   a call, so never part of a fan-out, even when an SDK nested it under a request's span.
 */

export type CallVia = 'client' | 'producer' | 'internal' | 'server' | 'cross-service';

export interface Call {
  traceId: string;
  /** The request: the caller span's id. */
  callerSpanId: string;
  /** '' when the caller span is not among the spans. */
  callerService: string;
  callerOperation: string;
  /** Caller span's start and duration, ns (0n when missing). */
  callerStartNs: bigint;
  callerDurationNs: bigint;
  /** The span that makes it a call (the client span, or the direct SERVER / INTERNAL span). */
  spanId: string;
  via: CallVia;
  leafService: string;
  leafOperation: string;
  /** On the caller's clock, ns; endNs = startNs + duration. */
  startNs: bigint;
  endNs: bigint;
  /** Callee host (answer's resource, else server.address, else 'unknown') and sharing mode. */
  host: string;
  mode: string;
  /** The host of the call span's own resource ('unknown' when none). */
  clientHost: string;
  /** SERVER / CONSUMER children answering the call (0 for direct calls). */
  answers: number;
  /** How far the SERVER answers reach outside the call, ns (0n: no skew). */
  skewNs: bigint;
  /** Wrappers skipped between the call and its caller. */
  wrappers: number;
  /** Values of the asked attribute keys (answer, then call span; span before resource). */
  attributes: string[];
}

export interface CallOptions {
  /** Attribute keys to carry per call. */
  attributeKeys?: readonly string[];
}

const kindIn =
  (list: readonly string[]) =>
  (k: string): boolean =>
    list.includes(k);
export const isServerKind = kindIn(SERVER_KINDS);
export const isClientKind = kindIn(CLIENT_KINDS);
export const isProducerKind = kindIn(PRODUCER_KINDS);
export const isConsumerKind = kindIn(CONSUMER_KINDS);
export const isInternalKind = kindIn(INTERNAL_KINDS);

const has = (a: Readonly<Record<string, string>>, keys: readonly string[]): boolean =>
  keys.some((k) => (a[k] ?? '') !== '');

/** True when the span's attributes mark it as a client (conventions.ts, CALL_SYSTEM_KEYS...). */
export function hasClientAttributes(attrs: Readonly<Record<string, string>>): boolean {
  return (
    (has(attrs, HTTP_METHOD_KEYS) && has(attrs, HTTP_TARGET_KEYS)) ||
    has(attrs, CALL_SYSTEM_KEYS) ||
    has(attrs, [PEER_SERVICE_KEY])
  );
}

/** A call span: CLIENT, PRODUCER, or INTERNAL with client attributes. */
export function isClientSpan(s: SpanRecord): boolean {
  return (
    isClientKind(s.kind) ||
    isProducerKind(s.kind) ||
    (isInternalKind(s.kind) && hasClientAttributes(s.attributes))
  );
}

const idOf = (traceId: string, spanId: string): string => `${traceId}/${spanId}`;

/** Spans deduplicated by (traceId, spanId), first copy kept, and the extra copies counted. */
export function dedupeSpans(spans: readonly SpanRecord[]): {
  spans: SpanRecord[];
  duplicates: number;
} {
  const seen = new Set<string>();
  const out: SpanRecord[] = [];
  for (const s of spans) {
    const id = idOf(s.traceId, s.spanId);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(s);
  }
  return { spans: out, duplicates: spans.length - out.length };
}

interface Tree {
  byId: Map<string, SpanRecord>;
  children: Map<string, SpanRecord[]>;
}

function treeOf(spans: readonly SpanRecord[]): Tree {
  const byId = new Map(spans.map((s) => [idOf(s.traceId, s.spanId), s]));
  const children = new Map<string, SpanRecord[]>();
  for (const s of spans) {
    if (s.parentSpanId === '') continue;
    const key = idOf(s.traceId, s.parentSpanId);
    const list = children.get(key);
    if (list) list.push(s);
    else children.set(key, [s]);
  }
  return { byId, children };
}

const childrenOf = (t: Tree, s: SpanRecord): SpanRecord[] =>
  t.children.get(idOf(s.traceId, s.spanId)) ?? [];

/** An INTERNAL span without client attributes with exactly one child. */
export function isWrapper(t: Tree, s: SpanRecord): boolean {
  return (
    isInternalKind(s.kind) && !hasClientAttributes(s.attributes) && childrenOf(t, s).length === 1
  );
}

/** The caller of a span: its parent id after skipping at most MAX_WRAPPER_HOPS wrappers. */
function callerOf(t: Tree, s: SpanRecord): { id: string; span?: SpanRecord; wrappers: number } {
  let id = s.parentSpanId;
  let wrappers = 0;
  for (;;) {
    const span = t.byId.get(idOf(s.traceId, id));
    if (!span) return { id, wrappers };
    if (wrappers === MAX_WRAPPER_HOPS || !isWrapper(t, span)) return { id, span, wrappers };
    id = span.parentSpanId;
    wrappers++;
  }
}

function attributesOf(
  keys: readonly string[],
  sources: readonly Readonly<Record<string, string>>[],
): string[] {
  return keys.map((k) => {
    for (const src of sources) {
      const v = ownEntry(src, k);
      if (v !== undefined && v !== '') return v;
    }
    return ABSENT_ATTRIBUTE;
  });
}

const hostOrUnknown = (s: SpanRecord): string => resourceHost(s.resource) || UNKNOWN_HOST;
const modeOf = (s: SpanRecord): string => s.resource[SHARING_MODE_KEY] || UNKNOWN_MODE;

/**
 * Every call among the spans (already deduplicated, see dedupeSpans), in span order. O(spans).
 */
export function extractCalls(spans: readonly SpanRecord[], opts: CallOptions = {}): Call[] {
  const t = treeOf(spans);
  const keys = opts.attributeKeys ?? [];
  const out: Call[] = [];
  for (const s of spans) {
    if (s.parentSpanId === '' || BACKGROUND_KEY in s.attributes) continue;
    const call = callOf(t, s, keys);
    if (call) out.push(call);
  }
  return out;
}

function callOf(t: Tree, s: SpanRecord, keys: readonly string[]): Call | null {
  const caller = callerOf(t, s);
  const parent = t.byId.get(idOf(s.traceId, s.parentSpanId));
  let body: CallBody;
  if (isClientSpan(s)) body = clientCall(t, s, keys);
  else if (isServerKind(s.kind)) {
    if (parent && isClientSpan(parent)) return null; // an answer, not a call
    body = directCall(s, 'server', keys);
  } else if (isInternalKind(s.kind)) {
    if (isWrapper(t, s) || !caller.span || caller.span.service === s.service) return null;
    body = directCall(s, 'cross-service', keys);
  } else return null;
  return {
    ...body,
    traceId: s.traceId,
    callerSpanId: caller.id,
    callerService: caller.span?.service ?? '',
    callerOperation: caller.span?.name ?? '',
    callerStartNs: caller.span?.startNs ?? 0n,
    callerDurationNs: caller.span?.durationNs ?? 0n,
    wrappers: caller.wrappers,
  };
}

type CallBody = Omit<
  Call,
  | 'traceId'
  | 'callerSpanId'
  | 'callerService'
  | 'callerOperation'
  | 'callerStartNs'
  | 'callerDurationNs'
  | 'wrappers'
>;

function directCall(s: SpanRecord, via: CallVia, keys: readonly string[]): CallBody {
  return {
    spanId: s.spanId,
    via,
    leafService: s.service,
    leafOperation: s.name,
    startNs: s.startNs,
    endNs: s.startNs + s.durationNs,
    host: hostOrUnknown(s),
    mode: modeOf(s),
    clientHost: hostOrUnknown(s),
    answers: 0,
    skewNs: 0n,
    attributes: attributesOf(keys, [s.attributes, s.resource]),
  };
}

function clientCall(t: Tree, c: SpanRecord, keys: readonly string[]): CallBody {
  const answers = childrenOf(t, c).filter((x) => isServerKind(x.kind) || isConsumerKind(x.kind));
  // The earliest answer names the callee (ties: the smaller span id, as the SQL's argMin key).
  const first = answers.reduce<SpanRecord | undefined>(
    (m, x) =>
      !m || x.startNs < m.startNs || (x.startNs === m.startNs && x.spanId < m.spanId) ? x : m,
    undefined,
  );
  const endNs = c.startNs + c.durationNs;
  let skewNs = 0n;
  for (const a of answers.filter((x) => isServerKind(x.kind))) {
    const before = c.startNs - a.startNs;
    const after = a.startNs + a.durationNs - endNs;
    if (before > skewNs) skewNs = before;
    if (after > skewNs) skewNs = after;
  }
  const addr = c.attributes[SERVER_ADDRESS_KEY] ?? '';
  // A message to a named broker (peer.service or server.address) is a call to that broker:
  // which consumer happened to start first must not split one edge into several.
  const broker = isProducerKind(c.kind) && (c.attributes[PEER_SERVICE_KEY] || addr) !== '';
  const named = broker ? undefined : first;
  return {
    spanId: c.spanId,
    via: isClientKind(c.kind) ? 'client' : isProducerKind(c.kind) ? 'producer' : 'internal',
    leafService: named ? named.service : c.attributes[PEER_SERVICE_KEY] || addr,
    leafOperation: named ? named.name : c.name,
    startNs: c.startNs,
    endNs,
    host: named ? hostOrUnknown(named) : addr || UNKNOWN_HOST,
    mode: named ? modeOf(named) : UNKNOWN_MODE,
    clientHost: hostOrUnknown(c),
    answers: answers.length,
    skewNs,
    attributes: attributesOf(
      keys,
      named
        ? [named.attributes, named.resource, c.attributes, c.resource]
        : [c.attributes, c.resource],
    ),
  };
}
