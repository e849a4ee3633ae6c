import { addFineHistogram, windowFromFineHistogram } from '@tailscope/analysis';
import { CALL_BUCKET_NS } from './call-buckets-tables';
import { callBucketCoverage } from './call-buckets-cache';
import type { Store } from './client';
import {
  liveEpisodeWindowsSql,
  storedEpisodeWindowsSql,
  type EpisodeScope,
  type SeriesKind,
} from './episodes';
import type { Sql } from './sql';

/**
 * The (series, window) aggregates episodes judge (episodes.ts has the SQL): the stored 10 s
 * buckets of call-buckets-cache.ts for the covered part of the range, live for the rest (the
 * open tail, stale or missing chunks, a head shorter than a bucket), histograms merged per
 * (series, window). Windows that are no multiple of 10 s (15 s) are all live.
 */

export type { EpisodeScope, SeriesKind } from './episodes';

/** One (series, window) aggregate. */
export interface EpisodeWindowRow {
  kind: SeriesKind;
  service: string;
  /** '' for edge series. */
  host: string;
  parentService: string;
  parentOperation: string;
  operation: string;
  /** Window index: floor(start ms / windowMs). */
  window: number;
  calls: number;
  weightedCalls: number;
  p50Ms: number;
  p99Ms: number;
  buckets: number[];
  counts: number[];
}

type Num = number | string;
interface HistogramRow {
  kind: SeriesKind;
  service: string;
  host: string;
  parentService: string;
  parentOperation: string;
  operation: string;
  window: Num;
  bins: Num[];
  binCalls: Num[];
  binWeights: Num[];
}

/**
 * Which parts of the scope come from where: at most one stored query (the covered buckets) and
 * live queries for the rest. A bucket cut by an end of the range is live, unless the range was
 * clamped at that end to the stored spans (no call can start beyond it).
 */
export async function episodeQueries(store: Store, s: EpisodeScope): Promise<Sql[]> {
  const windowNs = BigInt(Math.round(s.windowMs * 1e6));
  const B = CALL_BUCKET_NS;
  const floorB = (t: bigint): bigint => (t / B) * B;
  const ceilB = (t: bigint): bigint => ((t + B - 1n) / B) * B;
  const storedFrom = s.clampedFrom ? floorB(s.fromNs) : ceilB(s.fromNs);
  const end = s.clampedTo ? ceilB(s.toNs) : s.toNs;
  const cov =
    windowNs % B === 0n && storedFrom < end
      ? await callBucketCoverage(store, { fromNs: storedFrom, toNs: end })
      : { splitNs: storedFrom, chunks: [] };
  const storedTo = floorB(cov.splitNs);
  if (storedTo <= storedFrom) return [liveEpisodeWindowsSql(s)];
  const out = [storedEpisodeWindowsSql({ ...s, fromNs: storedFrom, toNs: storedTo }, cov)];
  if (s.fromNs < storedFrom) out.push(liveEpisodeWindowsSql({ ...s, toNs: storedFrom }));
  if (storedTo < s.toNs) out.push(liveEpisodeWindowsSql({ ...s, fromNs: storedTo }));
  return out;
}

/** The (series, window) aggregates of the scope; see the module comment. */
export async function selectEpisodeWindows(
  store: Store,
  scope: EpisodeScope,
): Promise<EpisodeWindowRow[]> {
  const queries = await episodeQueries(store, scope);
  const results = await Promise.all(queries.map((q) => store.query<HistogramRow>(q)));
  const merged = new Map<string, { row: HistogramRow; hist: Map<number, [number, number]> }>();
  for (const r of results.flat()) {
    const key = JSON.stringify([
      r.kind,
      r.service,
      r.host,
      r.parentService,
      r.parentOperation,
      r.operation,
      Number(r.window),
    ]);
    let m = merged.get(key);
    if (!m) merged.set(key, (m = { row: r, hist: new Map() }));
    // JSON numbers of ClickHouse: 64-bit integers come as text, the rest as numbers.
    addFineHistogram(m.hist, {
      bins: r.bins.map(Number),
      calls: r.binCalls.map(Number),
      weights: r.binWeights.map(Number),
    });
  }
  return [...merged.values()].map(({ row: r, hist }) => {
    const w = windowFromFineHistogram(Number(r.window), hist);
    return {
      kind: r.kind,
      service: r.service,
      host: r.host,
      parentService: r.parentService,
      parentOperation: r.parentOperation,
      operation: r.operation,
      window: w.window,
      calls: w.calls,
      weightedCalls: w.weightedCalls,
      p50Ms: w.p50Ms,
      p99Ms: w.p99Ms,
      buckets: [...w.buckets],
      counts: [...w.counts],
    };
  });
}
