/**
 * Live answers: the last slow answer of each question over a range that ends at the live edge
 * (now, where spans still arrive), served again to the next asker of that question while it is
 * younger than `maxAgeMs`, and recomputed behind it (stale-while-revalidate, as HTTP's
 * `Cache-Control: stale-while-revalidate` and dashboards' query caches do).
 *
 * Why: under ingest the exact answer cache (answer-cache.ts) cannot serve "all data" or "the last
 * hour": the range's end moves with every visit and new spans land in it, so every page asked
 * its analyses again (10-20 s each at 1.2M spans on 2 cores, issue #24). Here a question is
 * its route and parameters without the range (its "family"); an asked range matches a kept
 * answer when it ends at or after the kept one's end, within `maxAgeMs`, and their overlap is
 * at least MIN_OVERLAP (75%) of each: "all data" grown, or "the last hour" moved, by no more
 * than the answer's age, never the next window of a series. The answer then says how old it is (the route sets
 * `x-tailscope-answer-age-ms`), and it still names its own range (`from`, `to`).
 *
 * Only answers that took at least `minComputeMs` are kept: a cheap answer is simply computed
 * again, so a small store (and every test over one) always sees its newest spans. An answer its
 * asker read from the answer cache (another request computed it) counts what it took to compute
 * there: asking again, over newer spans, would compute it. A client that
 * wants a fresh answer says `Cache-Control: no-cache` (the dashboard's Refresh does). Pure: the
 * clock comes in as an argument; the server (server/live-answers.ts) does the I/O.
 */

/**
 * The least compute time of a kept answer by default, ms. bench:pages (1.2M spans under ingest)
 * found the Overview's second visit computing its fan-outs and episodes again (2.3 s and 1.3 s
 * while the page waited): computed after their wait at the gate they took under the earlier
 * default of 1,000 ms, so none was kept. A store's answers under 250 ms are still computed again.
 */
export const DEFAULT_MIN_COMPUTE_MS = 250;

export interface LiveAnswerOptions {
  /** A kept answer is served while younger than this, ms (default 5 min). */
  maxAgeMs?: number;
  /** Recompute behind a served answer older than this, ms (default 30 s). */
  refreshAfterMs?: number;
  /** Keep only answers that took at least this long to compute, ms (default 250). */
  minComputeMs?: number;
  /** Families kept at most (default 128, least recently used out first). */
  maxEntries?: number;
  /** Their payloads' summed size at most, bytes (default 64 MiB). */
  maxBytes?: number;
}

export interface LiveAnswer {
  /** The serialized answer as sent (JSON text, or the packed bytes of /leaves). */
  payload: string | Buffer;
  contentType: string;
  fromMs: number;
  toMs: number;
  /** When its computation finished, epoch ms. */
  computedAt: number;
}

export interface LiveHit {
  answer: LiveAnswer;
  ageMs: number;
  /** Whether the asker should start a recomputation (old enough, and none running). */
  refresh: boolean;
}

export interface LiveAnswerStats {
  hits: number;
  kept: number;
  refreshes: number;
  entries: number;
  bytes: number;
}

interface Entry extends LiveAnswer {
  bytes: number;
}

/**
 * Share of the asked range and of the kept one their overlap must be to serve one for the other.
 * The answer's age (at most maxAgeMs, said with the answer) bounds how stale it is; this only
 * keeps a different window from being served. It was 90% until stop 45: at 10M spans "All data"
 * of a store 20 minutes old grew past 10% in the two minutes a person moved between pages, and
 * every page computed again (3-28 s) with a two-minute-old answer at hand.
 */
export const MIN_OVERLAP = 0.75;

export class LiveAnswers {
  readonly maxAgeMs: number;
  readonly refreshAfterMs: number;
  readonly minComputeMs: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly entries = new Map<string, Entry>();
  private readonly refreshing = new Set<string>();
  private bytes = 0;
  private counts = { hits: 0, kept: 0, refreshes: 0 };

  constructor(opts: LiveAnswerOptions = {}) {
    this.maxAgeMs = Math.max(0, opts.maxAgeMs ?? 300_000);
    this.refreshAfterMs = Math.max(0, opts.refreshAfterMs ?? 30_000);
    this.minComputeMs = Math.max(0, opts.minComputeMs ?? DEFAULT_MIN_COMPUTE_MS);
    this.maxEntries = Math.max(1, opts.maxEntries ?? 128);
    this.maxBytes = Math.max(1, opts.maxBytes ?? 64 * 1024 * 1024);
  }

