import type { QueryBudgetError } from '../store/engine/budget';

/**
 * The what-if routes' memo of a range's small reads (stored bounds, sampling) and of reads that
 * exceeded the query budget, per store, with the time to live the route gives (that of the
 * range's cached trees: routes/whatif-request.ts `rangeCache`). Moved here from the route so the
 * API's caches sit in one layer (README.md).
 */

const MEMO_ENTRIES = 64;

/**
 * Per store, so two servers in one process (tests, an embedding app) never answer from each
 * other's reads; a store's maps go with it.
 */
interface Memo {
  reads: Map<string, { value: Promise<unknown>; expiresAt: number }>;
  overBudget: Map<string, { error: QueryBudgetError; expiresAt: number }>;
}
const memos = new WeakMap<object, Memo>();
function memoOf(store: object): Memo {
  let m = memos.get(store);
  if (!m) {
    m = { reads: new Map(), overBudget: new Map() };
    memos.set(store, m);
  }
  return m;
}

/** Drops the oldest entries past MEMO_ENTRIES (a Map iterates in insertion order). */
function trim(map: Map<string, unknown>): void {
  for (const k of map.keys()) {
    if (map.size <= MEMO_ENTRIES) break;
    map.delete(k);
  }
}

/**
 * A range's small reads (stored bounds, sampling) kept as long as its trees, for previews: at
 * 100,000 requests they cost more than the replay itself (measured 70-150 ms for the sampling
 * read under load). At most MEMO_ENTRIES per store, oldest out first.
 */
export function memoized<T>(
  store: object,
  key: string,
  ttlMs: number,
  read: () => Promise<T>,
): Promise<T> {
  const memo = memoOf(store).reads;
  const now = Date.now();
  const hit = memo.get(key);
  if (hit && hit.expiresAt > now) return hit.value as Promise<T>;
  const value = read();
  memo.delete(key);
  memo.set(key, { value, expiresAt: now + ttlMs });
  // A failed read is not kept.
  value.catch(() => memo.delete(key));
  trim(memo);
  return value;
}

/** A read that exceeded the query budget, remembered for `ttlMs` (at most MEMO_ENTRIES). */
export function rememberOverBudget(
  store: object,
  key: string,
  ttlMs: number,
  error: QueryBudgetError,
): void {
  const over = memoOf(store).overBudget;
  over.delete(key);
  over.set(key, { error, expiresAt: Date.now() + ttlMs });
  trim(over);
}

/** The remembered budget error of a read, while it lasts. */
export function overBudgetRead(store: object, key: string): QueryBudgetError | undefined {
  const over = memoOf(store).overBudget;
  const hit = over.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.error;
  over.delete(key);
  return undefined;
}
