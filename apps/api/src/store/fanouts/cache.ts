import { EDGE_SLACK_NS } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { storeDuplicatesSql, storeEdgesSql } from '../edges/stored';
import {
  CHUNK_NS,
  CHUNKS_TABLE,
  DUPLICATES_TABLE,
  EDGES_TABLE,
  FANOUT_OPEN_TABLE,
  FANOUTS_TABLE,
} from './tables';
import { CALL_BUCKET_NS } from '../call-buckets/tables';
import { openFanoutCoverage } from './open';
import { inWindow, ns, type FanoutScope } from './sql';
import { recordedChunks, startChunkMaterializer, type MaterializerOptions } from './chunks';

export { recordedChunks, startChunkMaterializer, type MaterializerOptions } from './chunks';
import { storeFanoutsSql, type Coverage } from './stored';
import { join, param, raw, sql } from '../sql/template';
import { TRACES } from '../traces/tables';
import { spansPerBucket } from '../traces/span-counts';
import { floorDiv } from '../floor-div';

/**
 * A materialized copy of detected fan-outs, one row per fan-out (table `tailscope_fanouts`), and
 * of request edges (`tailscope_edges`, edges-stored.ts: same chunks and versions), so
 * queries over ranges already detected read ~50 bytes per call of compact arrays instead of
 * pairing CLIENT and SERVER spans again (the join over 10M spans is several CPU-seconds).
 *
 * Detection runs per 10-minute chunk of fan-out start time (the same SQL as the live path, all
 * operations, with host and sharing mode). A chunk is recorded with the number of spans in its
 * window plus the edge margin; a query uses the table only when every chunk it touches is
 * recorded with the span count the store holds now, so spans arriving late make the chunk stale
 * and the query goes live until the chunk is detected again. Only chunks that ended more than
 * the edge margin ago are materialized. Attribute dimensions (`attr:KEY`) and background are not
 * stored: attributes go live, background is matched at query time. Cluster mode (ON CLUSTER) is
 * not cached: queries stay live there.
 */

/** Span counts are taken per bucket of this length, ns (10 s; divides CHUNK_NS and EDGE_SLACK_NS). */
const BUCKET_NS = 10_000_000_000n;

/**
 * The cache is off in cluster mode (queries stay live there) and on a store without its tables
 * (a Collector's table opened read-only). The tables come from MIGRATIONS.
 */
const cacheOn = (store: Store): boolean => !store.cluster && store.accelerators.fanouts;

/** Only a store Tailscope writes to stores fan-outs (read-only: reads only, all live). */
const cacheWritable = (store: Store): boolean => cacheOn(store) && !store.readOnly;

export const chunkOf = (t: bigint): bigint => floorDiv(t, CHUNK_NS);

/** Ranges of more chunks than this are not looked up in the cache (they go live). */
const MAX_CHUNKS = 100_000n;

/** Chunks whose fan-outs can start in [from, to); none when more than MAX_CHUNKS. */
export function chunksOf(fromNs: bigint, toNs: bigint): bigint[] {
  // Counted before listed: a range of ten thousand years once listed every chunk of it.
  if (chunkOf(toNs - 1n) - chunkOf(fromNs) + 1n > MAX_CHUNKS) return [];
  const out: bigint[] = [];
  for (let c = chunkOf(fromNs); c <= chunkOf(toNs - 1n); c++) out.push(c);
  return out;
}

/** Spans now stored in each chunk's window (chunk plus the edge margin on both sides). */
export async function currentCounts(
  store: Store,
  chunks: readonly bigint[],
): Promise<Map<bigint, bigint>> {
  const out = new Map<bigint, bigint>(chunks.map((c) => [c, 0n]));
  if (chunks.length === 0) return out;
  const lo = (chunks[0] as bigint) * CHUNK_NS - EDGE_SLACK_NS;
  const hi = ((chunks[chunks.length - 1] as bigint) + 1n) * CHUNK_NS + EDGE_SLACK_NS;
  for (const [b, n] of await spansPerBucket(store, lo, hi, BUCKET_NS)) {
    // Bucket [t, t + B) lies in chunk c's window [cC - S, (c + 1)C + S) (B divides C and S)
    // for c from ceil((t + B - S - C) / C) to floor((t + S) / C): two or three chunks.
    const t = b * BUCKET_NS;
    const lastC = floorDiv(t + EDGE_SLACK_NS, CHUNK_NS);
    for (
      let c = -floorDiv(-(t + BUCKET_NS - EDGE_SLACK_NS - CHUNK_NS), CHUNK_NS);
      c <= lastC;
      c++
    ) {
      const have = out.get(c);
      if (have !== undefined) out.set(c, have + n);
    }
  }
  return out;
}

export type { Coverage } from './stored';

