import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useSearchParams } from 'react-router';
import { fetchStats } from '../api/endpoints';
import { forgetAnswers } from '../api/shared-answers';
import { askAhead } from './ask-ahead';
import type { Stats } from '../api/contracts';
import { GenerationContext, useResource, type Resource } from './use-resource';
import { parseFilters, writeFilters, type Filters } from './filters';
import { rangeOf, type RangeState } from './range-state';

export type { RangeState } from './range-state';

interface StoreState {
  stats: Resource<Stats>;
  /** The clock reading relative ranges resolve against; moves only on refresh. */
  nowMs: number;
  /** Bumped by refresh; part of every cache key. */
  generation: number;
  refresh: () => void;
}

const StoreContext = createContext<StoreState | null>(null);

/**
 * The page load's first statistics, asked before React mounts (startFirstStats, from main.tsx)
 * with the clock the page's ranges then resolve against: the route's first questions are asked
 * from them at once (ask-ahead.ts) instead of after the session check, the mount and the first
 * render (100-170 ms on a loaded 2-core machine).
 */
let first: { stats: Promise<Stats>; nowMs: number } | null = null;

/** Asks for the statistics now (once per page load) and the route's first questions after. */
export function startFirstStats(): void {
  // A trace page asks for its trace first (public/preload.js) and the statistics after.
  if (first || /^\/traces\/[0-9a-f]{32}\/?$/i.test(window.location.pathname)) return;
  const nowMs = Date.now();
  const stats = fetchStats(new AbortController().signal).then((s) => {
    askAhead(s, nowMs, 0);
    return s;
  });
  stats.catch(() => undefined);
  first = { stats, nowMs };
}

/** What the store holds, read once per page load (and on "Refresh"). */
export function StoreProvider({ children }: { children: ReactNode }) {
  const [generation, setGeneration] = useState(0);
  const [nowMs, setNowMs] = useState(() => first?.nowMs ?? Date.now());
  // The clock of this generation, for the loader below (it runs outside a render).
  const clock = useRef(nowMs);
  useEffect(() => {
    clock.current = nowMs;
  }, [nowMs]);
  const stats = useResource(`stats:${generation}`, async (signal) => {
    // The early ask, once: unless it failed (asked before a log-in, say), then asked again.
    const early = generation === 0 ? first?.stats : undefined;
    if (early) {
      const s = await early.catch(() => null);
      if (s) return s;
    }
    const s = await fetchStats(signal);
    askAhead(s, clock.current, generation);
    return s;
  });
  const refresh = useCallback(() => {
    forgetAnswers();
    setNowMs(Date.now());
    setGeneration((g) => g + 1);
  }, []);
  const value = useMemo(
    () => ({ stats, nowMs, generation, refresh }),
    [stats, nowMs, generation, refresh],
  );
  return (
    <GenerationContext value={generation}>
      <StoreContext value={value}>{children}</StoreContext>
    </GenerationContext>
  );
}

export function useStore(): StoreState {
  const s = useContext(StoreContext);
  if (!s) throw new Error('useStore outside StoreProvider');
  return s;
}

/** The shared filters from the URL, and a setter that keeps the other URL keys. */
export function useFilters(): [Filters, (patch: Partial<Filters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseFilters(params), [params]);
  const update = useCallback(
    (patch: Partial<Filters>) => {
      setParams((prev) => {
        const merged: Filters = { ...parseFilters(prev), ...patch };
        if (merged.range !== 'custom') {
          delete merged.from;
          delete merged.to;
        }
        return writeFilters(prev, merged);
      });
    },
    [setParams],
  );
  return [filters, update];
}

/**
 * The resolved time range every page queries, or why there is none yet. Analyses end where the
 * server's stored data does (settleRange); `toNewest` keeps the newest spans in (the trace
 * search, whose reads are cheap either way).
 */
export function useRange(opts: { toNewest?: boolean } = {}): RangeState {
  const { stats, nowMs, generation } = useStore();
  const [filters] = useFilters();
  if (stats.state === 'error') return { state: 'error', error: stats.error };
  if (stats.state !== 'ready') return { state: 'loading' };
  return rangeOf(stats.data, filters, nowMs, generation, opts);
}
