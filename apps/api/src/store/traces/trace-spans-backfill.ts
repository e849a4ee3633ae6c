import type { Store } from '../engine/client';
import { nextVersion } from '../fanouts/cache';
import { MAX_YIELDS, recordedChunks } from '../fanouts/chunks';
import { param, raw, sql } from '../sql/template';
import { inWindow, ns } from './filters';
import { TRACES } from './tables';
import {
  BACKFILL_CHUNK_NS,
  copyBoundary,
  spansPerChunk,
  TRACE_SPAN_CHUNKS_TABLE,
  TRACE_SPANS_COLUMNS,
  TRACE_SPANS_TABLE,
} from './trace-spans';

/**
 * The narrow span copy's backfill (trace-spans.ts): the spans stored before the copy's boundary,
 * copied a minute of span start at a time, newest first, each minute recorded with its span
 * count. A minute whose count in the spans table changed since (spans loaded from the past, a
 * write-ahead log replayed after the migration) is copied again: its rows go first, so no span
 * is copied twice. Reads use the copy only over minutes recorded with the current count, and
 * the spans table elsewhere (copyCovers), so answers are the same during the backfill. One
 * window is left open: a read that found a minute current just before a late span made it stale
 * may reach the copy while a listing (every 10 minutes) copies that minute again, its rows out
 * then in, and miss spans of it; only minutes before the boundary that take late spans.
 */

/** A minute to copy, and its spans in the spans table when listed. */
interface Pending {
  chunk: bigint;
  spans: bigint;
}

