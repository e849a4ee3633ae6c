import { useEffect, useRef, useState } from 'react';
import type { WhatIfPolicy } from '@tailscope/analysis';
import { leafClient, WorkerError } from './leaf-client';
import type { SimulateAnswer } from './protocol';

/**
 * While a slider moves: a replay of the preview subsample (about PREVIEW_CALLS calls, whole fan-outs)
 * with fewer bootstrap resamples, so the picture follows the hand; once the controls rest, the
 * full replay with the published intervals.
 */
export const FAST_SAMPLES = 200;
export const FULL_SAMPLES = 2000;
const SETTLE_MS = 300;

export interface WhatIfRun {
  answer: SimulateAnswer;
  policy: WhatIfPolicy;
  full: boolean;
  /** performance.now() of the input that asked for this run. */
  askedAt: number;
}

interface Job {
  datasetKey: string;
  seed: number;
  policy: WhatIfPolicy;
  full: boolean;
  askedAt: number;
  /** Which change asked for it (one per effect run): stale jobs are recognised by it. */
  stamp: number;
}

/**
 * Runs the simulation for the current policy in the worker. Latest wins: while one run is in
 * flight only the newest policy waits, so dragging never queues stale work. Each change gets a
 * quick run (fewer bootstrap resamples), and a full one once the controls rest. `policy` is
 * compared by identity: the caller memoizes it.
 */
export function useWhatIf(
  datasetKey: string | null,
  policy: WhatIfPolicy,
  seed: number,
  askedAt: () => number,
): { run: WhatIfRun | null; error: WorkerError | Error | null; busy: boolean } {
  const [run, setRun] = useState<WhatIfRun | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const pending = useRef<Job | null>(null);
  const latest = useRef(0);
  const latestData = useRef('');
  // askedAt is read at the change; it is not a reason to run again.
  const latestAskedAt = useRef(askedAt);
  useEffect(() => {
    latestAskedAt.current = askedAt;
  });

  useEffect(() => {
    const stamp = ++latest.current;
    latestData.current = `${datasetKey ?? ''}|${seed}`;
    if (datasetKey === null) return;
    const pump = () => {
      if (inFlight.current || !pending.current) return;
      const job = pending.current;
      pending.current = null;
      inFlight.current = true;
      setBusy(true);
      leafClient
        .simulate(
          job.datasetKey,
          job.policy,
          job.seed,
          job.full ? FULL_SAMPLES : FAST_SAMPLES,
          !job.full,
        )
        .then(
          (answer) => {
            // Shown even when the slider has moved on since: during a drag the freshest finished
            // answer beats a blank, and the next run is already queued.
            if (latestData.current === `${job.datasetKey}|${job.seed}`) {
              setRun({ answer, policy: job.policy, full: job.full, askedAt: job.askedAt });
              setError(null);
            }
          },
          (e: unknown) => {
            if (latest.current === job.stamp)
              setError(e instanceof Error ? e : new Error(String(e)));
          },
        )
        .finally(() => {
          inFlight.current = false;
          if (!pending.current) setBusy(false);
          pump();
        });
    };
    const t = latestAskedAt.current();
    pending.current = { datasetKey, seed, policy, full: false, askedAt: t, stamp };
    pump();
    const settle = setTimeout(() => {
      if (latest.current !== stamp) return;
      pending.current = { datasetKey, seed, policy, full: true, askedAt: performance.now(), stamp };
      pump();
    }, SETTLE_MS);
    return () => {
      clearTimeout(settle);
    };
  }, [datasetKey, policy, seed]);

  return { run, error, busy };
}
