import { createContext, useContext, useEffect, useState } from 'react';

export type Resource<T> =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; error: Error }
  | { state: 'ready'; data: T };

// Answers by key, so moving between pages with the same range does not ask again, and one
// request in flight per key however many components want it (the filter bar and the page ask
// for the same operations list). Bounded: the oldest answer goes first. Keys carry the store
// generation, so "Refresh" misses the cache.
const CACHE_MAX = 60;
const cache = new Map<string, unknown>();
const inflight = new Map<string, Promise<unknown>>();

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

/** Starts (or joins) the load of `key`. Shared loads are not aborted: others may wait on them. */
function start<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const running = inflight.get(key);
  if (running) return running as Promise<T>;
  const p = load(new AbortController().signal).then(
    (data) => {
      remember(key, data);
      inflight.delete(key);
      return data;
    },
    (e: unknown) => {
      inflight.delete(key);
      throw toError(e);
    },
  );
  inflight.set(key, p);
  return p;
}

/** Bumped by "Refresh" and "Try again": every resource is asked again under a new key. */
export const GenerationContext = createContext(0);

/** Loads `key` with `load` as a Resource. A null key means "not yet askable" (idle). */
export function useResource<T>(
  baseKey: string | null,
  load: (signal: AbortSignal) => Promise<T>,
): Resource<T> {
  const generation = useContext(GenerationContext);
  const key = baseKey === null ? null : `${generation}|${baseKey}`;
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
    let live = true;
    setCurrent({ key, res: { state: 'loading' } });
    start(key, load).then(
      (data) => {
        if (live) setCurrent({ key, res: { state: 'ready', data } });
      },
      (e: unknown) => {
        if (live) setCurrent({ key, res: { state: 'error', error: toError(e) } });
      },
    );
    return () => {
      live = false;
    };
    // `load` is recreated each render on purpose: the key alone names what it loads.
  }, [key]);
  if (key === null) return { state: 'idle' };
  if (current.key !== key) {
    return cache.has(key) ? { state: 'ready', data: cache.get(key) as T } : { state: 'loading' };
  }
  return current.res;
}
