import {
  BACKGROUND_KEY,
  BACKGROUND_LOOKBACK_NS,
  EDGE_SLACK_NS,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
  backgroundOfCalls,
  judgedHosts,
  withMeasuredModes,
  type BackgroundWindow,
  type LeafCalls,
} from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { execRowBinary } from '../sql/row-binary';
import { coverage } from './cache';
import { readLeafRow, type LeafRow } from './binary';
import { fanoutArrays } from './queries';
import { hostOf, inWindow, JOIN_SETTINGS, ns, withCtes, type FanoutScope } from './sql';
import { fanoutWeightsCte } from './weighted';
import { uncovered, type Coverage } from './stored';
import { join, raw, sql, type Sql } from '../sql/template';
import { TRACES } from '../traces/tables';
import { MEASURE_WINDOW_NS, measureHosts, type MeasuredCauses } from '../metrics/modes';

/**
 * Loading the leaf calls of one operation: ClickHouse detects the fan-outs and returns one
 * RowBinary row of column arrays (no per-call JSON, strings dictionary-encoded there); this
 * module orders the fan-outs and assigns background activity (a handful of windows per host,
 * matched exactly in TypeScript instead of joined per call in SQL).
 *
 * Call times come back in nanoseconds relative to `base` = from - BACKGROUND_LOOKBACK_NS as
 * float64, exact below 2^53 ns (104 days of range), so differences and window overlaps are
 * exact integers; startMs and durationMs are then computed as the reference computes them.
 */

/** What loadLeafCalls returns besides the calls. */
export interface LoadedLeafCalls {
  calls: LeafCalls;
  /** More fan-outs matched than `maxFanouts`: a uniform sample (by fan-out key hash) was kept. */
  sampled: boolean;
  /** What the hosts' metrics said where spans did not (absent when no metric was read). */
  measured?: MeasuredCauses;
}

/** The scope of loadLeafCalls: one leaf operation, all parents. */
export type LeafScope = FanoutScope & { leafService: string; leafOperation: string };

/**
 * The LeafCalls of one leaf operation (all parents) whose fan-outs start in [from, to), with
 * host, sharing mode, background and the asked attribute columns. At most `maxFanouts`
 * fan-outs: when more match, those with the smallest cityHash64 of their key are kept (a
 * deterministic uniform sample). Fan-outs ordered by (start, trace id, parent span id); calls
 * in a fan-out by (start, duration, host, mode, attributes). Attributes are never stored, so
 * asking for them detects live over the whole range.
 */
export async function loadLeafCalls(
  store: Store,
  scope: LeafScope,
  opts: {
    attributeKeys?: readonly string[];
    maxFanouts?: number;
    cache?: boolean;
    /** Also read each fan-out's sampling adjusted count (LeafCalls.weights). */
    weights?: boolean;
  } = {},
): Promise<LoadedLeafCalls> {
  const weights = opts.weights === true;
  const keys = opts.attributeKeys ?? [];
  const max = opts.maxFanouts ?? 200_000;
  const base = scope.fromNs - BACKGROUND_LOOKBACK_NS;
  const useCache = (opts.cache ?? true) && keys.length === 0;
  const cov = useCache ? await coverage(store, scope) : uncovered(scope);
  const [row, windows] = await Promise.all([
    execRowBinary(
      store,
      leafRowSql(scope, cov, { attributeKeys: keys, maxFanouts: max, baseNs: base, weights }),
    ).then((b) => readLeafRow(b, keys.length, weights)),
    store.query<BackgroundWindow>(backgroundWindowsSql(scope, base)),
  ]);
  // Hosts whose spans carry no sharing mode or background: what their metrics say.
  const declared = new Set(windows.map((w) => w.host));
  const asked = row.modeDict.includes(UNKNOWN_MODE)
    ? row.hostDict
    : row.hostDict.filter((h) => !declared.has(h));
  const measured = await measureHosts(store, {
    fromNs: base,
    toNs: scope.toNs + EDGE_SLACK_NS,
    hosts: asked,
    baseNs: base,
  });
  const gc = measured.gc.filter((w) => !declared.has(w.host));
  const calls = assemble(row, keys, gc.length > 0 ? [...windows, ...gc] : windows);
  const sampled = row.matched > row.fanouts;
  const out = { calls: withMeasuredModes(calls, measured.modes), sampled };
  if (!measured.evidence) return out;
  return {
    ...out,
    measured: {
      evidence: measured.evidence,
      modes: measured.modes,
      judged: judgedHosts(calls, measured.modes),
      gcHosts: [...new Set(gc.map((w) => w.host))],
      windowMs: Number(MEASURE_WINDOW_NS / 1_000_000n),
      asked,
    },
  };
}

