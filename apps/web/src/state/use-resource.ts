import { useEffect, useState } from 'react';

export type Resource<T> =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; error: Error }
  | { state: 'ready'; data: T };

// Answers by key, so moving between pages with the same range does not ask again. Bounded: the
// oldest entry goes first. Keys carry the store generation, so "Refresh" misses the cache.
const CACHE_MAX = 60;
const cache = new Map<string, unknown>();

function remember(key: string, value: unknown): void {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > CACHE_MAX) {
    const first = cache.keys().next();
    if (first.done === true) break;
    cache.delete(first.value);
  }
}

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * Loads `key` with `load` (aborted when the key changes or the component goes), as a
 * Resource. A null key means "not yet askable" (idle).
 */
export function useResource<T>(
  key: string | null,
  load: (signal: AbortSignal) => Promise<T>,
): Resource<T> {
  const [current, setCurrent] = useState<{ key: string | null; res: Resource<T> }>({
    key: null,
    res: { state: 'idle' },
  });
  useEffect(() => {
    if (key === null) return;
    if (cache.has(key)) {
      setCurrent({ key, res: { state: 'ready', data: cache.get(key) as T } });
      return;
    }
    const ac = new AbortController();
    setCurrent({ key, res: { state: 'loading' } });
    load(ac.signal).then(
      (data) => {
        remember(key, data);
        if (!ac.signal.aborted) setCurrent({ key, res: { state: 'ready', data } });
      },
      (e: unknown) => {
        if (!ac.signal.aborted) setCurrent({ key, res: { state: 'error', error: toError(e) } });
      },
    );
    return () => {
      ac.abort();
    };
    // `load` is recreated each render on purpose: the key alone names what it loads.
  }, [key]);
  if (key === null) return { state: 'idle' };
  if (current.key !== key) {
    return cache.has(key) ? { state: 'ready', data: cache.get(key) as T } : { state: 'loading' };
  }
  return current.res;
}