/** The minutes before the boundary whose record does not match the spans table's count. */
export async function staleChunks(store: Store): Promise<Pending[]> {
  if (!backfillOn(store)) return [];
  const boundary = await copyBoundary(store);
  if (boundary === null) return [];
  // From the oldest span on: DateTime64(9) starts in 1900.
  const now = await spansPerChunk(store, -2_208_988_800_000_000_000n, boundary);
  const chunks = [...now.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const recorded = await recordedChunks(store, chunks, TRACE_SPAN_CHUNKS_TABLE);
  // Recorded minutes the spans table no longer holds (retention dropped them) need nothing:
  // copyCovers compares both, and the copy's own retention drops its rows.
  return chunks
    .filter((c) => recorded.get(c)?.spans !== now.get(c))
    .reverse()
    .map((c) => ({ chunk: c, spans: now.get(c) ?? 0n }));
}

const backfillOn = (store: Store): boolean =>
  store.accelerators.traceSpans && !store.readOnly && !store.cluster;

/**
 * Copies one minute: its old rows out (if any), its spans in, then its record with the count
 * the copy now holds. The count is the spans table's before and after the copy when they agree
 * (the copy read between them); when a span arrived meanwhile nothing is recorded and the minute
 * stays stale for the next listing. Returns the spans copied.
 */
export async function copyChunk(store: Store, chunk: bigint, nowNs: bigint): Promise<bigint> {
  const lo = chunk * BACKFILL_CHUNK_NS;
  const hi = lo + BACKFILL_CHUNK_NS;
  const count = async (): Promise<bigint> => (await spansPerChunk(store, lo, hi)).get(chunk) ?? 0n;
  const recorded = (await recordedChunks(store, [chunk], TRACE_SPAN_CHUNKS_TABLE)).get(chunk);
  // Rows of the minute are there only when it was copied before (recorded, or cut off before
  // its record): look before deleting, a delete reads every part of the day.
  const had = await store.query<{ n: string }>(sql`
    SELECT toString(count()) AS n FROM ${raw(TRACE_SPANS_TABLE)} WHERE ${inWindow(lo, hi)}`);
  if (recorded !== undefined || had[0]?.n !== '0')
    await store.command(sql`DELETE FROM ${raw(TRACE_SPANS_TABLE)} WHERE ${inWindow(lo, hi)}`);
  const before = await count();
  await store.command(sql`INSERT INTO ${raw(TRACE_SPANS_TABLE)}
    SELECT ${raw(TRACE_SPANS_COLUMNS)} FROM ${TRACES} WHERE ${inWindow(lo, hi)}`);
  const after = await count();
  if (after !== before) return 0n;
  const version = nextVersion(nowNs, recorded ? [recorded.version] : []);
  await store.command(sql`INSERT INTO ${raw(TRACE_SPAN_CHUNKS_TABLE)} (chunk, spans, version)
    VALUES (${ns(chunk)}, ${param(after.toString(), 'UInt64')}, ${param(version.toString(), 'UInt64')})`);
  return after;
}

export interface BackfillOptions {
  /** How often a pass runs, ms (default 1 s); each copies minutes for up to `passMs`. */
  intervalMs?: number;
  /** Wall time a pass copies for at most, ms (default 2 s). */
  passMs?: number;
  /** A listing is not taken again sooner than this after the last one ran out, ms (10 min). */
  relistMs?: number;
  /** True while a person waits on an analysis: the pass stops between minutes (MAX_YIELDS). */
  yieldTo?: () => boolean;
  /** Progress lines for the server log. */
  log?: (line: string) => void;
  onError?: (err: unknown) => void;
  /** The clock, epoch ms (tests pass their own). */
  now?: () => number;
}

/**
 * Copies the stale minutes while the server runs, in short passes on a timer that give way to
 * analyses as the materializers do (chunks.ts MAX_YIELDS): a minute of 10M spans over 100
 * minutes is ~100k spans, a copy of ~0.15 s. Logs what it found, its progress every ~10 s and
 * its end. `runOnce()` runs one pass; `drain()` copies every stale minute (tests, benches).
 */
export function startTraceSpansBackfill(
  store: Store,
  opts: BackfillOptions = {},
): { stop: () => Promise<void>; runOnce: () => Promise<number>; drain: () => Promise<number> } {
  const clock = opts.now ?? (() => Date.now());
  const passMs = opts.passMs ?? 2_000;
  const relistMs = opts.relistMs ?? 10 * 60_000;
  let pending: Pending[] = [];
  let listedAt = -Infinity;
  let progress = { chunks: 0, spans: 0n, total: 0, totalSpans: 0n, startedMs: 0, loggedMs: 0 };
  let running: Promise<number> | null = null;
  let stopped = false;
  let yielded = 0;

  const pass = async (budgetMs: number): Promise<number> => {
    if (pending.length === 0 && clock() - listedAt >= relistMs) {
      pending = await staleChunks(store);
      listedAt = clock();
      if (pending.length > 0) {
        const totalSpans = pending.reduce((s, p) => s + p.spans, 0n);
        progress = {
          chunks: 0,
          spans: 0n,
          total: pending.length,
          totalSpans,
          startedMs: clock(),
          loggedMs: clock(),
        };
        opts.log?.(
          `tailscope: copying ${totalSpans.toLocaleString('en')} stored spans (${String(pending.length)} minutes) to ${TRACE_SPANS_TABLE} in the background`,
        );
      }
    }
    const started = performance.now();
    let copied = 0;
    while (pending.length > 0 && !stopped && performance.now() - started < budgetMs) {
      if (copied > 0 && opts.yieldTo?.() === true) break;
      const p = pending[0] as Pending;
      progress.spans += await copyChunk(store, p.chunk, BigInt(Math.round(clock())) * 1_000_000n);
      pending.shift();
      progress.chunks++;
      copied++;
      const done = pending.length === 0;
      if (done || clock() - progress.loggedMs >= 10_000) {
        progress.loggedMs = clock();
        const s = ((clock() - progress.startedMs) / 1000).toFixed(0);
        opts.log?.(
          done
            ? `tailscope: ${TRACE_SPANS_TABLE} holds the stored spans: ${progress.spans.toLocaleString('en')} copied in ${s} s`
            : `tailscope: copying spans to ${TRACE_SPANS_TABLE}: ${String(progress.chunks)} of ${String(progress.total)} minutes, ${progress.spans.toLocaleString('en')} of ${progress.totalSpans.toLocaleString('en')} spans, ${s} s`,
        );
      }
    }
    return copied;
  };

  const runOnce = (budgetMs = passMs): Promise<number> => {
    if (running) return running;
    running = pass(budgetMs).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (stopped || running) return;
    if (opts.yieldTo?.() === true && yielded < MAX_YIELDS) {
      yielded++;
      return;
    }
    yielded = 0;
    runOnce().catch((err: unknown) => opts.onError?.(err));
  }, opts.intervalMs ?? 1_000);
  timer.unref();
  return {
    runOnce: () => runOnce(),
    drain: async () => {
      let n = 0;
      await running?.catch(() => undefined);
      do n += await runOnce(Infinity);
      while (pending.length > 0 && !stopped);
      return n;
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
