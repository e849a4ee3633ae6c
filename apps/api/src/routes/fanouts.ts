import {
  API_PATHS,
  FanoutsRoute,
  TIME_MAX_MS,
  TIME_MIN_MS,
  type Fanout,
} from '@tailscope/contracts';
import {
  amplificationCurve,
  amplificationFromCounts,
  fanoutVerdict,
  slowestShare,
  type Quantiles,
} from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest } from '../server/errors';
import type { RouteApp } from '../server/route-app';
import { selectEdges } from '../store/edges';
import { selectFanoutOperations, type FanoutOperationRow } from '../store/fanouts';
import { emptyFanoutsHint } from './empty-hint';
import { selectStoredBounds, type Store } from '../store';
import { rangeSampling } from './sampling';
import { cachedAnswer } from '../cache';

const HOUR_MS = 3_600_000;

/**
 * Epoch ms from `epoch ms` digits (fractions allowed) or ISO-8601 text, between 1970 and 2200
 * whichever way it is written; ranges are then clamped to the stored data (clampRange).
 */
function parseTime(name: string, raw: string): number {
  const text = raw.trim();
  let v = NaN;
  if (/^-?\d+(\.\d+)?$/.test(text)) v = Number(text);
  else if (/^\d{4}-\d{2}-\d{2}/.test(text)) v = Date.parse(text);
  else
    throw badRequest(
      `${name} must be epoch milliseconds or ISO-8601 date-time, got ${JSON.stringify(raw)}`,
    );
  // The same instants are accepted whichever way they are written (year 0000 refused both ways).
  if (!(v >= TIME_MIN_MS && v <= TIME_MAX_MS))
    throw badRequest(
      `${name} must be between 1970-01-01 and 2200-01-01 (epoch ms ${TIME_MIN_MS} to ${TIME_MAX_MS}), got ${JSON.stringify(raw)}`,
    );
  return v;
}

export interface TimeRange {
  fromMs: number;
  toMs: number;
  fromNs: bigint;
  toNs: bigint;
}

function msToNs(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/** [from, to) from the query, defaulting to the last hour; 400 when reversed. */
export function parseRange(
  q: { from?: string | undefined; to?: string | undefined },
  nowMs: number,
): TimeRange {
  const toMs = q.to !== undefined ? parseTime('to', q.to) : nowMs;
  const fromMs = q.from !== undefined ? parseTime('from', q.from) : toMs - HOUR_MS;
  if (!(fromMs < toMs)) throw badRequest(`from (${fromMs}) must be before to (${toMs})`);
  return { fromMs, toMs, fromNs: msToNs(fromMs), toNs: msToNs(toMs) };
}

/**
 * Instants ClickHouse DateTime64(9) can hold, with a day's room for the edge margins the
 * queries add around a range (Int64 ns: 1677-09-21 to 2262-04-11).
 */
const DAY_NS = 86_400_000_000_000n;
const NS_FLOOR = -(2n ** 63n) + DAY_NS;
const NS_CEIL = 2n ** 63n - 1n - DAY_NS;

/**
 * The part of [from, to) the store holds spans in, so no
 * query's cost grows with the range asked rather than the data: `from=0000-01-01&to=9999-12-31`
 * on a store of one span reads that span's instant, not ten thousand years of 10-minute chunks
 * (which once allocated an array per chunk and took the process down). fromMs/toMs stay as
 * asked, for the answer to echo; fromNs/toNs become the stored part (empty: equal).
 */
export async function clampRange(store: Store, range: TimeRange): Promise<TimeRange> {
  return (await clampRangeCovering(store, range)).range;
}

/**
 * clampRange, and whether the clamped range holds every stored span (its reads may then drop
 * the time filter). Bounds past the engine's DateTime64 limits are not whole.
 */
export async function clampRangeCovering(
  store: Store,
  range: TimeRange,
): Promise<{ range: TimeRange; whole: boolean }> {
  const bounds = await selectStoredBounds(store);
  const clamp = (v: bigint): bigint => (v < NS_FLOOR ? NS_FLOOR : v > NS_CEIL ? NS_CEIL : v);
  if (!bounds) return { range: { ...range, fromNs: 0n, toNs: 0n }, whole: false };
  const lo = clamp(bounds.minNs);
  const hi = clamp(bounds.maxNs + 1n);
  const fromNs = range.fromNs > lo ? range.fromNs : lo;
  const toNs = range.toNs < hi ? range.toNs : hi;
  const whole = fromNs === bounds.minNs && toNs === bounds.maxNs + 1n;
  return fromNs < toNs
    ? { range: { ...range, fromNs, toNs }, whole }
    : { range: { ...range, fromNs: lo, toNs: lo }, whole: false };
}

/** A non-empty string parameter, or 400 naming it. */
export function requireText(name: string, v: string | undefined): string {
  if (v === undefined || v === '') throw badRequest(`${name} is required`);
  return v;
}

/** An optional finite number in [min, max], or 400 naming it. */
export function optionalNumber(
  name: string,
  v: number | undefined,
  min: number,
  max: number,
): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isFinite(v) || v < min || v > max)
    throw badRequest(`${name} must be a number in [${min}, ${max}], got ${v}`);
  return v;
}

