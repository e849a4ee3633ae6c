import { useEffect, useRef, useState } from 'react';
import type { WhatIfPolicy } from '@tailscope/analysis';
import { fetchRequestWhatIf, type EdgeKey, type RequestAnswer } from '../../api/whatif';
import type { TimeRange } from '../../state/filters';

/** The full answer is asked once the controls rest this long. */
const SETTLE_MS = 400;

export type Quality = 'preview' | 'full';

export type RequestState =
  | { kind: 'loading' }
  | { kind: 'ready'; answer: RequestAnswer; quality: Quality; policy: WhatIfPolicy }
  | { kind: 'error'; message: string };

interface Job {
  /** Edge, range and seed: an answer for another one is never shown. */
  dataKey: string;
  edge: EdgeKey;
  range: TimeRange;
  seed: number;
  policy: WhatIfPolicy;
  quality: Quality;
}

/**
 * The whole-request answer (POST /api/v1/whatif) following the controls: each change asks a
 * preview (the server's cached trees, one replay, 200 resamples), the full answer once the
 * controls rest. One request in flight; while it runs only the newest position waits (latest
 * wins). A preview in flight is let finish (the server runs it out anyway, to keep its cache
 * thread; its answer is a frame away and shows progress); a full answer in flight is aborted
 * when a control moves, and anything in flight when the edge, range or seed changes.
 * Also counts the previews shown (`previews`), which the browser test reads.
 */
export function useRequestWhatIf(
  edge: EdgeKey,
  range: TimeRange,
  policy: WhatIfPolicy,
  seed: number,
): { state: RequestState; busy: boolean; previews: number } {
  const [state, setState] = useState<RequestState>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);
  const [previews, setPreviews] = useState(0);
  const inFlight = useRef<{ ac: AbortController; job: Job } | null>(null);
  const pending = useRef<Job | null>(null);
  const latestData = useRef('');
  const dataKey = JSON.stringify([edge, range, seed]);
  const key = JSON.stringify([dataKey, policy]);

  useEffect(() => {
    const changedData = latestData.current !== dataKey;
    latestData.current = dataKey;
    const running = inFlight.current;
    if (running && (running.job.quality === 'full' || running.job.dataKey !== dataKey))
      running.ac.abort();
    if (changedData) setState({ kind: 'loading' });
    const pump = (): void => {
      if (inFlight.current || !pending.current) return;
      const job = pending.current;
      pending.current = null;
      const ac = new AbortController();
      inFlight.current = { ac, job };
      setBusy(true);
      fetchRequestWhatIf(job.range, job.edge, job.policy, job.seed, ac.signal, job.quality)
        .then(
          (answer) => {
            if (ac.signal.aborted || latestData.current !== job.dataKey) return;
            setState({ kind: 'ready', answer, quality: job.quality, policy: job.policy });
            if (job.quality === 'preview') setPreviews((n) => n + 1);
          },
          (e: unknown) => {
            if (ac.signal.aborted || latestData.current !== job.dataKey) return;
            setState({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
          },
        )
        .finally(() => {
          if (inFlight.current?.ac === ac) inFlight.current = null;
          setBusy(inFlight.current !== null || pending.current !== null);
          pump();
        });
    };
    pending.current = { dataKey, edge, range, seed, policy, quality: 'preview' };
    pump();
    const timer = setTimeout(() => {
      pending.current = { dataKey, edge, range, seed, policy, quality: 'full' };
      pump();
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
    };
    // The key holds every input; the objects themselves change identity on each render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  // Leaving the page: nothing more to show.
  useEffect(
    () => () => {
      pending.current = null;
      inFlight.current?.ac.abort();
    },
    [],
  );
  return { state, busy, previews };
}
