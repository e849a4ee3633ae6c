import { dedupeSpans, extractCalls, type Call } from './calls';
import {
  ABSENT_ATTRIBUTE,
  BACKGROUND_KEY,
  BACKGROUND_LOOKBACK_NS,
  EDGE_SLACK_NS,
  NO_BACKGROUND,
  UNKNOWN_HOST,
} from './conventions';
import { buildLeafCalls, type CallRecord, type FanoutRecord } from './leaf-calls-builder';
import type { FanoutOperation, LeafCalls } from './types';
import { resourceHost, type SpanRecord } from './span-record';
import { groupRequestEdges } from './structure';

/**
 * Fan-out detection over span records in TypeScript: the reference the SQL pushdown is tested
 * against, written for clarity (plain maps), not speed. DESIGN.md "Definitions", exactly:
 * - spans are deduplicated by (traceId, spanId) and calls found by `extractCalls` (calls.ts:
 *   CLIENT, PRODUCER, INTERNAL with client attributes, direct SERVER and cross-service INTERNAL
 *   spans; callers found through wrappers; several SERVER answers are one call);
 * - a fan-out is one request's (caller span's) calls to one (leafService, leafOperation) whose
 *   structure (structure.ts) is `parallel` or `pool`: concurrency >= 2 on half-open intervals,
 *   so touching calls are sequential and sequential loops, single calls and a PRODUCER's
 *   CONSUMERs (answers, not calls) are no fan-out. Width = all of the request's calls on it;
 * - background = the alphabetically first `background.activity` kind among background spans on
 *   the call's host whose half-open interval [start, end) intersects the call's, else 'none'.
 */

export interface DetectOptions {
  /** Fan-outs whose earliest call starts in [fromNs, toNs) are kept. */
  fromNs: bigint;
  toNs: bigint;
  /** Attribute keys to load as `attr:KEY` columns. */
  attributeKeys?: readonly string[];
}

/** How one fan-out ran: its concurrency and structure. */
export interface FanoutStructure {
  concurrency: number;
  structure: 'parallel' | 'pool';
}

export interface DetectedOperation {
  operation: FanoutOperation;
  calls: LeafCalls;
  /** One per fan-out, in the order of `calls`' fan-outs. */
  structures: FanoutStructure[];
}

/**
 * Every fan-out operation in the spans, with its LeafCalls (fan-outs ordered by start, then
 * trace id and parent span id; calls in a fan-out by start, then duration). Spans outside
 * [from - EDGE_SLACK_NS, to + EDGE_SLACK_NS) are ignored (background spans: from
 * BACKGROUND_LOOKBACK_NS before). A missing parent span leaves the parent names empty.
 * O(spans log spans).
 */
export function detectFanouts(
  spans: readonly SpanRecord[],
  opts: DetectOptions,
): DetectedOperation[] {
  const lo = opts.fromNs - EDGE_SLACK_NS;
  const hi = opts.toNs + EDGE_SLACK_NS;
  const unique = dedupeSpans(spans).spans;
  const inRange = unique.filter((s) => s.startNs >= lo && s.startNs < hi);
  const background = backgroundByHost(unique, opts.fromNs - BACKGROUND_LOOKBACK_NS, hi);
  const keys = opts.attributeKeys ?? [];
  const perOperation = new Map<
    string,
    { op: FanoutOperation; fanouts: { record: FanoutRecord; structure: FanoutStructure }[] }
  >();
  for (const e of groupRequestEdges(extractCalls(inRange, { attributeKeys: keys }))) {
    if (e.structure !== 'parallel' && e.structure !== 'pool') continue;
    if (e.firstStartNs < opts.fromNs || e.firstStartNs >= opts.toNs) continue;
    const op: FanoutOperation = {
      parentService: e.callerService,
      parentOperation: e.callerOperation,
      leafService: e.leafService,
      leafOperation: e.leafOperation,
    };
    const opKey = JSON.stringify(op);
    let entry = perOperation.get(opKey);
    if (!entry) perOperation.set(opKey, (entry = { op, fanouts: [] }));
    entry.fanouts.push({
      record: toFanout(e.traceId, e.callerSpanId, e.firstStartNs, e.calls, background, keys),
      structure: { concurrency: e.concurrency, structure: e.structure },
    });
  }
  return [...perOperation.values()].map((e) => {
    // Sorted as buildLeafCalls sorts (it keeps this order), so `structures` lines up.
    const sorted = [...e.fanouts].sort(
      (a, b) =>
        a.record.startMs - b.record.startMs ||
        cmpText(a.record.traceId, b.record.traceId) ||
        cmpText(a.record.parentSpanId, b.record.parentSpanId),
    );
    return {
      operation: e.op,
      calls: buildLeafCalls(
        sorted.map((f) => f.record),
        keys,
      ),
      structures: sorted.map((f) => f.structure),
    };
  });
}

const cmpText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

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
  kept: readonly Call[],
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
        durationMs: Number(c.endNs - c.startNs) / 1e6,
        host: c.host,
        mode: c.mode,
        background: kinds[0] ?? NO_BACKGROUND,
        attributes: Object.fromEntries(
          keys.map((k, i) => [k, c.attributes[i] ?? ABSENT_ATTRIBUTE]),
        ),
      };
    })
    .sort((a, b) => a.startMs - b.startMs || a.durationMs - b.durationMs);
  return { traceId, parentSpanId, startMs: Number(s0) / 1e6, calls };
}
