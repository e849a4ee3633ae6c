import type { Store } from '../engine/client';
import { raw, sql } from '../sql/template';
import { ns } from './sql';
import { CHUNK_NS, CHUNKS_TABLE } from './tables';

/**
 * What every stored table of chunks shares (cache.ts, call-buckets/, open.ts): the records of
 * stored chunks, and the timer that keeps a table of closed chunks current.
 */

/** The span count and version each chunk was last stored with (in `table`, chunk records). */
export async function recordedChunks(
  store: Store,
  chunks: readonly bigint[],
  table: string = CHUNKS_TABLE,
): Promise<Map<bigint, { spans: bigint; version: bigint }>> {
  if (chunks.length === 0) return new Map();
  const rows = await store.query<{ c: string; n: string; v: string }>(sql`
    SELECT toString(chunk) AS c, toString(argMax(spans, version)) AS n, toString(max(version)) AS v
    FROM ${raw(table)}
    WHERE chunk >= ${ns(chunks[0] as bigint)} AND chunk <= ${ns(chunks[chunks.length - 1] as bigint)}
    GROUP BY chunk`);
  return new Map(rows.map((r) => [BigInt(r.c), { spans: BigInt(r.n), version: BigInt(r.v) }]));
}

/**
 * How far a stored table pair reaches: the end of its newest chunk stored whole (`chunksTable`)
 * or open bucket stored (`openTable`, buckets of `bucketNs`), ns; null when neither holds a row.
 * Two reads of the tables' sort keys (a few dozen rows each).
 */
export async function storedThroughNs(
  store: Store,
  chunksTable: string,
  openTable: string,
  bucketNs: bigint,
): Promise<bigint | null> {
  const rows = await store.query<{ c: string; b: string }>(sql`
    SELECT ifNull((SELECT toString(maxOrNull(chunk)) FROM ${raw(chunksTable)}), '') AS c,
      ifNull((SELECT toString(maxOrNull(bucket)) FROM ${raw(openTable)}), '') AS b`);
  const r = rows[0];
  const ends = [
    r?.c ? (BigInt(r.c) + 1n) * CHUNK_NS : null,
    r?.b ? (BigInt(r.b) + 1n) * bucketNs : null,
  ].filter((v): v is bigint => v !== null);
  return ends.length === 0 ? null : ends.reduce((a, b) => (a > b ? a : b));
}

export interface MaterializerOptions {
  /** How often to look for closed chunks, ms (default 60 s). */
  intervalMs?: number;
  /** How far back each pass looks, ms (default 6 h): older chunks are built once, then kept. */
  lookbackMs?: number;
  /** Called with errors of a pass (the next pass retries). */
  onError?: (err: unknown) => void;
  /**
   * Wall time a pass may spend after the recent chunks on older chunks that hold spans and were
   * never stored (default 20 s; 0: none). Spans loaded from the past (a preset, a backfill, a
   * table a Collector wrote before) are otherwise never stored, and every page over them
   * detects them live: 3-7 s per answer over 1.2M spans of the preset on 2 quiet cores, against
   * 0.3-0.6 s once stored.
   */
  historyMs?: number;
  /** The clock, epoch ms (tests pass their own). */
  now?: () => number;
  /**
   * True while a person waits on an analysis (the server's analysis gate): a timer pass then
   * waits for the next tick, MAX_YIELDS ticks in a row at most. The engine takes one query at a
   * time and a pass's queries go before any analysis query waiting (turns.ts), so a pass that
   * fell inside a page load added its 0.2-0.5 s to that page (bench:pages, 2 cores); answers
   * over a settled range do not need the bucket it would store.
   */
  yieldTo?: () => boolean;
}

/** Timer ticks in a row a pass gives way to analyses at most (each then runs). */
export const MAX_YIELDS = 2;

/** A history list is not taken again sooner than this after the last one ran out, ms. */
const HISTORY_RELIST_MS = 10 * 60_000;

/**
 * Runs `materialize` over the last `lookbackMs` every interval (a stored table of closed
 * chunks kept current). One pass at a time; the timer does not keep the process alive.
 * `stop()` waits for a pass in progress.
 */
export function startChunkMaterializer(
  materialize: (range: { fromNs: bigint; toNs: bigint; nowNs: bigint }) => Promise<{
    chunks: number;
  }>,
  opts: MaterializerOptions & {
    /** Older chunks to store after the recent ones, newest first (unrecordedHistory). */
    history?: (beforeNs: bigint) => Promise<bigint[]>;
  } = {},
): { stop: () => Promise<void>; runOnce: () => Promise<number> } {
  const interval = opts.intervalMs ?? 60_000;
  const lookback = BigInt(Math.round(opts.lookbackMs ?? 6 * 3_600_000)) * 1_000_000n;
  const historyMs = opts.historyMs ?? 20_000;
  const clock = opts.now ?? (() => Date.now());
  let running: Promise<number> | null = null;
  let stopped = false;
  // The older chunks still to store, and when the last list ran out.
  let backlog: bigint[] = [];
  let listedAt = -Infinity;
  const older = async (nowNs: bigint): Promise<number> => {
    if (!opts.history || historyMs <= 0) return 0;
    const started = performance.now();
    if (backlog.length === 0 && clock() - listedAt >= HISTORY_RELIST_MS) {
      backlog = await opts.history(nowNs - lookback);
      listedAt = backlog.length === 0 ? clock() : -Infinity;
    }
    let built = 0;
    while (backlog.length > 0 && !stopped && performance.now() - started < historyMs) {
      const c = backlog.shift() as bigint;
      built += (await materialize({ fromNs: c * CHUNK_NS, toNs: (c + 1n) * CHUNK_NS, nowNs }))
        .chunks;
    }
    return built;
  };
  const runOnce = (): Promise<number> => {
    if (running) return running;
    const nowNs = BigInt(Math.round(clock())) * 1_000_000n;
    running = materialize({ fromNs: nowNs - lookback, toNs: nowNs, nowNs })
      .then(async (r) => r.chunks + (await older(nowNs)))
      .finally(() => {
        running = null;
      });
    return running;
  };
  let yielded = 0;
  const timer = setInterval(() => {
    if (stopped) return;
    if (opts.yieldTo?.() === true && yielded < MAX_YIELDS) {
      yielded++;
      return;
    }
    yielded = 0;
    runOnce().catch((err: unknown) => opts.onError?.(err));
  }, interval);
  timer.unref();
  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
