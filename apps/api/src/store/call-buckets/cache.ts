import { EDGE_SLACK_NS } from '@tailscope/analysis';
import { openBucketCoverage } from './open';
import {
  CALL_BUCKETS_TABLE,
  CALL_BUCKET_CHUNKS_TABLE,
  CALL_BUCKET_NS,
  CALL_BUCKET_OPEN_TABLE,
  SPLIT_BUCKETS_TABLE,
} from './tables';
import type { Store } from '../engine/client';
import { currentWork, type Work } from '../engine/admission';
import { storeCallBucketsSql } from '../episodes/sql';
import { storeSpanSplitSql } from '../episodes/split-sql';
import {
  chunksOf,
  currentCounts,
  MAX_RUN_SPANS,
  nextVersion,
  recordedChunks,
  runs,
  slices,
  startChunkMaterializer,
  unrecordedHistory,
  type MaterializerOptions,
} from '../fanouts/cache';
import type { Coverage } from '../fanouts/stored';
import { CHUNK_NS } from '../fanouts/tables';
import { ns } from '../fanouts/sql';
import { join, param, raw, sql } from '../sql/template';

/**
 * Keeps `tailscope_call_buckets` (the episode series per 10 s bucket) current, the way stored
 * fan-outs are kept (fanouts-cache.ts): per closed 10-minute chunk of call start, built once from
 * the same SQL as the live path and recorded with the number of spans in its window plus the
 * edge margin; a query uses a chunk only while the store still holds that many spans there, so
 * late spans send the chunk back to live until it is built again. Off in cluster mode, and on a
 * store without the tables (a Collector's table opened read-only); read-only stores read what is
 * there and never write. Episodes then answer live, slower.
 */

const bucketsOn = (store: Store): boolean => !store.cluster && store.accelerators.callBuckets;

/** Stored coverage of a range: whole chunks, then open buckets (call-buckets-open.ts). */
export interface CallBucketCoverage extends Coverage {
  /** [bucket, version] of open buckets read after the chunks (none when a chunk run ended). */
  buckets: [string, string][];
}

/**
 * The chunks' span counts (currentCounts), each read once per request: an incidents answer
 * checks its episodes' chunks, then its callee episodes' span split over those chunks and their
 * baselines before them (episodes/spans.ts), and each count scans the spans' start times (~0.2 s
 * an hour at 10M spans). Within one request a count is as current as the request's first look
 * at it, as if both checks had run at that instant; outside a request (materializers), always
 * read.
 */
const countsOfWork = new WeakMap<Work, { store: Store; counts: Map<bigint, bigint> }>();

async function requestCounts(
  store: Store,
  chunks: readonly bigint[],
): Promise<Map<bigint, bigint>> {
  const work = currentWork();
  if (!work) return currentCounts(store, chunks);
  let memo = countsOfWork.get(work);
  if (memo?.store !== store) countsOfWork.set(work, (memo = { store, counts: new Map() }));
  const missing = chunks.filter((c) => !memo.counts.has(c));
  if (missing.length > 0)
    for (const [c, n] of await currentCounts(store, missing)) memo.counts.set(c, n);
  return new Map(chunks.map((c) => [c, memo.counts.get(c) ?? 0n]));
}

/**
 * The longest run of chunks from the start of [from, to) that are stored and still match the
 * store's span counts, continued by the stored buckets of the first chunk never stored whole
 * (the open chunk) while they match their signatures; splitNs = from when none (or the table is
 * off for this store).
 */
