import { EDGE_SLACK_NS } from '@tailscope/analysis';
import {
  CALL_BUCKETS_TABLE,
  CALL_BUCKET_CHUNKS_TABLE,
  CALL_BUCKET_NS,
  CALL_BUCKET_OPEN_TABLE,
  SPLIT_BUCKETS_TABLE,
} from './tables';
import type { Store } from '../engine/client';
import { storeCallBucketsSql } from '../episodes/sql';
import { storeSpanSplitSql } from '../episodes/split-sql';
import {
  recordedChunks,
  startChunkMaterializer,
  storedThroughNs,
  type MaterializerOptions,
} from '../fanouts/chunks';
import { CHUNK_NS } from '../fanouts/tables';
import { inWindow, ns } from '../fanouts/sql';
import { join, param, raw, sql, type Sql } from '../sql/template';
import { TRACES } from '../traces/tables';
import { spansPerBucket } from '../traces/span-counts';

/**
 * The stored episode series of the open chunk (the 10-minute chunk still receiving spans, which
 * call-buckets-cache.ts leaves alone until it closes), per 10 s bucket: a range ending now reads
 * them and computes live only the newest few buckets.
 *
 * Calls only ever relate spans of one trace (calls-sql.ts joins on hashes of trace and span id),
 * so the calls starting in bucket b depend only on the spans of T_b, the traces with a span
 * starting in b, that lie within b plus the edge margin. A bucket's signature is the number of
 * those spans: count of spans in [b - margin, b + 10 s + margin) whose trace is in T_b. It stays
 * fixed while spans of *new* traces arrive (the steady ingest of a running server), and changes
 * when a span lands that could change b's calls (a late span of one of its traces, or any span
 * starting in b). A bucket is built once it ended OPEN_SETTLE_NS ago and recorded with its
 * signature and the count of all spans in its window; a request uses it only while it is
 * current (currentBuckets: the window unchanged, or else the signature unchanged), so the answer
 * equals the all-live one; a late span sends the bucket (and every later one) live until the
 * next pass rebuilds it. Known limit, shared with chunk rebuilds: a request that read the
 * records an instant before a rebuild's delete of the rows they point at would miss them.
 */

/** A bucket is built once it ended this long ago (spans are exported in batches, ~5 s). */
export const OPEN_SETTLE_NS = 10_000_000_000n;

const openOn = (store: Store): boolean =>
  !store.cluster && store.accelerators.callBuckets && store.accelerators.openCallBuckets;

const B = CALL_BUCKET_NS;
const S = EDGE_SLACK_NS;

/** How far the stored episode series reach (storedThroughNs); null: none, or no such tables. */
export function callBucketsStoredThroughNs(store: Store): Promise<bigint | null> {
  if (!openOn(store)) return Promise.resolve(null);
  return storedThroughNs(store, CALL_BUCKET_CHUNKS_TABLE, CALL_BUCKET_OPEN_TABLE, B);
}

/** Signatures (see the module comment) of the buckets [fromB, toB), by bucket; absent = 0. */
export function openSignaturesSql(fromB: bigint, toB: bigint): Sql {
  return sql`
SELECT toString(t.b) AS b, toString(count()) AS n
FROM (
  SELECT cityHash64(TraceId) AS tid, toUnixTimestamp64Nano(Timestamp) AS ts
  FROM ${TRACES} WHERE ${inWindow(fromB * B - S, toB * B + S)}
) AS s
INNER JOIN (
  SELECT DISTINCT cityHash64(TraceId) AS tid, intDiv(toUnixTimestamp64Nano(Timestamp), ${ns(B)}) AS b
  FROM ${TRACES} WHERE ${inWindow(fromB * B, toB * B)}
) AS t ON s.tid = t.tid
WHERE s.ts >= t.b * ${ns(B)} - ${ns(S)} AND s.ts < (t.b + 1) * ${ns(B)} + ${ns(S)}
GROUP BY t.b`;
}

export async function signatures(
  store: Store,
  fromB: bigint,
  toB: bigint,
): Promise<Map<bigint, bigint>> {
  if (fromB >= toB) return new Map();
  const rows = await store.query<{ b: string; n: string }>(openSignaturesSql(fromB, toB));
  return new Map(rows.map((r) => [BigInt(r.b), BigInt(r.n)]));
}

/** Spans in each bucket's window [b - margin, b + 10 s + margin), for the buckets [fromB, toB). */
export async function windowCounts(
  store: Store,
  fromB: bigint,
  toB: bigint,
): Promise<Map<bigint, bigint>> {
  const out = new Map<bigint, bigint>();
  if (fromB >= toB) return out;
  const per = await spansPerBucket(store, fromB * B - S, toB * B + S, B);
  const reach = S / B;
  for (let b = fromB; b < toB; b++) {
    let n = 0n;
    for (let x = b - reach; x <= b + reach; x++) n += per.get(x) ?? 0n;
    out.set(b, n);
  }
  return out;
}

