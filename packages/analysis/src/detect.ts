import {
  ABSENT_ATTRIBUTE,
  BACKGROUND_KEY,
  BACKGROUND_LOOKBACK_NS,
  CLIENT_KINDS,
  EDGE_SLACK_NS,
  HOST_KEYS,
  NO_BACKGROUND,
  PEER_SERVICE_KEY,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
} from './conventions';
import { buildLeafCalls, type CallRecord, type FanoutRecord } from './leaf-calls-builder';
import type { FanoutOperation, LeafCalls } from './types';

/**
 * Fan-out detection over span records in TypeScript: the reference the SQL pushdown is tested
 * against, written for clarity (pairwise overlap, plain maps), not speed. DESIGN.md
 * "Definitions" and "Conventions", exactly:
 * - a call is a CLIENT span (measured by its own duration; host, mode and leaf names from its
 *   SERVER child when there is one, else `server.address` / `peer.service` and its own name),
 *   or a SERVER span whose parent is not a CLIENT span (its own duration and resource);
 * - a fan-out is a parent span with >= 2 calls to the same (leafService, leafOperation) that
 *   overlap in time; calls overlapping none of their siblings are not part of it; two calls
 *   overlap when their closed intervals [start, end] intersect (so zero-length calls at the
 *   same instant do);
 * - background = the alphabetically first `background.activity` kind among background spans on
 *   the call's host whose half-open interval [start, end) intersects the call's, else 'none'.
 */

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** 'Server' / 'SPAN_KIND_SERVER' etc., as stored. */
  kind: string;
  service: string;
  name: string;
  startNs: bigint;
  durationNs: bigint;
  resource: Readonly<Record<string, string>>;
  attributes: Readonly<Record<string, string>>;
}

export interface DetectOptions {
  /** Fan-outs whose earliest call starts in [fromNs, toNs) are kept. */
  fromNs: bigint;
  toNs: bigint;
  /** Attribute keys to load as `attr:KEY` columns. */
  attributeKeys?: readonly string[];
}

export interface DetectedOperation {
  operation: FanoutOperation;
  calls: LeafCalls;
}

const isServer = (k: string): boolean => (SERVER_KINDS as readonly string[]).includes(k);
const isClient = (k: string): boolean => (CLIENT_KINDS as readonly string[]).includes(k);

/** The host of a resource by the HOST_KEYS chain, '' when none is set. */
export function resourceHost(resource: Readonly<Record<string, string>>): string {
  for (const k of HOST_KEYS) {
    const v = resource[k];
    if (v) return v;
  }
  return '';
}

/**
 * Every fan-out operation in the spans, with its LeafCalls (fan-outs ordered by start, then
 * trace id and parent span id; calls in a fan-out by start, then duration). Spans outside
 * [from - EDGE_SLACK_NS, to + EDGE_SLACK_NS) are ignored (background spans: from
 * BACKGROUND_LOOKBACK_NS before). A missing parent span leaves the parent names empty.
 * O(spans + sum of N^2 over fan-outs).
 */
export function detectFanouts(
  spans: readonly SpanRecord[],
  opts: DetectOptions,
): DetectedOperation[] {
  const lo = opts.fromNs - EDGE_SLACK_NS;
  const hi = opts.toNs + EDGE_SLACK_NS;
  const inRange = spans.filter((s) => s.startNs >= lo && s.startNs < hi);
  const byId = new Map(inRange.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  const serverChildren = new Map<string, SpanRecord[]>();
  for (const s of inRange) {
    if (!isServer(s.kind)) continue;
    const key = `${s.traceId}/${s.parentSpanId}`;
    serverChildren.set(key, [...(serverChildren.get(key) ?? []), s]);
  }
  const background = backgroundByHost(spans, opts.fromNs - BACKGROUND_LOOKBACK_NS, hi);
  const keys = opts.attributeKeys ?? [];
  const groups = new Map<
    string,
    { trace: string; parent: string; svc: string; op: string; calls: RawCall[] }
  >();
  const add = (trace: string, parent: string, call: RawCall): void => {
    if (parent === '') return;
    const key = JSON.stringify([trace, parent, call.svc, call.op]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { trace, parent, svc: call.svc, op: call.op, calls: [] }));
    g.calls.push(call);
  };
  for (const c of inRange.filter((s) => isClient(s.kind))) {
    const servers = serverChildren.get(`${c.traceId}/${c.spanId}`) ?? [];
    for (const s of servers) add(c.traceId, c.parentSpanId, pairCall(c, s, keys));
    if (servers.length === 0) add(c.traceId, c.parentSpanId, clientOnlyCall(c, keys));
  }
  for (const s of inRange.filter((x) => isServer(x.kind))) {
    const parent = byId.get(`${s.traceId}/${s.parentSpanId}`);
    if (parent && isClient(parent.kind)) continue;
    add(s.traceId, s.parentSpanId, directCall(s, keys));
  }
  const perOperation = new Map<string, { op: FanoutOperation; fanouts: FanoutRecord[] }>();
  for (const g of groups.values()) {
    const kept = g.calls.filter((c) =>
      g.calls.some((o) => o !== c && o.startNs <= c.endNs && c.startNs <= o.endNs),
    );
    if (kept.length < 2) continue;
    const s0 = kept.reduce((m, c) => (c.startNs < m ? c.startNs : m), kept[0]?.startNs ?? 0n);
    if (s0 < opts.fromNs || s0 >= opts.toNs) continue;
    const parent = byId.get(`${g.trace}/${g.parent}`);
    const op: FanoutOperation = {
      parentService: parent?.service ?? '',
      parentOperation: parent?.name ?? '',
      leafService: g.svc,
      leafOperation: g.op,
    };
    const opKey = JSON.stringify(op);
    let entry = perOperation.get(opKey);
    if (!entry) perOperation.set(opKey, (entry = { op, fanouts: [] }));
    entry.fanouts.push(toFanout(g.trace, g.parent, s0, kept, background, keys));
  }
  return [...perOperation.values()].map((e) => ({
    operation: e.op,
    calls: buildLeafCalls(e.fanouts, keys),
  }));
}

