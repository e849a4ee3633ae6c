import { BACKGROUND_KEY } from '@tailscope/analysis';
import { param, join, sql, type Sql } from '../sql/template';

/**
 * Filters and windows shared by trace search (traces-search.ts) and the critical path's reads
 * (traces-roots.ts).
 */

/** A nanosecond instant bound as Int64 (the decimal string: no float rounding). */
export const ns = (v: bigint): Sql => sql`${param(v.toString(), 'Int64')}`;
export const inWindow = (lo: bigint, hi: bigint): Sql =>
  sql`Timestamp >= fromUnixTimestamp64Nano(${ns(lo)}) AND Timestamp < fromUnixTimestamp64Nano(${ns(hi)})`;
export const isError = sql`lower(StatusCode) IN ('error', 'status_code_error')`;

/** How far a trace's spans may start from its root's interval (clock skew, async tails). */
export const TRACE_SLACK_NS = 60_000_000_000n;

export interface RootFilter {
  fromNs: bigint;
  toNs: bigint;
  service?: string | undefined;
  operation?: string | undefined;
  minDurationNs?: bigint | undefined;
  maxDurationNs?: bigint | undefined;
  /**
   * Weight roots by their adjusted count (docs/analysis.md "Sampling"): the critical path's
   * quantiles, counts and sampled roots' `weight`. Absent: the unweighted SQL, unchanged.
   */
  weighted?: boolean | undefined;
}

/** The filters on one span (Jaeger's semantics for search: the same span has them all). */
export function spanWhere(f: RootFilter): Sql {
  const parts: Sql[] = [inWindow(f.fromNs, f.toNs)];
  if (f.service !== undefined) parts.push(sql`ServiceName = ${f.service}`);
  if (f.operation !== undefined) parts.push(sql`SpanName = ${f.operation}`);
  if (f.minDurationNs !== undefined)
    parts.push(sql`Duration >= ${param(f.minDurationNs.toString(), 'UInt64')}`);
  if (f.maxDurationNs !== undefined)
    parts.push(sql`Duration <= ${param(f.maxDurationNs.toString(), 'UInt64')}`);
  return join(parts, ' AND ');
}

/**
 * A request's root: a span without a parent that is not background activity. A GC pause or a
 * compaction reported as a `background.activity` span (8 copies per event in the demo, one per
 * virtual host) is evidence about a host, not traffic: it filled most of the newest trace-search
 * rows and was the busiest "root" of the critical path (issue 24).
 */
export const isRequestRoot = sql`ParentSpanId = '' AND NOT mapContains(SpanAttributes, ${BACKGROUND_KEY})`;

/** The same filters on request roots (the critical path's requests, trace search). */
export const rootWhere = (f: RootFilter): Sql => sql`${isRequestRoot} AND ${spanWhere(f)}`;

export interface RootRow {
  traceId: string;
  rootService: string;
  rootOperation: string;
  startNs: string;
  durationNs: string;
  /** The root's adjusted count, only when weighted. */
  weight?: number;
}

/** The time window holding every span of these roots: their interval widened by the slack. */
export function rootsWindow(roots: readonly { startNs: string; durationNs: string }[]): Sql {
  let lo = BigInt(roots[0]?.startNs ?? '0');
  let hi = lo;
  for (const r of roots) {
    const start = BigInt(r.startNs);
    const end = start + BigInt(r.durationNs);
    if (start < lo) lo = start;
    if (end > hi) hi = end;
  }
  return inWindow(lo - TRACE_SLACK_NS, hi + TRACE_SLACK_NS + 1n);
}
