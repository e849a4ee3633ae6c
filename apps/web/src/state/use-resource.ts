import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { SharedLoads, toError } from './shared-loads';

export type Resource<T> =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; error: Error }
  | { state: 'ready'; data: T };

const loads = new SharedLoads();

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
    if (key === null || loads.has(key)) return;
    let live = true;
    const { promise, leave } = loads.start(key, latestLoad.current);
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
    return loads.has(key) ? { state: 'ready', data: loads.get(key) as T } : { state: 'loading' };
  }
  return current.res;
}
