// The answer cache layer: between the routes and the store. Routes hand it their question and
// a computation; it answers from a kept answer when the range's data is unchanged.
import type { Store } from '../store';
import { rangeVersion } from '../store/traces/range-version';
import { noteAnswerCost } from '../store/engine/admission';
import { AnswerCache, answerBytes, questionKey, type AnswerCacheOptions } from './answer-cache';

export {
  AnswerCache,
  answerBytes,
  questionKey,
  MARGIN_GRACE_MS,
  type AnswerCacheStats,
} from './answer-cache';

/** One cache per store (a server has one; tests open several). */
const caches = new WeakMap<Store, AnswerCache | null>();

/** Turns the answer cache of `store` on (with bounds) or off (null: every answer computed). */
export function setAnswerCache(store: Store, opts: AnswerCacheOptions | null): void {
  caches.set(store, opts === null ? null : new AnswerCache(opts));
}

/**
 * The bounds of a store's answer cache from `TAILSCOPE_ANSWER_CACHE_MB` (default 64; 0 turns the
 * cache off, for measuring without it): null when off.
 */
export function answerCacheFromEnv(
  env: Record<string, string | undefined>,
): AnswerCacheOptions | null {
  const raw = env.TAILSCOPE_ANSWER_CACHE_MB;
  const mb = raw === undefined || raw === '' ? 64 : Number(raw);
  if (!Number.isFinite(mb) || mb < 0)
    throw new Error(`TAILSCOPE_ANSWER_CACHE_MB must be a number >= 0, got ${raw}`);
  return mb === 0 ? null : { maxBytes: Math.round(mb * 1024 * 1024) };
}

/** The answer cache of `store` (created on first use, as the environment says); null when off. */
export function answerCacheOf(store: Store): AnswerCache | null {
  let c = caches.get(store);
  if (c === undefined) {
    const opts = answerCacheFromEnv(process.env);
    caches.set(store, (c = opts === null ? null : new AnswerCache(opts)));
  }
  return c;
}

/**
 * The answer to `route` with `params` over the stored part [fromNs, toNs) of a range: kept
 * while the range's data version is unchanged, else `compute`d (once for concurrent askers).
 * `params` must hold every parameter the answer depends on besides the range.
 */
export async function cachedAnswer<T>(
  store: Store,
  route: string,
  params: Record<string, unknown>,
  range: { fromNs: bigint; toNs: bigint },
  compute: () => Promise<T>,
): Promise<T> {
  const cache = answerCacheOf(store);
  // An empty stored part answers at once; nothing to keep.
  if (!cache || range.fromNs >= range.toNs) return compute();
  const version = await rangeVersion(store, range);
  const key = questionKey(route, { ...params, fromNs: range.fromNs, toNs: range.toNs });
  // The request's live answer is kept by what this one took to make (live-answers.ts).
  return cache.answer(key, version, compute, answerBytes, noteAnswerCost);
}
