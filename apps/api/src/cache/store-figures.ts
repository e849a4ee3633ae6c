import {
  callBucketsStoredThroughNs,
  fanoutsStoredThroughNs,
  selectSamplingInfo,
  selectStats,
  type SamplingInfo,
  type Store,
} from '../store';
import type { StoreStats } from '../store';
import { outsideWork } from '../store/engine/admission';
import { onStoreWrite } from '../store/writes/notes';

/**
 * The store's figures for /api/v1/stats (counts, stored range, sampling), kept and answered at
 * once. Computing them takes engine turns, and the embedded engine runs one query at a time: a
 * cheap query goes before every waiting analysis query but still waits for the running one,
 * which can take seconds (issue 25: /stats took 45 s in a burst of analyses). So /stats answers
 * from the last figures computed, with their age, and they are refreshed
 *  - after ingest commits (store/write-notes.ts), at most once per WRITTEN_REFRESH_MS, while
 *    someone read them in the last WATCHED_MS (no one watching: no engine time spent on them);
 *  - when a reader finds them stale (a write since, or older than REFRESH_MS: writes from
 *    elsewhere are seen this way); a reader of figures older than WRITTEN_REFRESH_MS waits for
 *    that refresh at most `waitMs` (TAILSCOPE_STATS_WAIT_MS), then answers the last figures;
 *    a reader of younger ones answers them at once.
 * Only the first read ever waits for the engine as long as it takes. One refresh runs at a time
 * and every reader joins it; it runs outside the request that started it, so a client leaving
 * does not stop it for the others.
 */
export interface StoreFigures {
  stats: StoreStats;
  sampling: SamplingInfo;
}

/** How old kept figures may get before a reader refreshes them, and the gap between refreshes. */
export const REFRESH_MS = 2000;
/**
 * The gap between refreshes ingest starts. Under steady ingest every commit dirties the figures:
 * refreshing them every REFRESH_MS took a quarter of the engine's time while dashboard pages
 * loaded (the `microservices` preset at 5,000 spans/s), turns the pages' own answers waited
 * for. A reader still refreshes figures older than REFRESH_MS itself (and waits `waitMs` at
 * most), so each page load asks once.
 */
export const WRITTEN_REFRESH_MS = 10_000;
/** Ingest refreshes the figures only while someone read them this recently. */
const WATCHED_MS = 60_000;
/** TAILSCOPE_STATS_WAIT_MS when not set. */
export const DEFAULT_STATS_WAIT_MS = 250;
const MAX_STATS_WAIT_MS = 60_000;

/** TAILSCOPE_STATS_WAIT_MS: a whole number of ms in [0, 60000]; the error names the variable. */
export function statsWaitFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.TAILSCOPE_STATS_WAIT_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_STATS_WAIT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_STATS_WAIT_MS)
    throw new Error(
      `TAILSCOPE_STATS_WAIT_MS must be a whole number of ms from 0 to ${MAX_STATS_WAIT_MS}, got ${JSON.stringify(raw)}`,
    );
  return ms;
}

export class FiguresKeeper<F> {
  private last: { figures: F; atMs: number } | undefined;
  private dirty = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastStartMs = -Infinity;
  private lastReadMs = -Infinity;
  /** Refreshes started (tests). */
  refreshes = 0;

  constructor(
    private readonly compute: () => Promise<F>,
    readonly waitMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The figures and their age (ms since the refresh that computed them started). Figures older
   * than REFRESH_MS, or stale, are refreshed; the reader waits for that (at most `waitMs`) only
   * when they are older than WRITTEN_REFRESH_MS: every dashboard page reads them first, and
   * under steady ingest they are always stale, so waiting on each read put up to `waitMs` into
   * every page's time (bench:pages: 0.1-0.4 s of a second visit's 0.24-0.6 s).
   */
  async read(): Promise<{ figures: F; ageMs: number }> {
    this.lastReadMs = this.now();
    if (!this.last) await this.refresh();
    else {
      const age = this.now() - this.last.atMs;
      if (this.dirty || age >= REFRESH_MS) {
        const fresh = this.refresh().catch(() => undefined);
        if (this.waitMs > 0 && age >= WRITTEN_REFRESH_MS) await within(fresh, this.waitMs);
      }
    }
    const last = this.last;
    if (!last) throw new Error('store figures were not computed');
    return { figures: last.figures, ageMs: Math.max(0, this.now() - last.atMs) };
  }

  /** Rows went into the store: refresh soon (at most once per WRITTEN_REFRESH_MS) if watched. */
  written(): void {
    this.dirty = true;
    if (this.now() - this.lastReadMs < WATCHED_MS) this.schedule();
  }

  /** Stops the pending refresh (server close). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.running) return;
    const inMs = Math.max(0, this.lastStartMs + WRITTEN_REFRESH_MS - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refresh().catch(() => undefined);
    }, inMs);
    this.timer.unref();
  }

  private refresh(): Promise<void> {
    if (this.running) return this.running;
    this.stop();
    this.dirty = false;
    const startedAt = this.now();
    this.lastStartMs = startedAt;
    this.refreshes++;
    this.running = outsideWork(() => this.compute())
      .then((figures) => {
        this.last = { figures, atMs: startedAt };
      })
      .finally(() => {
        this.running = undefined;
        // Rows that arrived while it ran are not all in it.
        if (this.dirty && this.now() - this.lastReadMs < WATCHED_MS) this.schedule();
      });
    return this.running;
  }
}

/** Waits for `p` at most `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * Where answers over a range ending now stop reading stored rows and start detecting live: the
 * newest instant both the stored fan-outs and the stored episode series reach (the server's
 * materializers store 10 s buckets once they are 10 s old, every 15 s, so it trails the newest
 * span by 10-35 s under steady ingest). The dashboard ends its ranges there (issue 24): every
 * answer past it detected the same newest seconds again, ~0.7 s each under 5,000 spans/s on 2
 * cores, six times for the Overview. Null when either is not stored at all.
 */
async function settledThroughNs(store: Store): Promise<bigint | null> {
  const [fanouts, buckets] = await Promise.all([
    fanoutsStoredThroughNs(store),
    callBucketsStoredThroughNs(store),
  ]);
  if (fanouts === null || buckets === null) return null;
  return fanouts < buckets ? fanouts : buckets;
}

const keepers = new WeakMap<Store, FiguresKeeper<StoreFigures>>();

/** The figures keeper of `store` (made on first use, with TAILSCOPE_STATS_WAIT_MS). */
export function storeFigures(
  store: Store,
  waitMs = statsWaitFromEnv(process.env),
): FiguresKeeper<StoreFigures> {
  let k = keepers.get(store);
  if (!k) {
    const keeper = new FiguresKeeper(async () => {
      const [stats, sampling, settled] = await Promise.all([
        selectStats(store),
        selectSamplingInfo(store),
        settledThroughNs(store),
      ]);
      return { stats: { ...stats, settledUnixNano: settled?.toString() ?? null }, sampling };
    }, waitMs);
    onStoreWrite(store, () => {
      keeper.written();
    });
    keepers.set(store, (k = keeper));
  }
  return k;
}
