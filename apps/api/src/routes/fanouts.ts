import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import {
  amplificationCurve,
  amplificationFromCounts,
  slowestShare,
  type Quantiles,
} from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest } from '../server/errors';
import { selectFanoutOperations, type FanoutOperationRow } from '../store/fanouts';
import { selectStoredBounds, type Store } from '../store';

/** Query parameters every analysis route shares, and their parsing (400 names the parameter). */
export const RangeQuery = {
  from: Type.Optional(
    Type.String({
      description: 'Start: epoch milliseconds or ISO-8601. Default: one hour before `to`.',
    }),
  ),
  to: Type.Optional(
    Type.String({ description: 'End (exclusive): epoch milliseconds or ISO-8601. Default: now.' }),
  ),
};

const HOUR_MS = 3_600_000;

/**
 * Epoch ms from `epoch ms` digits (fractions and negatives allowed) or ISO-8601 text. Any
 * finite instant is accepted in either form (year 0000 as ISO or as -62167219200000): ranges
 * are clamped to the stored data before they reach a query (clampRange).
 */
export function parseTime(name: string, raw: string): number {
  const text = raw.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const v = Number(text);
    if (Number.isFinite(v)) return v;
  } else if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const v = Date.parse(text);
    if (Number.isFinite(v)) return v;
  }
  throw badRequest(
    `${name} must be epoch milliseconds or ISO-8601 date-time, got ${JSON.stringify(raw)}`,
  );
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
  const bounds = await selectStoredBounds(store);
  const clamp = (v: bigint): bigint => (v < NS_FLOOR ? NS_FLOOR : v > NS_CEIL ? NS_CEIL : v);
  if (!bounds) return { ...range, fromNs: 0n, toNs: 0n };
  const lo = clamp(bounds.minNs);
  const hi = clamp(bounds.maxNs + 1n);
  const fromNs = range.fromNs > lo ? range.fromNs : lo;
  const toNs = range.toNs < hi ? range.toNs : hi;
  return fromNs < toNs ? { ...range, fromNs, toNs } : { ...range, fromNs: lo, toNs: lo };
}

/**
 * Largest latency threshold taken, ms (about 31 years): larger is no threshold at all, and
 * integral values past 2^53 cannot be bound as query parameters (chDB refuses them: a 500).
 */
export const MAX_THRESHOLD_MS = 1e12;

/** Largest fan-out cap taken (what the schema documents; Ajv let `Infinity` through). */
export const MAX_FANOUTS_CAP = 1_000_000;

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

const Q = Type.Object(
  { p50: Type.Number(), p95: Type.Number(), p99: Type.Number(), p999: Type.Number() },
  { description: 'Quantiles (type 7) across fan-outs, ms' },
);

export const FanoutSchema = Type.Object({
  parentService: Type.String(),
  parentOperation: Type.String(),
  leafService: Type.String(),
  leafOperation: Type.String(),
  requests: Type.Integer({ description: 'Fan-outs (requests) in the range' }),
  width: Type.Object({ p50: Type.Number(), max: Type.Integer() }),
  table1: Type.Object({
    oneLeaf: Q,
    p95Leaves: Q,
    allLeaves: Q,
    slowest5pctShareOfP99: Type.Number({
      description: '(allLeaves.p99 - p95Leaves.p99) / allLeaves.p99',
    }),
  }),
  amplification: Type.Object({
    thresholdMs: Type.Number(),
    observedTailProbability: Type.Number(),
    predictedTailProbability: Type.Number(),
    verdict: Type.Union([
      Type.Literal('independent'),
      Type.Literal('correlated'),
      Type.Literal('insufficient-data'),
    ]),
    fanouts: Type.Integer(),
    tailFanouts: Type.Integer(),
    observedLow: Type.Number({ description: 'Wilson 95% interval of the observed probability' }),
    observedHigh: Type.Number(),
    singleCallCdf: Type.Number({ description: 'F(t): share of calls with latency <= thresholdMs' }),
  }),
  curve: Type.Array(
    Type.Object({
      width: Type.Integer(),
      observed: Type.Optional(Type.Number()),
      predicted: Type.Number(),
      fanouts: Type.Optional(Type.Integer()),
    }),
  ),
});
export type ApiFanout = Static<typeof FanoutSchema>;

const asQ = (v: readonly number[]): Quantiles => ({
  p50: v[0] ?? NaN,
  p95: v[1] ?? NaN,
  p99: v[2] ?? NaN,
  p999: v[3] ?? NaN,
});

/** The API record of one operation from its SQL aggregate (verdict and curve computed here). */
export function toApiFanout(r: FanoutOperationRow): ApiFanout {
  const oneLeaf = asQ(r.oneLeaf);
  const p95Leaves = asQ(r.p95Leaves);
  const allLeaves = asQ(r.allLeaves);
  const amp = amplificationFromCounts(r.thresholdMs, r.callsAtMost, r.calls, r.widths);
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
    amplification: amp,
    curve: amplificationCurve(r.widths, amp.singleCallCdf),
  };
}

const FanoutsQuery = Type.Object({
  ...RangeQuery,
  parentService: Type.Optional(Type.String()),
  leafService: Type.Optional(Type.String()),
  leafOperation: Type.Optional(Type.String()),
  thresholdMs: Type.Optional(
    Type.Number({
      description: 'Amplification threshold t, ms. Default: the operation’s single-call p99.',
    }),
  ),
  seed: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 4294967295,
      description: 'Seed of the random-leaf pick (default 1)',
    }),
  ),
});

export function fanoutRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/api/v1/fanouts',
    {
      schema: {
        summary: 'Fan-out operations: Table 1, tail amplification and its curve (docs/analysis.md)',
        querystring: FanoutsQuery,
        response: {
          200: Type.Object({
            from: Type.Number(),
            to: Type.Number(),
            fanouts: Type.Array(FanoutSchema),
          }),
        },
      },
    },
    async (req) => {
      const q = req.query as Static<typeof FanoutsQuery>;
      const range = await clampRange(ctx.store, parseRange(q, Date.now()));
      const thresholdMs = optionalNumber('thresholdMs', q.thresholdMs, 0, MAX_THRESHOLD_MS);
      const rows = await selectFanoutOperations(
        ctx.store,
        {
          fromNs: range.fromNs,
          toNs: range.toNs,
          parentService: q.parentService,
          leafService: q.leafService,
          leafOperation: q.leafOperation,
        },
        { thresholdMs, seed: q.seed ?? 1 },
      );
      return { from: range.fromMs, to: range.toMs, fanouts: rows.map(toApiFanout) };
    },
  );
}
