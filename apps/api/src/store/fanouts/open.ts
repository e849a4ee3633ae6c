import { CALL_BUCKET_NS } from '../call-buckets/tables';
import {
  bucketCount,
  currentBuckets,
  OPEN_INTERVAL_MS,
  openBucketPass,
  type OpenRecord,
} from '../call-buckets/open';
import type { Store } from '../engine/client';
import { storeEdgesSql } from '../edges/stored';
import { join, param, raw, sql } from '../sql/template';
import { TRACES } from '../traces/tables';
import { inWindow, ns } from './sql';
import { storeFanoutsSql } from './stored';
import { CHUNK_NS, CHUNKS_TABLE, EDGES_TABLE, FANOUT_OPEN_TABLE, FANOUTS_TABLE } from './tables';
import { startChunkMaterializer, storedThroughNs, type MaterializerOptions } from './chunks';

/**
 * The stored fan-outs and request edges of the open chunk (the 10-minute chunk still receiving
 * spans, which cache.ts stores whole only once it closed), per 10 s bucket, so a page over a range
 * ending now detects live only the newest few buckets instead of up to ten minutes. Measured on
 * bench:pages (1.2M spans of the preset, 5,000 spans/s of ingest): the open chunk's live part was
 * most of each fan-out, edge and leaf answer.
 *
 * The same scheme as the episode series' open buckets (call-buckets/open.ts, whose signatures
 * and currency test this reuses): a bucket's fan-outs and edges (those whose first call starts
 * in it) depend only on the spans of the traces with a span starting in it, within the edge
 * margin; its signature counts those spans. A bucket is built once settled, recorded with its
 * signature, its window's span count and its extra span copies, and used while current, so an
 * answer equals the all-live one. Rows go to `tailscope_fanouts` and `tailscope_edges` under the
 * open chunk's id and the build's version; the chunk's whole build (cache.ts) later replaces
 * them (it deletes every older version of the chunk) and drops the bucket records.
 */

const B = CALL_BUCKET_NS;

const openOn = (store: Store): boolean =>
  !store.cluster && store.accelerators.fanouts && store.accelerators.openFanouts;

/** How far the stored fan-outs reach (storedThroughNs); null: none stored, or no such tables. */
export function fanoutsStoredThroughNs(store: Store): Promise<bigint | null> {
  if (!openOn(store)) return Promise.resolve(null);
  return storedThroughNs(store, CHUNKS_TABLE, FANOUT_OPEN_TABLE, B);
}

interface FanoutOpenRecord extends OpenRecord {
  /** Extra span copies among the spans starting in the bucket. */
  duplicates: bigint;
}

/** What each open bucket of [fromB, toB) was last stored with. */
async function recordedOpen(
  store: Store,
  fromB: bigint,
  toB: bigint,
): Promise<Map<bigint, FanoutOpenRecord>> {
  if (fromB >= toB) return new Map();
  const rows = await store.query<{ b: string; n: string; w: string; d: string; v: string }>(sql`
    SELECT toString(bucket) AS b, toString(argMax(spans, version)) AS n,
      toString(argMax(windowSpans, version)) AS w, toString(argMax(duplicates, version)) AS d,
      toString(max(version)) AS v
    FROM ${raw(FANOUT_OPEN_TABLE)}
    WHERE bucket >= ${ns(fromB)} AND bucket < ${ns(toB)}
    GROUP BY bucket`);
  return new Map(
    rows.map((r) => [
      BigInt(r.b),
      {
        spans: BigInt(r.n),
        windowSpans: BigInt(r.w),
        duplicates: BigInt(r.d),
        version: BigInt(r.v),
      },
    ]),
  );
}

/** The stored open buckets a range reads after its stored chunks (cache.ts coverage). */
export interface OpenCoverage {
  /** Fan-outs starting before this come from the buckets (from fromB on); from it on, live. */
  splitNs: bigint;
  /** (chunk, version) of the rows of the buckets used. */
  chunks: [string, string][];
  /** Extra span copies among the spans starting in the buckets used. */
  duplicates: bigint;
}

/**
 * The longest run of stored open buckets from bucket `fromB` that are still current, below
 * `toB`. Empty (splitNs = fromB's start) when the table is off or nothing is stored there.
 */