/**
 * Per value column, hash-based and O(calls): ids in order of first appearance of each value's
 * 64-bit hash (arrayEnumerateDense over hashes is ~3x cheaper than over strings), the hashes in
 * that order, and the (hash, value) pairs, deduplicated by a hash set.
 */
function dictionary(name: string, column: string): Sql {
  const hashes = raw(`arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), ${column})))`);
  return sql`,
  arrayMap(id -> toUInt32(id - 1), arrayEnumerateDense(${hashes})) AS ${raw(name)},
  arrayFilter((hash, firstSeen) -> firstSeen = 1, ${hashes}, arrayEnumerateUniq(${hashes})) AS ${raw(name)}Hashes,
  groupUniqArrayArray(arrayMap(value -> (cityHash64(value), toString(value)), ${raw(column)})) AS ${raw(name)}Pairs`;
}

/**
 * One row of column arrays (order fixed by readLeafRow in fanouts-binary.ts) from at most
 * `maxFanouts` fan-outs, the smallest cityHash64 of their keys. Times are ns relative to
 * `baseNs`, as float64.
 */
export function leafRowSql(
  scope: LeafScope,
  cov: Coverage,
  o: { attributeKeys: readonly string[]; maxFanouts: number; baseNs: bigint; weights?: boolean },
): Sql {
  const attrs = o.attributeKeys.map((_, i) => `callAttr${i}`);
  // One array per column and fan-out; lambdas capture only the row's scalars (a lambda that
  // captures an array column makes ClickHouse copy that array for every element).
  const sample = sql`
  SELECT fanoutStartNs, traceId, parentSpanId, width,
    arrayMap(t -> toFloat64(t - ${ns(o.baseNs)}), callStartNs) AS callStartRel,
    arrayMap(d -> toFloat64(d), callDurationNs) AS callDurNs,
    callHosts, callModes${raw(attrs.map((a) => `, ${a}`).join(''))},
    count() OVER () AS matchedFanouts${o.weights === true ? raw(',\n    if(fw.weight > 0, fw.weight, 1.0) AS weight') : raw('')}
  FROM fanouts_in_scope${o.weights === true ? raw(' AS f\n  LEFT JOIN fo_weights AS fw ON cityHash64(f.traceId, f.parentSpanId) = fw.key') : raw('')}
  ORDER BY cityHash64(fanoutKey)
  LIMIT ${o.maxFanouts}`;
  const main = sql`SELECT
  toUInt32(count()) AS fanouts,
  toUInt32(any(matchedFanouts)) AS matched,
  groupArray(traceId) AS traceIds,
  groupArray(parentSpanId) AS parentSpanIds,
  groupArray(toFloat64(fanoutStartNs) / 1e6) AS fanoutStartMs,
  groupArray(toFloat64(fanoutStartNs - ${ns(o.baseNs)})) AS fanoutStartRel,
  groupArray(toUInt32(width)) AS widths,
  arrayFlatten(groupArray(callStartRel)) AS startRel,
  arrayFlatten(groupArray(callDurNs)) AS durNs${dictionary('host', 'callHosts')}${dictionary('mode', 'callModes')}${join(
    attrs.map((a, i) => dictionary(`attr${i}`, a)),
    '',
  )}${o.weights === true ? raw(',\n  groupArray(weight) AS fanoutWeights') : raw('')}
FROM sampled_fanouts
SETTINGS ${JOIN_SETTINGS}`;
  return withCtes(
    [
      ...fanoutArrays(scope, cov, o.attributeKeys),
      // Weighted (docs/analysis.md "Sampling"): a fan-out weighs its parent span's adjusted
      // count, as in /api/v1/fanouts.
      ...(o.weights === true ? [fanoutWeightsCte(scope)] : []),
      { name: 'sampled_fanouts', body: sample },
    ],
    main,
  );
}