/**
 * The longest run of chunks from the start of [from, to) that are stored and still match the
 * span counts of the store (chunks stored but stale, or never stored, end the run). Returns
 * splitNs = from when nothing is covered (or the cache is off for this store).
 */
export async function coverage(
  store: Store,
  scope: Pick<FanoutScope, 'fromNs' | 'toNs'>,
): Promise<Coverage> {
  const none: Coverage = { splitNs: scope.fromNs, chunks: [] };
  if (!cacheOn(store)) return none;
  const chunks = chunksOf(scope.fromNs, scope.toNs);
  if (chunks.length === 0 || chunks.length > 100_000) return none;
  const [now, recorded] = await Promise.all([
    currentCounts(store, chunks),
    recordedChunks(store, chunks),
  ]);
  const used: [string, string][] = [];
  let split = scope.fromNs;
  let open: bigint | undefined;
  for (const c of chunks) {
    const r = recorded.get(c);
    if (!r) open = c;
    if (!r || r.spans !== now.get(c)) break;
    used.push([c.toString(), r.version.toString()]);
    split = (c + 1n) * CHUNK_NS;
  }
  let openPart: Coverage['open'];
  if (open !== undefined) {
    // The stored buckets of the first chunk never stored whole (the range may start inside it).
    const fromNs = open * CHUNK_NS > scope.fromNs ? open * CHUNK_NS : scope.fromNs;
    const cov = await openFanoutCoverage(
      store,
      fromNs / CALL_BUCKET_NS,
      scope.toNs / CALL_BUCKET_NS,
    );
    if (cov.chunks.length > 0) {
      used.push(...cov.chunks);
      split = cov.splitNs;
      openPart =
        fromNs % CALL_BUCKET_NS === 0n ? { fromNs, duplicates: cov.duplicates } : { fromNs };
    }
  }
  return {
    splitNs: split < scope.toNs ? split : scope.toNs,
    chunks: used,
    ...(openPart ? { open: openPart } : {}),
  };
}

/** True when every chunk [from, to) touches is stored and still matches the store. */
export async function cacheCovers(
  store: Store,
  scope: Pick<FanoutScope, 'fromNs' | 'toNs'>,
): Promise<boolean> {
  return (await coverage(store, scope)).splitNs >= scope.toNs;
}

/**
 * Detects and stores the fan-outs of every closed chunk in [from, to) that is missing or stale
 * (chunks ending less than the edge margin before `nowNs` are left alone). Contiguous stale
 * chunks are detected in one query. Returns how many chunks were (re)built.
 */
export async function materializeFanouts(
  store: Store,
  range: { fromNs: bigint; toNs: bigint; nowNs: bigint },
  opts: { maxRunSpans?: bigint } = {},
): Promise<{ chunks: number }> {
  if (!cacheWritable(store)) return { chunks: 0 };
  const maxSpans = opts.maxRunSpans ?? MAX_RUN_SPANS;
  const closed = chunksOf(range.fromNs, range.toNs).filter(
    (c) => (c + 1n) * CHUNK_NS + EDGE_SLACK_NS <= range.nowNs,
  );
  const [now, recorded] = await Promise.all([
    currentCounts(store, closed),
    recordedChunks(store, closed),
  ]);
  const stale = closed.filter((c) => recorded.get(c)?.spans !== now.get(c));
  let built = 0;
  for (const run of runs(stale, now, maxSpans)) {
    const first = run[0] as bigint;
    const last = run[run.length - 1] as bigint;
    // New rows under a new version first, then the chunk records that point readers at them,
    // then the old versions go: a reader never sees a chunk half rebuilt.
    const version = nextVersion(
      range.nowNs,
      run.map((c) => recorded.get(c)?.version ?? 0n),
    );
    const v = param(version.toString(), 'UInt64');
    const chunkRange = { fromNs: first * CHUNK_NS, toNs: (last + 1n) * CHUNK_NS };
    const spans = run.reduce((n, c) => n + (now.get(c) ?? 0n), 0n);
    for (const slice of slices(chunkRange, spans, maxSpans)) {
      await store.command(storeFanoutsSql(slice, version));
      await store.command(storeEdgesSql(slice, version));
    }
    await store.command(storeDuplicatesSql(chunkRange, version));
    const values = run.map(
      (c) => sql`(${ns(c)}, ${param((now.get(c) ?? 0n).toString(), 'UInt64')}, ${v})`,
    );
    await store.command(
      sql`INSERT INTO ${raw(CHUNKS_TABLE)} (chunk, spans, version) VALUES ${join(values, ', ')}`,
    );
    for (const table of [FANOUTS_TABLE, EDGES_TABLE, DUPLICATES_TABLE])
      await store.command(sql`DELETE FROM ${raw(table)}
      WHERE chunk >= ${ns(first)} AND chunk <= ${ns(last)} AND version < ${v}`);
    // The open-bucket records of these chunks are never read again (a stored chunk wins).
    if (store.accelerators.openFanouts)
      await store.command(sql`DELETE FROM ${raw(FANOUT_OPEN_TABLE)}
      WHERE bucket >= ${ns((first * CHUNK_NS) / CALL_BUCKET_NS)} AND bucket < ${ns(((last + 1n) * CHUNK_NS) / CALL_BUCKET_NS)}`);
    built += run.length;
  }
  return { chunks: built };
}