interface RawCall {
  svc: string;
  op: string;
  startNs: bigint;
  endNs: bigint;
  durationNs: bigint;
  host: string;
  mode: string;
  attrs: string[];
}

function attrs(
  keys: readonly string[],
  sources: readonly Readonly<Record<string, string>>[],
): string[] {
  return keys.map((k) => {
    for (const src of sources) {
      const v = src[k];
      if (v !== undefined && v !== '') return v;
    }
    return ABSENT_ATTRIBUTE;
  });
}

function pairCall(c: SpanRecord, s: SpanRecord, keys: readonly string[]): RawCall {
  return {
    svc: s.service,
    op: s.name,
    startNs: c.startNs,
    endNs: c.startNs + c.durationNs,
    durationNs: c.durationNs,
    host: resourceHost(s.resource) || UNKNOWN_HOST,
    mode: s.resource[SHARING_MODE_KEY] || UNKNOWN_MODE,
    attrs: attrs(keys, [s.attributes, s.resource, c.attributes, c.resource]),
  };
}

function clientOnlyCall(c: SpanRecord, keys: readonly string[]): RawCall {
  const addr = c.attributes[SERVER_ADDRESS_KEY] ?? '';
  return {
    svc: c.attributes[PEER_SERVICE_KEY] || addr,
    op: c.name,
    startNs: c.startNs,
    endNs: c.startNs + c.durationNs,
    durationNs: c.durationNs,
    host: addr || UNKNOWN_HOST,
    mode: UNKNOWN_MODE,
    attrs: attrs(keys, [c.attributes, c.resource]),
  };
}

function directCall(s: SpanRecord, keys: readonly string[]): RawCall {
  return {
    svc: s.service,
    op: s.name,
    startNs: s.startNs,
    endNs: s.startNs + s.durationNs,
    durationNs: s.durationNs,
    host: resourceHost(s.resource) || UNKNOWN_HOST,
    mode: s.resource[SHARING_MODE_KEY] || UNKNOWN_MODE,
    attrs: attrs(keys, [s.attributes, s.resource]),
  };
}

type Windows = Map<string, { startNs: bigint; endNs: bigint; kind: string }[]>;

function backgroundByHost(spans: readonly SpanRecord[], lo: bigint, hi: bigint): Windows {
  const out: Windows = new Map();
  for (const s of spans) {
    const kind = s.attributes[BACKGROUND_KEY];
    if (!kind || s.startNs < lo || s.startNs >= hi) continue;
    const host = resourceHost(s.resource) || UNKNOWN_HOST;
    out.set(host, [
      ...(out.get(host) ?? []),
      { startNs: s.startNs, endNs: s.startNs + s.durationNs, kind },
    ]);
  }
  return out;
}

function toFanout(
  traceId: string,
  parentSpanId: string,
  s0: bigint,
  kept: RawCall[],
  background: Windows,
  keys: readonly string[],
): FanoutRecord {
  const calls: CallRecord[] = kept
    .map((c) => {
      const kinds = (background.get(c.host) ?? [])
        .filter((b) => b.startNs < c.endNs && c.startNs < b.endNs)
        .map((b) => b.kind)
        .sort();
      return {
        startMs: Number(c.startNs - s0) / 1e6,
        durationMs: Number(c.durationNs) / 1e6,
        host: c.host,
        mode: c.mode,
        background: kinds[0] ?? NO_BACKGROUND,
        attributes: Object.fromEntries(keys.map((k, i) => [k, c.attrs[i] ?? ABSENT_ATTRIBUTE])),
      };
    })
    .sort((a, b) => a.startMs - b.startMs || a.durationMs - b.durationMs);
  return { traceId, parentSpanId, startMs: Number(s0) / 1e6, calls };
}
