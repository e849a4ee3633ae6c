import { useEffect, useRef, useState } from 'react';

/** The full answer is asked once the controls rest this long. */
const SETTLE_MS = 400;

export type Quality = 'preview' | 'full';

export type PreviewState<I, T> =
  | { kind: 'loading' }
  | {
      kind: 'ready';
      answer: T;
      quality: Quality;
      input: I;
      /** performance.now() of the change that asked for this answer. */
      askedAt: number;
    }
  | { kind: 'error'; message: string };

interface Job<I, T> {
  /** What the answers are about (range, operation, seed): another's answer is never shown. */
  dataKey: string;
  input: I;
  quality: Quality;
  askedAt: number;
  ask: (input: I, quality: Quality, signal: AbortSignal) => Promise<T>;
}

/**
 * A server answer following a control (POST /api/v1/whatif's `quality`): the first answer for
 * some data is the full one; then each change asks a preview, the full answer once the controls
 * rest. One request in flight; while it runs only
 * the newest position waits (latest wins). A preview in flight is let finish (the server runs it
 * out anyway, to keep its cache thread; its answer is a frame away and shows progress); a full
 * answer in flight is aborted when a control moves, and anything in flight when `dataKey`
 * changes. `input` is compared by its JSON. Also counts the previews shown (`previews`), which
 * the browser tests read.
 */
export function usePreviewAnswer<I, T>(
  dataKey: string,
  input: I,
  ask: (input: I, quality: Quality, signal: AbortSignal) => Promise<T>,
): { state: PreviewState<I, T>; busy: boolean; previews: number } {
  const [state, setState] = useState<PreviewState<I, T>>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);
  const [previews, setPreviews] = useState(0);
  const inFlight = useRef<{ ac: AbortController; job: Job<I, T> } | null>(null);
  const pending = useRef<Job<I, T> | null>(null);
  const latestData = useRef('');
  // The asking closure of the render that made the change (its range, edge and seed).
  const latestAsk = useRef(ask);
  useEffect(() => {
    latestAsk.current = ask;
  });
  const key = JSON.stringify([dataKey, input]);

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
      job
        .ask(job.input, job.quality, ac.signal)
        .then(
          (answer) => {
            if (ac.signal.aborted || latestData.current !== job.dataKey) return;
            setState({
              kind: 'ready',
              answer,
              quality: job.quality,
              input: job.input,
              askedAt: job.askedAt,
            });
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
    const job = (quality: Quality): Job<I, T> => ({
      dataKey,
      input,
      quality,
      askedAt: performance.now(),
      ask: latestAsk.current,
    });
    // A first answer (the page opened, or its data changed) is asked whole at once: nothing is
    // moving, and a preview first delayed it by the preview's own time and SETTLE_MS (the
    // What-if page's second visit waited 0.4 s for nothing; issue 24).
    if (changedData) {
      pending.current = job('full');
      pump();
      return;
    }
    pending.current = job('preview');
    pump();
    const timer = setTimeout(() => {
      pending.current = job('full');
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
