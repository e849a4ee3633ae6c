import {
  addFineHistogram,
  mergeSortedHistograms,
  windowFromBins,
  windowFromFineHistogram,
  type SeriesWindow,
} from '@tailscope/analysis';
import { CALL_BUCKET_NS } from '../call-buckets/tables';
import { callBucketCoverage } from '../call-buckets/cache';
import type { Store } from '../engine/client';
import {
  judgedFromNs,
  liveEpisodeWindowsSql,
  storedEpisodeWindowsSql,
  type EpisodeScope,
  type SeriesKind,
} from './sql';
import type { Sql } from '../sql/template';

/**
 * The (series, window) aggregates episodes judge (episodes.ts has the SQL): the stored 10 s
 * buckets of call-buckets-cache.ts for the covered part of the range, live for the rest (the
 * open tail, stale or missing chunks), histograms merged per (series, window). Windows that are
 * no multiple of 10 s are all live (the route never asks for one: episodeWindowSeconds has no
 * 15 s).
 *
 * Episodes are judged over whole 10 s buckets (docs/analysis.md "Windows"): a range that starts
 * inside a bucket is read from that bucket's start (judgedFromNs). Windows are epoch-aligned
 * multiples of 10 s, so this only fills the range's first window further with the calls of its
 * first bucket before the range start; that bucket then comes whole from the stored buckets.
 * Counting only the calls from the range start on cost a live query of the calls chain over the
 * head and its two-minute edge margins: 0.5-0.8 s of "incidents over the last hour" at 10M spans,
 * for a few seconds of calls in a window of 20.
 */

export { judgedFromNs, type EpisodeScope, type SeriesKind } from './sql';

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
 * live queries for the rest. The range starts at the bucket holding its start (judgedFromNs);
 * a bucket cut by its end is live, unless the range was clamped there to the stored spans (no
 * call can start beyond it).
 */
export async function episodeQueries(store: Store, scope: EpisodeScope): Promise<Sql[]> {
  const s = { ...scope, fromNs: judgedFromNs(scope.fromNs, scope.windowMs) };
  const windowNs = BigInt(Math.round(s.windowMs * 1e6));
  const B = CALL_BUCKET_NS;
  const floorB = (t: bigint): bigint => (t / B) * B;
  const ceilB = (t: bigint): bigint => ((t + B - 1n) / B) * B;
  const storedFrom = s.fromNs;
  const end = s.clampedTo ? ceilB(s.toNs) : s.toNs;
  const cov =
    windowNs % B === 0n && storedFrom < end
      ? await callBucketCoverage(store, { fromNs: storedFrom, toNs: end })
      : { splitNs: storedFrom, chunks: [] };
  const storedTo = floorB(cov.splitNs);
  if (storedTo <= storedFrom) return [liveEpisodeWindowsSql(s)];
  const out = [storedEpisodeWindowsSql({ ...s, fromNs: storedFrom, toNs: storedTo }, cov)];
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
  // Rows of one (series, window) from several queries (a window cut by the stored / live
  // split) are merged; a window from one query is read as it is (the common, fast case).
  const groups = new Map<string, HistogramRow[]>();
  for (const r of results.flat()) {
    const key = `${r.kind}\0${r.service}\0${r.host}\0${r.parentService}\0${r.parentOperation}\0${r.operation}\0${String(r.window)}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((rows) => toWindowRow(rows));
}

/**
 * JSON numbers of ClickHouse: 64-bit integers come as text, the rest as numbers. An array's
 * elements share a type, so a column already of numbers is used as it is (no copy per row).
 */
const numbers = (xs: Num[]): number[] =>
  xs.length === 0 || typeof xs[0] === 'number' ? (xs as number[]) : xs.map(Number);
const histogramOf = (r: HistogramRow) => ({
  bins: numbers(r.bins),
  calls: numbers(r.binCalls),
  weights: numbers(r.binWeights),
});

function toWindowRow(rows: readonly HistogramRow[]): EpisodeWindowRow {
  const r = rows[0] as HistogramRow;
  let w: SeriesWindow;
  if (rows.length === 1) w = windowFromBins(Number(r.window), histogramOf(r));
  else {
    const parts = rows.map(histogramOf);
    const merged = mergeSortedHistograms(parts);
    if (merged) w = windowFromBins(Number(r.window), merged);
    else {
      const hist = new Map<number, [number, number]>();
      for (const x of parts) addFineHistogram(hist, x);
      w = windowFromFineHistogram(Number(r.window), hist);
    }
  }
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
}

export { selectRootSeries, type RootSeries } from './roots';
