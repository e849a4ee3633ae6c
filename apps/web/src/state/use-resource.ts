import { createContext, useContext, useEffect, useRef, useState } from 'react';

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
const inflight = new Map<string, Load>();

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

interface Load {
  promise: Promise<unknown>;
  controller: AbortController;
  /** Components waiting on it; the load is aborted when the last one leaves before it ends. */
  users: number;
}

/**
 * Starts (or joins) the load of `key`; the returned `leave` says this caller no longer waits.
 * A shared load goes on while anyone waits on it and is aborted when nobody does (the page was
 * left, or the key changed), so a dropped request stops costing the server.
 */
function start<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
): { promise: Promise<T>; leave: () => void } {
  let entry = inflight.get(key);
  if (!entry) {
    const controller = new AbortController();
    const created: Load = {
      controller,
      users: 0,
      promise: load(controller.signal).then(
        (data) => {
          remember(key, data);
          if (inflight.get(key) === created) inflight.delete(key);
          return data;
        },
        (e: unknown) => {
          if (inflight.get(key) === created) inflight.delete(key);
          throw toError(e);
        },
      ),
    };
    entry = created;
    inflight.set(key, created);
  }
  const joined = entry;
  joined.users++;
  let left = false;
  return {
    promise: joined.promise as Promise<T>,
    leave: () => {
      if (left) return;
      left = true;
      joined.users--;
      if (joined.users === 0 && inflight.get(key) === joined) {
        inflight.delete(key);
        joined.controller.abort();
      }
    },
  };
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
  // The settled answer for `key`; until it matches, the render below derives idle, cached or
  // loading from the key alone, so the effect never sets state synchronously.
  const [current, setCurrent] = useState<{ key: string | null; res: Resource<T> }>({
    key: null,
    res: { state: 'idle' },
  });
  // `load` is recreated each render on purpose: the key alone names what it loads.
  const latestLoad = useRef(load);
  useEffect(() => {
    latestLoad.current = load;
  });
  useEffect(() => {
    if (key === null || cache.has(key)) return;
    let live = true;
    const { promise, leave } = start(key, latestLoad.current);
    promise.then(
      (data) => {
        if (live) setCurrent({ key, res: { state: 'ready', data } });
      },
      (e: unknown) => {
        if (live) setCurrent({ key, res: { state: 'error', error: toError(e) } });
      },
    );
    return () => {
      live = false;
      leave();
    };
  }, [key]);
  if (key === null) return { state: 'idle' };
  if (current.key !== key) {
    return cache.has(key) ? { state: 'ready', data: cache.get(key) as T } : { state: 'loading' };
  }
  return current.res;
}