/** Background-activity spans that can overlap the calls, times relative to `baseNs`. */
export function backgroundWindowsSql(scope: FanoutScope, baseNs: bigint): Sql {
  const win = inWindow(scope.fromNs - BACKGROUND_LOOKBACK_NS, scope.toNs + EDGE_SLACK_NS);
  return sql`SELECT
  if(resourceHost != '', resourceHost, ${UNKNOWN_HOST}) AS host,
  toFloat64(toUnixTimestamp64Nano(Timestamp) - ${ns(baseNs)}) AS start,
  start + toFloat64(Duration) AS end,
  SpanAttributes[${BACKGROUND_KEY}] AS kind,
  ${hostOf('ResourceAttributes')} AS resourceHost
FROM ${TRACES}
WHERE ${win} AND mapContains(SpanAttributes, ${BACKGROUND_KEY}) AND SpanAttributes[${BACKGROUND_KEY}] != ''`;
}

/** Orders the fan-outs, computes ms columns and background, builds LeafCalls. O(calls). */
function assemble(
  r: LeafRow,
  keys: readonly string[],
  windows: readonly BackgroundWindow[],
): LeafCalls {
  const f = r.fanouts;
  const srcOffset = new Uint32Array(f + 1);
  for (let i = 0; i < f; i++) srcOffset[i + 1] = (srcOffset[i] as number) + (r.widths[i] as number);
  const order = Array.from({ length: f }, (_, i) => i).sort(
    (a, b) =>
      (r.fanoutStartRel[a] as number) - (r.fanoutStartRel[b] as number) ||
      cmp(r.traceIds[a] ?? '', r.traceIds[b] ?? '') ||
      cmp(r.parentSpanIds[a] ?? '', r.parentSpanIds[b] ?? ''),
  );
  const total = r.startRel.length;
  const fanoutOffsets = new Uint32Array(f + 1);
  const startMs = new Float64Array(total);
  const durationMs = new Float64Array(total);
  const absRel = new Float64Array(total);
  const durNs = new Float64Array(total);
  const host = new Uint32Array(total);
  const mode = new Uint32Array(total);
  const attrs = keys.map(() => new Uint32Array(total));
  // Fan-outs move as whole blocks: typed-array copies, one loop for the ms columns.
  let k = 0;
  for (let dst = 0; dst < f; dst++) {
    const src = order[dst] as number;
    const a = srcOffset[src] as number;
    const b = srcOffset[src + 1] as number;
    const s0 = r.fanoutStartRel[src] as number;
    absRel.set(r.startRel.subarray(a, b), k);
    durNs.set(r.durNs.subarray(a, b), k);
    host.set(r.host.subarray(a, b), k);
    mode.set(r.mode.subarray(a, b), k);
    attrs.forEach((col, i) => {
      col.set((r.attrs[i] as Uint32Array).subarray(a, b), k);
    });
    for (let j = a; j < b; j++, k++) {
      startMs[k] = ((r.startRel[j] as number) - s0) / 1e6;
      durationMs[k] = (r.durNs[j] as number) / 1e6;
    }
    fanoutOffsets[dst + 1] = k;
  }
  const bg = backgroundOfCalls(host, r.hostDict, absRel, durNs, windows);
  const calls: LeafCalls = {
    fanoutOffsets,
    fanoutStartMs: Float64Array.from(order, (i) => r.fanoutStartMs[i] as number),
    traceIds: order.map((i) => r.traceIds[i] ?? ''),
    parentSpanIds: order.map((i) => r.parentSpanIds[i] ?? ''),
    startMs,
    durationMs,
    host,
    mode,
    background: bg.index,
    hosts: r.hostDict,
    modes: r.modeDict,
    backgrounds: bg.values,
  };
  if (r.weights) {
    const w = r.weights;
    calls.weights = Float64Array.from(order, (i) => w[i] as number);
  }
  if (keys.length > 0) {
    calls.attributes = Object.fromEntries(
      keys.map((key, i) => [key, { values: r.attrDicts[i] ?? [], index: attrs[i] as Uint32Array }]),
    );
  }
  return calls;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