export interface OpenRecord {
  /** The signature (module comment). */
  spans: bigint;
  /** All spans in the bucket's window when it was built. */
  windowSpans: bigint;
  version: bigint;
}

/** What each open bucket of [fromB, toB) was last stored with. */
async function recordedBuckets(
  store: Store,
  fromB: bigint,
  toB: bigint,
): Promise<Map<bigint, OpenRecord>> {
  const rows = await store.query<{ b: string; n: string; w: string; v: string }>(sql`
    SELECT toString(bucket) AS b, toString(argMax(spans, version)) AS n,
      toString(argMax(windowSpans, version)) AS w, toString(max(version)) AS v
    FROM ${raw(CALL_BUCKET_OPEN_TABLE)}
    WHERE bucket >= ${ns(fromB)} AND bucket < ${ns(toB)}
    GROUP BY bucket`);
  return new Map(
    rows.map((r) => [
      BigInt(r.b),
      { spans: BigInt(r.n), windowSpans: BigInt(r.w), version: BigInt(r.v) },
    ]),
  );
}

/**
 * The buckets [fromB, toB) now: all spans in each one's window, and the signature of those from
 * the first one whose window gained a span since it was recorded (or was never recorded). A
 * bucket whose window holds exactly the spans it was built from is current without a signature
 * (spans are only added): only the newest minute or so, which the steady ingest reaches, pays
 * for the join.
 */
export async function currentBuckets(
  store: Store,
  fromB: bigint,
  toB: bigint,
  recorded: ReadonlyMap<bigint, OpenRecord>,
): Promise<{
  window: Map<bigint, bigint>;
  sig: Map<bigint, bigint>;
  current: (b: bigint) => boolean;
}> {
  const window = await windowCounts(store, fromB, toB);
  let m = fromB;
  while (m < toB && recorded.get(m)?.windowSpans === window.get(m)) m++;
  const sig = await signatures(store, m, toB);
  const current = (b: bigint): boolean => {
    const r = recorded.get(b);
    if (!r) return false;
    return b < m ? true : r.spans === (sig.get(b) ?? 0n);
  };
  return { window, sig, current };
}

/**
 * The longest run of stored open buckets from bucket `fromB` (a chunk start) that are still
 * current (currentBuckets), below `toB`: [bucket, version] pairs and the end of the run, ns.
 */
export async function openBucketCoverage(
  store: Store,
  fromB: bigint,
  toB: bigint,
): Promise<{ splitNs: bigint; buckets: [string, string][] }> {
  const buckets: [string, string][] = [];
  if (!openOn(store) || fromB >= toB) return { splitNs: fromB * B, buckets };
  // The records first (a few dozen rows): the spans are read only over the run of recorded
  // buckets, so a long range with no open records costs nothing here.
  const recorded = await recordedBuckets(store, fromB, toB);
  let end = fromB;
  while (end < toB && recorded.has(end)) end++;
  if (end === fromB) return { splitNs: fromB * B, buckets };
  const { current } = await currentBuckets(store, fromB, end, recorded);
  let b = fromB;
  for (; b < end && current(b); b++)
    buckets.push([b.toString(), (recorded.get(b) as OpenRecord).version.toString()]);
  return { splitNs: b * B, buckets };
}

/** One run of stale open buckets to build (openBucketPass). */
export interface OpenRun {
  /** Its buckets, consecutive. */
  run: bigint[];
  first: bigint;
  last: bigint;
  /** The versions of the rows it replaces (recorded for some of its buckets). */
  old: string[];
  /** The version to store it under (above every one it replaces). */
  version: bigint;
  /** The buckets' signatures and window counts now (currentBuckets), to record. */
  sig: ReadonlyMap<bigint, bigint>;
  window: ReadonlyMap<bigint, bigint>;
}

/**
 * One pass over the settled buckets (ended OPEN_SETTLE_NS before `nowNs`) of the chunks not yet
 * closed, and of the chunk before them while it is closed but not yet stored whole in
 * `chunksTable` (its pass runs every minute) and this table stored buckets of it while it was
 * open, so its last buckets stay current in between: every bucket whose stored copy is missing
 * or no longer current goes to `build`, contiguous ones together (bucketRuns). Returns how many
 * buckets were (re)built. Shared by the episode series and the fan-outs (fanouts/open.ts).
 */