export async function openFanoutCoverage(
  store: Store,
  fromB: bigint,
  toB: bigint,
): Promise<OpenCoverage> {
  const none: OpenCoverage = { splitNs: fromB * B, chunks: [], duplicates: 0n };
  if (!openOn(store) || fromB >= toB) return none;
  // The records first (a few dozen rows): spans are counted only over the recorded run.
  const recorded = await recordedOpen(store, fromB, toB);
  let end = fromB;
  while (end < toB && recorded.has(end)) end++;
  if (end === fromB) return none;
  const { current } = await currentBuckets(store, fromB, end, recorded);
  const pairs = new Map<string, [string, string]>();
  let duplicates = 0n;
  let b = fromB;
  for (; b < end && current(b); b++) {
    const r = recorded.get(b) as FanoutOpenRecord;
    const chunk = ((b * B) / CHUNK_NS).toString();
    pairs.set(`${chunk}/${r.version.toString()}`, [chunk, r.version.toString()]);
    duplicates += r.duplicates;
  }
  return { splitNs: b * B, chunks: [...pairs.values()], duplicates };
}

/**
 * Builds and stores the fan-outs and edges of every settled bucket (ended OPEN_SETTLE_NS before
 * `nowNs`) of the chunks not yet closed whose stored copy is missing or no longer current, and
 * of the chunk before them while it is closed but not stored whole yet (its buckets stay current
 * until the chunk pass stores it). Runs of up to a minute of buckets are built in one query each.
 * Returns how many buckets were (re)built.
 */
export async function materializeOpenFanouts(
  store: Store,
  range: { nowNs: bigint },
): Promise<{ chunks: number }> {
  if (!openOn(store) || store.readOnly) return { chunks: 0 };
  return openBucketPass(
    store,
    range.nowNs,
    CHUNKS_TABLE,
    (fromB, toB) => recordedOpen(store, fromB, toB),
    async ({ run, old, version, sig, window, first, last }) => {
      const v = param(version.toString(), 'UInt64');
      const slice = { fromNs: first * B, toNs: (last + 1n) * B };
      // Rows first, then the records that point readers at them, then the rows of the versions
      // they replace (only those, and only of these buckets' starts).
      await store.command(storeFanoutsSql(slice, version));
      await store.command(storeEdgesSql(slice, version));
      const dup = await store.query<{ b: string; d: string }>(sql`
        SELECT toString(intDiv(toUnixTimestamp64Nano(Timestamp), ${ns(B)})) AS b,
          toString(count() - uniqExact(cityHash64(TraceId, SpanId))) AS d
        FROM ${TRACES} WHERE ${inWindow(slice.fromNs, slice.toNs)} GROUP BY b`);
      const dups = new Map(dup.map((r) => [BigInt(r.b), BigInt(r.d)]));
      const values = run.map(
        (b) =>
          sql`(${ns(b)}, ${bucketCount(sig, b)}, ${bucketCount(window, b)}, ${bucketCount(dups, b)}, ${v})`,
      );
      await store.command(
        sql`INSERT INTO ${raw(FANOUT_OPEN_TABLE)} (bucket, spans, windowSpans, duplicates, version) VALUES ${join(values, ', ')}`,
      );
      if (old.length > 0)
        for (const table of [FANOUTS_TABLE, EDGES_TABLE])
          await store.command(sql`DELETE FROM ${raw(table)}
          WHERE s0 >= ${ns(slice.fromNs)} AND s0 < ${ns(slice.toNs)}
            AND has(arrayMap(x -> toUInt64(x), ${old}), version)`);
    },
  );
}

/**
 * Keeps the open chunk's settled buckets of fan-outs and edges stored while the server runs:
 * every OPEN_INTERVAL_MS (15 s), one pass at a time.
 */
export function startOpenFanoutMaterializer(
  store: Store,
  opts: MaterializerOptions = {},
): { stop: () => Promise<void>; runOnce: () => Promise<number> } {
  return startChunkMaterializer((range) => materializeOpenFanouts(store, range), {
    intervalMs: OPEN_INTERVAL_MS,
    ...opts,
  });
}