/**
 * A range cut into equal time slices of about MAX_RUN_SPANS spans each (one when it holds
 * fewer). Both detections keep what *starts* in their range (reading the edge margin around
 * it), so slices of one chunk store exactly what the whole chunk would.
 */
export function slices(
  range: { fromNs: bigint; toNs: bigint },
  spans: bigint,
  maxSpans: bigint = MAX_RUN_SPANS,
): { fromNs: bigint; toNs: bigint }[] {
  const width = range.toNs - range.fromNs;
  const k = spans > maxSpans ? (spans + maxSpans - 1n) / maxSpans : 1n;
  const n = k < width ? k : 1n;
  return Array.from({ length: Number(n) }, (_, i) => ({
    fromNs: range.fromNs + (width * BigInt(i)) / n,
    toNs: range.fromNs + (width * BigInt(i + 1)) / n,
  }));
}

/** A version above every one recorded (normally the time of the build, ns). */
export function nextVersion(nowNs: bigint, previous: readonly bigint[]): bigint {
  const top = previous.reduce((m, v) => (v > m ? v : m), 0n);
  return nowNs > top ? nowNs : top + 1n;
}

/**
 * Spans one detection query may read at most (a run of chunks is cut before it passes this, a
 * bigger chunk is built in time slices): the calls definition joins every span of the window
 * with its parent and answers. Measured against the 2 GiB memory budget: 10M spans in one query
 * failed; slices of 1.5M failed on width-100 fan-outs at 8k spans/s (each slice also reads the
 * 60 s edge margin on both sides); 500k built all 10M of them (95 s for 4 chunks).
 */
export const MAX_RUN_SPANS = 500_000n;

/**
 * Consecutive chunk ids grouped into runs of at most 36 (6 hours per detection query) and, when
 * `spans` (per chunk) is given, of at most MAX_RUN_SPANS spans.
 */
export function runs(
  chunks: readonly bigint[],
  spans?: ReadonlyMap<bigint, bigint>,
  maxSpans: bigint = MAX_RUN_SPANS,
): bigint[][] {
  const out: bigint[][] = [];
  let inRun = 0n;
  for (const c of chunks) {
    const cur = out[out.length - 1];
    const n = spans?.get(c) ?? 0n;
    if (
      cur &&
      (cur[cur.length - 1] as bigint) + 1n === c &&
      cur.length < 36 &&
      inRun + n <= maxSpans
    ) {
      cur.push(c);
      inRun += n;
    } else {
      out.push([c]);
      inRun = n;
    }
  }
  return out;
}

/**
 * Keeps `tailscope_fanouts` current while the server runs: every interval, materializes the
 * closed chunks of the last `lookbackMs` that are missing or stale.
 */
export function startFanoutMaterializer(
  store: Store,
  opts: MaterializerOptions = {},
): { stop: () => Promise<void>; runOnce: () => Promise<number> } {
  return startChunkMaterializer((range) => materializeFanouts(store, range), {
    ...opts,
    history: (beforeNs) =>
      cacheWritable(store) ? unrecordedHistory(store, beforeNs, CHUNKS_TABLE) : Promise.resolve([]),
  });
}

/** Chunks listed by one history query at most (the newest first). */
const HISTORY_LIST = 10_000;

/**
 * Chunks ending before `beforeNs` that hold spans and have no record in `table`, newest first
 * (spans before 1970 are left out: a chunk id is floor(t / chunk) only for t >= 0 here).
 */
export async function unrecordedHistory(
  store: Store,
  beforeNs: bigint,
  table: string,
): Promise<bigint[]> {
  const end = chunkOf(beforeNs) * CHUNK_NS;
  if (end <= 0n) return [];
  const rows = await store.query<{ c: string }>(sql`
    SELECT toString(c) AS c FROM (
      SELECT DISTINCT intDiv(toUnixTimestamp64Nano(Timestamp), ${ns(CHUNK_NS)}) AS c
      FROM ${TRACES} WHERE ${inWindow(0n, end)}
    )
    WHERE c NOT IN (SELECT chunk FROM ${raw(table)})
    ORDER BY c DESC
    LIMIT ${param(HISTORY_LIST, 'UInt32')}`);
  return rows.map((r) => BigInt(r.c));
}