export async function openBucketPass(
  store: Store,
  nowNs: bigint,
  chunksTable: string,
  recordsOf: (fromB: bigint, toB: bigint) => Promise<ReadonlyMap<bigint, OpenRecord>>,
  build: (r: OpenRun) => Promise<void>,
): Promise<{ chunks: number }> {
  const open = (nowNs - S) / CHUNK_NS;
  const [before, earlier] = await Promise.all([
    recordedChunks(store, [open - 1n], chunksTable),
    recordsOf(((open - 1n) * CHUNK_NS) / B, (open * CHUNK_NS) / B),
  ]);
  const firstOpen = !before.has(open - 1n) && earlier.size > 0 ? open - 1n : open;
  const fromB = (firstOpen * CHUNK_NS) / B;
  const toB = (nowNs - OPEN_SETTLE_NS) / B;
  if (toB <= fromB) return { chunks: 0 };
  const recorded = await recordsOf(fromB, toB);
  const { window, sig, current } = await currentBuckets(store, fromB, toB, recorded);
  const stale: bigint[] = [];
  for (let b = fromB; b < toB; b++) if (!current(b)) stale.push(b);
  let built = 0;
  for (const run of bucketRuns(stale)) {
    const old = run.flatMap((b) => {
      const r = recorded.get(b);
      return r ? [r.version.toString()] : [];
    });
    const top = old.reduce((m, v) => (BigInt(v) > m ? BigInt(v) : m), 0n);
    await build({
      run,
      first: run[0] as bigint,
      last: run[run.length - 1] as bigint,
      old,
      version: nowNs > top ? nowNs : top + 1n,
      sig,
      window,
    });
    built += run.length;
  }
  return { chunks: built };
}

/** A count of a bucket as a UInt64 parameter (0 when absent). */
export const bucketCount = (m: ReadonlyMap<bigint, bigint>, b: bigint): ReturnType<typeof param> =>
  param((m.get(b) ?? 0n).toString(), 'UInt64');

/**
 * Builds and stores the episode series of every settled bucket of the open chunks whose stored
 * copy is missing or no longer matches its signature (openBucketPass; call-buckets-cache.ts
 * builds closed chunks whole). Returns how many buckets were (re)built.
 */
export async function materializeOpenBuckets(
  store: Store,
  range: { nowNs: bigint },
): Promise<{ chunks: number }> {
  if (!openOn(store) || store.readOnly) return { chunks: 0 };
  return openBucketPass(
    store,
    range.nowNs,
    CALL_BUCKET_CHUNKS_TABLE,
    (fromB, toB) => recordedBuckets(store, fromB, toB),
    async ({ run, first, last, old, version, sig, window }) => {
      const v = param(version.toString(), 'UInt64');
      // Rows first, then the records that point readers at them, then the rows of the versions
      // this replaces (only those: a closed chunk's rows, built meanwhile, are never touched).
      await store.command(
        storeCallBucketsSql({ fromNs: first * B, toNs: (last + 1n) * B }, version),
      );
      await store.command(storeSpanSplitSql({ fromNs: first * B, toNs: (last + 1n) * B }, version));
      const values = run.map(
        (b) => sql`(${ns(b)}, ${bucketCount(sig, b)}, ${bucketCount(window, b)}, ${v})`,
      );
      await store.command(
        sql`INSERT INTO ${raw(CALL_BUCKET_OPEN_TABLE)} (bucket, spans, windowSpans, version) VALUES ${join(values, ', ')}`,
      );
      if (old.length > 0)
        for (const table of [CALL_BUCKETS_TABLE, SPLIT_BUCKETS_TABLE])
          await store.command(sql`DELETE FROM ${raw(table)}
      WHERE bucket >= ${ns(first)} AND bucket <= ${ns(last)}
        AND has(arrayMap(x -> toUInt64(x), ${old}), version)`);
    },
  );
}

/**
 * Buckets of one build query at most: a minute of the open chunk. The engine runs one query at
 * a time, so a trace read or search waits for the build running (issue 25). Seen in `tailscope
 * demo` on a 2-core machine at load average ~20 (demo.int.test.ts): a run of up to 60 buckets
 * built in one query reached the 30 s budget ("storing open episode series failed"), failed,
 * and was tried again every pass, holding the engine each time. A minute's run is stored on its
 * own, so a pass makes progress and each wait is short.
 */
export const OPEN_RUN_BUCKETS = 6;

/** Consecutive buckets grouped into runs of at most OPEN_RUN_BUCKETS. */
export function bucketRuns(buckets: readonly bigint[]): bigint[][] {
  const out: bigint[][] = [];
  for (const b of buckets) {
    const cur = out[out.length - 1];
    if (cur && (cur[cur.length - 1] as bigint) + 1n === b && cur.length < OPEN_RUN_BUCKETS)
      cur.push(b);
    else out.push([b]);
  }
  return out;
}

/** How often the open chunk's settled buckets are looked at, ms (serve.ts). */
export const OPEN_INTERVAL_MS = 15_000;

/**
 * Keeps the open chunk's settled buckets stored while the server runs: every OPEN_INTERVAL_MS,
 * one pass at a time (startChunkMaterializer), so a range ending now computes live only the
 * buckets of the last ~25 s (settle delay plus interval) instead of the whole open chunk.
 */
export function startOpenBucketMaterializer(
  store: Store,
  opts: MaterializerOptions = {},
): { stop: () => Promise<void>; runOnce: () => Promise<number> } {
  return startChunkMaterializer((range) => materializeOpenBuckets(store, range), {
    intervalMs: OPEN_INTERVAL_MS,
    ...opts,
  });
}
