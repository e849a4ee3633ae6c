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
  policyJson: string;
  full: boolean;
  /** performance.now() of the input that asked for this run. */
  askedAt: number;
}

/**
 * Runs the simulation for the current policy in the worker. Latest wins: while one run is in
 * flight only the newest policy waits, so dragging never queues stale work. Each change gets a
 * quick run (fewer bootstrap resamples), and a full one once the controls rest.
 */
export function useWhatIf(
  datasetKey: string | null,
  policy: WhatIfPolicy,
  seed: number,
  askedAt: () => number,
): { run: WhatIfRun | null; error: WorkerError | Error | null; busy: boolean } {
  const policyJson = JSON.stringify(policy);
  const [run, setRun] = useState<WhatIfRun | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const pending = useRef<{
    policyJson: string;
    full: boolean;
    askedAt: number;
    key: string;
  } | null>(null);
  const latest = useRef(policyJson);
  latest.current = `${datasetKey ?? ''}|${seed}|${policyJson}`;

  useEffect(() => {
    if (datasetKey === null) return;
    const stamp = `${datasetKey}|${seed}|${policyJson}`;
    const pump = () => {
      if (inFlight.current || !pending.current) return;
      const job = pending.current;
      pending.current = null;
      inFlight.current = true;
      setBusy(true);
      leafClient
        .simulate(
          datasetKey,
          JSON.parse(job.policyJson) as WhatIfPolicy,
          seed,
          job.full ? FULL_SAMPLES : FAST_SAMPLES,
          !job.full,
        )
        .then(
          (answer) => {
            // Shown even when the slider has moved on since: during a drag the freshest finished
            // answer beats a blank, and the next run is already queued.
            if (job.key.startsWith(`${datasetKey}|${seed}|`)) {
              setRun({ answer, policyJson: job.policyJson, full: job.full, askedAt: job.askedAt });
              setError(null);
            }
          },
          (e: unknown) => {
            if (latest.current === job.key) setError(e instanceof Error ? e : new Error(String(e)));
          },
        )
        .finally(() => {
          inFlight.current = false;
          if (!pending.current) setBusy(false);
          pump();
        });
    };
    const t = askedAt();
    pending.current = { policyJson, full: false, askedAt: t, key: stamp };
    pump();
    const settle = setTimeout(() => {
      if (latest.current !== stamp) return;
      pending.current = { policyJson, full: true, askedAt: performance.now(), key: stamp };
      pump();
    }, SETTLE_MS);
    return () => {
      clearTimeout(settle);
    };
    // askedAt is read at the change; it is not a reason to run again.
  }, [datasetKey, policyJson, seed]);

  return { run, error, busy };
}