  /**
   * The kept answer of `family` for the asked range, when one is young enough and its range is
   * the asked one as it was when computed (see the file's comment); undefined otherwise.
   */
  lookup(
    family: string,
    asked: { fromMs: number; toMs: number },
    now: number,
  ): LiveHit | undefined {
    const e = this.entries.get(family);
    if (!e) return undefined;
    const ageMs = Math.max(0, now - e.computedAt);
    if (ageMs > this.maxAgeMs) {
      this.drop(family);
      return undefined;
    }
    const endMoved = asked.toMs - e.toMs;
    if (endMoved < 0 || endMoved > this.maxAgeMs) return undefined;
    // The two ranges are nearly the same: their overlap is most of each (the longer one). "All
    // data" grown, or a rolling window moved by a little of its length; never the window before
    // it (HotROD's test phases are that), nor a part of it.
    const overlap = Math.min(asked.toMs, e.toMs) - Math.max(asked.fromMs, e.fromMs);
    const longer = Math.max(asked.toMs - asked.fromMs, e.toMs - e.fromMs);
    if (!(overlap >= MIN_OVERLAP * longer)) return undefined;
    this.entries.delete(family);
    this.entries.set(family, e);
    this.counts.hits++;
    const refresh = ageMs >= this.refreshAfterMs && !this.refreshing.has(family);
    return { answer: e, ageMs, refresh };
  }

  /**
   * Keeps a finished answer of `family` (taking `computeMs`) when it was slow enough to be worth
   * serving again, or when the family already has one (a refresh's answer replaces it).
   */
  keep(family: string, answer: LiveAnswer, computeMs: number): void {
    if (computeMs < this.minComputeMs && !this.entries.has(family)) return;
    const kept = this.entries.get(family);
    // A late answer over an older range never replaces a newer one.
    if (kept && kept.toMs > answer.toMs) return;
    const bytes =
      typeof answer.payload === 'string'
        ? Buffer.byteLength(answer.payload)
        : answer.payload.length;
    this.drop(family);
    if (bytes > this.maxBytes) return;
    this.entries.set(family, { ...answer, bytes });
    this.bytes += bytes;
    this.counts.kept++;
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.drop(k);
    }
  }

  /** Marks a recomputation of `family` as running; false when one already is. */
  startRefresh(family: string): boolean {
    if (this.refreshing.has(family)) return false;
    this.refreshing.add(family);
    this.counts.refreshes++;
    return true;
  }

  endRefresh(family: string): void {
    this.refreshing.delete(family);
  }

  /** Whether the kept answer of `family` is old enough to be recomputed (none kept: false). */
  wantsRefresh(family: string, now: number): boolean {
    const e = this.entries.get(family);
    return e !== undefined && now - e.computedAt >= this.refreshAfterMs;
  }

  /** Recomputations running now. */
  refreshesRunning(): number {
    return this.refreshing.size;
  }

  stats(): LiveAnswerStats {
    return { ...this.counts, entries: this.entries.size, bytes: this.bytes };
  }

  private drop(family: string): void {
    const e = this.entries.get(family);
    if (!e) return;
    this.entries.delete(family);
    this.bytes -= e.bytes;
  }
}

/**
 * A question's family: its route and every parameter but the range (`from`, `to`), in a fixed
 * order, so the same question over a moved range meets its last answer.
 */
export function liveFamily(route: string, query: Record<string, unknown>): string {
  const keys = Object.keys(query)
    .filter((k) => k !== 'from' && k !== 'to' && query[k] !== undefined)
    .sort();
  return `${route}?${JSON.stringify(keys.map((k) => [k, query[k]]))}`;
}

/**
 * The bounds of live answers from the environment: `TAILSCOPE_LIVE_ANSWER_MAX_S` (default 300;
 * 0 turns them off) and `TAILSCOPE_LIVE_ANSWER_MIN_MS` (default 250). Null when off.
 */
export function liveAnswersFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): LiveAnswerOptions | null {
  const num = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number >= 0, got ${raw}`);
    return v;
  };
  const maxS = num('TAILSCOPE_LIVE_ANSWER_MAX_S', 300);
  if (maxS === 0) return null;
  const maxAgeMs = Math.round(maxS * 1000);
  return {
    maxAgeMs,
    refreshAfterMs: Math.min(30_000, maxAgeMs),
    minComputeMs: num('TAILSCOPE_LIVE_ANSWER_MIN_MS', DEFAULT_MIN_COMPUTE_MS),
  };
}