const asQ = (v: readonly number[]): Quantiles => ({
  p50: v[0] ?? NaN,
  p95: v[1] ?? NaN,
  p99: v[2] ?? NaN,
  p999: v[3] ?? NaN,
});

/** The API record of one operation from its SQL aggregate (verdict and curve computed here). */
function toApiFanout(r: FanoutOperationRow): Fanout {
  const oneLeaf = asQ(r.oneLeaf);
  const p95Leaves = asQ(r.p95Leaves);
  const allLeaves = asQ(r.allLeaves);
  const amp = amplificationFromCounts(r.thresholdMs, r.callsAtMost, r.calls, r.widths);
  const structure = r.poolFanouts > r.parallelFanouts ? 'pool' : 'parallel';
  const verdict = fanoutVerdict(amp.verdict, structure, {
    tail: amp.tailFanouts,
    queued: r.queuedTailFanouts,
  });
  return {
    parentService: r.parentService,
    parentOperation: r.parentOperation,
    leafService: r.leafService,
    leafOperation: r.leafOperation,
    requests: r.requests,
    width: { p50: r.widthP50, max: r.widthMax },
    table1: {
      oneLeaf,
      p95Leaves,
      allLeaves,
      slowest5pctShareOfP99: slowestShare(allLeaves.p99, p95Leaves.p99),
    },
    amplification: { ...amp, verdict },
    curve: amplificationCurve(r.widths, amp.singleCallCdf),
    structure,
    concurrency: { p50: r.concurrencyP50, max: r.concurrencyMax },
    ...(structure === 'pool'
      ? { poolSize: r.poolSize, queueWaitMs: asQ(r.queueWaitMs.map((x) => x ?? NaN)) }
      : {}),
  };
}

export function fanoutRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.fanouts.path, { schema: FanoutsRoute }, async (req) => {
    const q = req.query;
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    return cachedAnswer(
      ctx.store,
      'fanouts',
      { ...q, asked: [range.fromMs, range.toMs] },
      range,
      () => answerFanouts(ctx.store, range, q),
    );
  });
}

/** The /api/v1/fanouts answer over the clamped `range` (kept by the answer cache). */
async function answerFanouts(
  store: Store,
  range: TimeRange,
  q: {
    parentService?: string | undefined;
    leafService?: string | undefined;
    leafOperation?: string | undefined;
    thresholdMs?: number | undefined;
    seed?: number | undefined;
  },
) {
  // First: whether any span carries a threshold decides which aggregate runs.
  const sampling = await rangeSampling(store, range);
  const rows = await selectFanoutOperations(
    store,
    {
      fromNs: range.fromNs,
      toNs: range.toNs,
      parentService: q.parentService,
      leafService: q.leafService,
      leafOperation: q.leafOperation,
    },
    { thresholdMs: q.thresholdMs, seed: q.seed ?? 1, weighted: sampling.weighted },
  );
  const fanouts = rows.map(toApiFanout);
  if (fanouts.length > 0) return { from: range.fromMs, to: range.toMs, fanouts, sampling };
  // None: say why, from the edges of the same range and services.
  const edges = await selectEdges(store, {
    fromNs: range.fromNs,
    toNs: range.toNs,
    parentService: q.parentService,
    leafService: q.leafService,
  });
  return { from: range.fromMs, to: range.toMs, fanouts, sampling, ...emptyFanoutsHint(edges) };
}
