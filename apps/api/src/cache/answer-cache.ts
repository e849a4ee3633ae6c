/**
 * The answer cache: finished answers of the analysis routes, keyed by the question (route and
 * normalized parameters, the stored part of the range) and valid for one data version of that
 * range (store/answer-cache.ts `rangeVersion`: what the store holds in and around it). A
 * dashboard asks the same questions again on every page and visit; over a range whose data did
 * not change the answer is the same, so it is read here instead of computed again.
 *
 * Single-flight: concurrent identical questions (two pages, two tabs, the filter bar and the
 * page) share one computation. Bounded in entries and in bytes (least recently used goes
 * first). A failed computation is not kept. No I/O: the version comes in as an argument; the
 * only context read is the asker's work (currentWork), to promote background work a person joins.
 */
import { currentWork, type Work } from '../store/engine/admission';

export interface AnswerCacheOptions {
  /** Answers kept at most (default 256). */
  maxEntries?: number;
  /** Their summed size at most, bytes (default 64 MiB); a bigger answer is not kept. */
  maxBytes?: number;
  /** How long a kept answer outlives new spans in its range's edge margin only, ms (MARGIN_GRACE_MS). */
  marginGraceMs?: number;
  /** The clock, ms (tests pass their own). */
  now?: () => number;
}

/**
 * A range's data version in two parts (store/traces/range-version.ts): `exact` changes with any
 * span the answer can read; `inner` only with spans before the range's end (in the range, its
 * margin before it and the background lookback), not with those in the edge margin after it.
 */
export interface AnswerVersion {
  exact: string;
  inner: string;
}

/**
 * How long a kept answer is still given when only spans after its range's end arrived, ms. Under
 * steady ingest every span lands in the edge margin of a range ending within a minute of now, so
 * the exact version changed between any two questions: the Overview's incidents judged the
 * episodes and its episodes question, asked a second later, judged them again (0.7 s of its
 * cold load). Spans after the end change an answer only through fan-outs and traces that start
 * in the range and go on past its end, and the stored fan-outs and buckets under a settled range
 * do not read them; this bounds how long such edge spans are missed.
 */
export const MARGIN_GRACE_MS = 15_000;

export interface AnswerCacheStats {
  hits: number;
  misses: number;
  /** Questions that joined a computation already running. */
  joined: number;
  /** Hits whose range had new spans only in its edge margin after the end (MARGIN_GRACE_MS). */
  marginHits: number;
  entries: number;
  bytes: number;
}

interface Entry {
  version: string;
  /** The version's inner part (AnswerVersion), or the whole version when given as one string. */
  inner: string;
  /** When the answer was kept, ms. */
  atMs: number;
  value: unknown;
  bytes: number;
  /** How long the computation took, ms. */
  computeMs: number;
}

export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Map<string, Promise<unknown>>();
  /** The work each running computation belongs to (promoted when a person joins it). */
  private readonly owners = new Map<string, Work>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private bytes = 0;
  private readonly graceMs: number;
  private readonly now: () => number;
  private counts = { hits: 0, misses: 0, joined: 0, marginHits: 0 };

  constructor(opts: AnswerCacheOptions = {}) {
    this.maxEntries = Math.max(1, opts.maxEntries ?? 256);
    this.maxBytes = Math.max(1, opts.maxBytes ?? 64 * 1024 * 1024);
    this.graceMs = Math.max(0, opts.marginGraceMs ?? MARGIN_GRACE_MS);
    this.now = opts.now ?? Date.now;
  }

  /** A kept entry answers `v` when its exact version is v's, or only v's margin moved lately. */
  private fits(kept: Entry, v: AnswerVersion): 'exact' | 'margin' | null {
    if (kept.version === v.exact) return 'exact';
    if (kept.inner === v.inner && this.now() - kept.atMs < this.graceMs) return 'margin';
    return null;
  }

  /**
   * The answer to `key` at `version`: kept, being computed, or computed now by `compute`.
   * `size` gives an answer's size in bytes for the byte bound; `cost` hears how long the answer
   * took to compute (kept, joined or computed now), ms. A version given as one string must match
   * exactly; an AnswerVersion also matches a kept answer younger than `marginGraceMs` whose
   * inner part is the same.
   */
  async answer<T>(
    key: string,
    given: string | AnswerVersion,
    compute: () => Promise<T>,
    size: (value: T) => number,
    cost: (ms: number) => void = () => undefined,
  ): Promise<T> {
    const v = typeof given === 'string' ? { exact: given, inner: given } : given;
    const kept = this.entries.get(key);
    const fit = kept ? this.fits(kept, v) : null;
    if (kept && fit) {
      // Most recently used moves to the end.
      this.entries.delete(key);
      this.entries.set(key, kept);
      this.counts.hits++;
      if (fit === 'margin') this.counts.marginHits++;
      cost(kept.computeMs);
      return kept.value as T;
    }
    const version = v.exact;
    const flight = `${version}\u0000${key}`;
    const running = this.running.get(flight);
    if (running) {
      this.counts.joined++;
      // A person waiting on background work (a warm pass, a live answer's recomputation) makes
      // it a person's: its queries no longer wait behind others or give way (priority
      // inheritance; store/engine/turns.ts).
      const owner = this.owners.get(flight);
      if (owner?.deferred === true && currentWork()?.deferred !== true) owner.deferred = false;
      // The computation belongs to the first asker: when it fails (that asker left and its
      // work was cancelled, or the engine refused it), a joiner asks again: its own computation,
      // or one started by another joiner meanwhile.
      return (running as Promise<T>).then(
        (value) => {
          cost(this.entries.get(key)?.computeMs ?? 0);
          return value;
        },
        () => this.answer(key, v, compute, size, cost),
      );
    }
    return this.start(key, v, compute, size, cost);
  }

  private start<T>(
    key: string,
    v: AnswerVersion,
    compute: () => Promise<T>,
    size: (value: T) => number,
    cost: (ms: number) => void,
  ): Promise<T> {
    const version = v.exact;
    const flight = `${version}\u0000${key}`;
    this.counts.misses++;
    const atMs = this.now();
    const t0 = performance.now();
    const p = compute().then(
      (value) => {
        this.running.delete(flight);
        this.owners.delete(flight);
        const computeMs = performance.now() - t0;
        this.keep(key, { version, inner: v.inner, atMs, value, bytes: size(value), computeMs });
        cost(computeMs);
        return value;
      },
      (err: unknown) => {
        this.running.delete(flight);
        this.owners.delete(flight);
        throw err;
      },
    );
    this.running.set(flight, p);
    const owner = currentWork();
    if (owner) this.owners.set(flight, owner);
    return p;
  }

  stats(): AnswerCacheStats {
    return { ...this.counts, entries: this.entries.size, bytes: this.bytes };
  }

  private keep(key: string, e: Entry): void {
    this.drop(key);
    if (e.bytes > this.maxBytes) return;
    this.entries.set(key, e);
    this.bytes += e.bytes;
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.drop(k);
    }
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }
}

/** Bytes of a JSON answer as sent (a Buffer: its length). */
export function answerBytes(value: unknown): number {
  if (Buffer.isBuffer(value)) return value.length;
  // undefined for an undefined answer, whatever the declared type says.
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : Buffer.byteLength(text);
}

/**
 * A question's key: the route and its parameters in a fixed order (absent ones left out), so
 * the same question asked with its parameters in another order meets the same answer.
 */
export function questionKey(route: string, params: Record<string, unknown>): string {
  const keys = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .sort();
  return `${route}?${JSON.stringify(
    keys.map((k) => [k, params[k]]),
    (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
  )}`;
}