export async function callBucketCoverage(
  store: Store,
  scope: { fromNs: bigint; toNs: bigint },
): Promise<CallBucketCoverage> {
  const none: CallBucketCoverage = { splitNs: scope.fromNs, chunks: [], buckets: [] };
  if (!bucketsOn(store) || scope.fromNs >= scope.toNs) return none;
  const chunks = chunksOf(scope.fromNs, scope.toNs);
  if (chunks.length === 0) return none;
  const [now, recorded] = await Promise.all([
    requestCounts(store, chunks),
    recordedChunks(store, chunks, CALL_BUCKET_CHUNKS_TABLE),
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
  let buckets: [string, string][] = [];
  if (open !== undefined) {
    // Buckets of the range from the first one not stored whole (the range may start inside it).
    const fromB =
      (open * CHUNK_NS > scope.fromNs ? open * CHUNK_NS : scope.fromNs) / CALL_BUCKET_NS;
    const toB = scope.toNs / CALL_BUCKET_NS;
    const cov = await openBucketCoverage(store, fromB, toB);
    if (cov.buckets.length > 0) {
      buckets = cov.buckets;
      split = cov.splitNs;
    }
  }
  return { splitNs: split < scope.toNs ? split : scope.toNs, chunks: used, buckets };
}

/**
 * Builds and stores the series of every closed chunk in [from, to) that is missing or stale
 * (chunks ending less than the edge margin before `nowNs` are left alone). Contiguous stale
 * chunks are built in one query. Returns how many chunks were (re)built.
 */
export async function materializeCallBuckets(
  store: Store,
  range: { fromNs: bigint; toNs: bigint; nowNs: bigint },
  opts: { spansPerBuild?: bigint } = {},
): Promise<{ chunks: number }> {
  if (!bucketsOn(store) || store.readOnly) return { chunks: 0 };
  const closed = chunksOf(range.fromNs, range.toNs).filter(
    (c) => (c + 1n) * CHUNK_NS + EDGE_SLACK_NS <= range.nowNs,
  );
  const [now, recorded] = await Promise.all([
    currentCounts(store, closed),
    recordedChunks(store, closed, CALL_BUCKET_CHUNKS_TABLE),
  ]);
  const stale = closed.filter((c) => recorded.get(c)?.spans !== now.get(c));
  let built = 0;
  // One chunk per build query: the calls chain of a busy half hour (2 million spans at the
  // 10M-span bench's rate) ran past the 30 s query budget; one chunk plus its margins did not.
  for (const run of runs(stale).flatMap((r) => splitRun(r, 1))) {
    const first = run[0] as bigint;
    const last = run[run.length - 1] as bigint;
    // Rows under a new version, then the records pointing readers at them, then the old
    // versions go: a reader never sees a chunk half rebuilt.
    const version = nextVersion(
      range.nowNs,
      run.map((c) => recorded.get(c)?.version ?? 0n),
    );
    const v = param(version.toString(), 'UInt64');
    // In parts of whole buckets when the chunk is dense: a call (a server span's split) belongs
    // to the bucket of its start and its spans are read with the edge margins, so parts store
    // the same rows.
    for (const part of buildParts(first, last, now, opts.spansPerBuild ?? MAX_RUN_SPANS)) {
      await store.command(storeCallBucketsSql(part, version));
      await store.command(storeSpanSplitSql(part, version));
    }
    const values = run.map(
      (c) => sql`(${ns(c)}, ${param((now.get(c) ?? 0n).toString(), 'UInt64')}, ${v})`,
    );
    await store.command(
      sql`INSERT INTO ${raw(CALL_BUCKET_CHUNKS_TABLE)} (chunk, spans, version) VALUES ${join(values, ', ')}`,
    );
    for (const table of [CALL_BUCKETS_TABLE, SPLIT_BUCKETS_TABLE])
      await store.command(sql`DELETE FROM ${raw(table)}
      WHERE chunk >= ${ns(first)} AND chunk <= ${ns(last)} AND version < ${v}`);
    // The open-bucket records of these chunks are never read again (a stored chunk wins).
    if (store.accelerators.openCallBuckets)
      await store.command(sql`DELETE FROM ${raw(CALL_BUCKET_OPEN_TABLE)}
      WHERE bucket >= ${ns((first * CHUNK_NS) / CALL_BUCKET_NS)} AND bucket < ${ns(((last + 1n) * CHUNK_NS) / CALL_BUCKET_NS)}`);
    built += run.length;
  }
  return { chunks: built };
}

/**
 * [from, to) of chunks first..last in time slices of about `most` spans (fanouts/cache.ts
 * slices, MAX_RUN_SPANS), their ends moved to whole 10 s buckets so each bucket's rows come
 * from one slice. The calls chain of a 10-minute chunk of bigtable-multiget at 10,000 spans/s
 * (6M spans) needed more than the 2 GiB query memory budget in one query, so its episodes were
 * never stored and every answer over it ran live (bench:pages at 10M spans).
 */
function buildParts(
  first: bigint,
  last: bigint,
  spansOf: ReadonlyMap<bigint, bigint>,
  most: bigint,
): { fromNs: bigint; toNs: bigint }[] {
  let spans = 0n;
  for (let c = first; c <= last; c++) spans += spansOf.get(c) ?? 0n;
  const range = { fromNs: first * CHUNK_NS, toNs: (last + 1n) * CHUNK_NS };
  const ends = slices(range, spans, most).map((x) => (x.toNs / CALL_BUCKET_NS) * CALL_BUCKET_NS);
  const out: { fromNs: bigint; toNs: bigint }[] = [];
  let from = range.fromNs;
  for (const to of ends)
    if (to > from) {
      out.push({ fromNs: from, toNs: to });
      from = to;
    }
  return out;
}

function splitRun(run: bigint[], most: number): bigint[][] {
  const out: bigint[][] = [];
  for (let i = 0; i < run.length; i += most) out.push(run.slice(i, i + most));
  return out;
}

/** Keeps `tailscope_call_buckets` current while the server runs (see startChunkMaterializer). */
export function startCallBucketMaterializer(
  store: Store,
  opts: MaterializerOptions = {},
): { stop: () => Promise<void>; runOnce: () => Promise<number> } {
  return startChunkMaterializer((range) => materializeCallBuckets(store, range), {
    ...opts,
    history: (beforeNs) =>
      bucketsOn(store) && !store.readOnly
        ? unrecordedHistory(store, beforeNs, CALL_BUCKET_CHUNKS_TABLE)
        : Promise.resolve([]),
  });
}
