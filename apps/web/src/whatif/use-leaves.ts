import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { leafFanoutCap } from '@tailscope/contracts';
import { apiUrl } from '../api/client';
import { requestKey, type OperationKey } from '../api/endpoints';
import type { TimeRange } from '../state/filters';
import { useResource, type Resource } from '../state/use-resource';
import { leafClient } from './leaf-client';
import type { ExampleQuery } from './dataset';
import type { LoadInfo } from './protocol';

export interface LeafData {
  key: string;
  info: LoadInfo;
}

/** An operation with what leafFanoutCap reads. */
type LeafOp = OperationKey & { requests: number; width: { p50: number } };

/**
 * The worker's load of an operation's leaf calls over a range: its key (one load per key) and
 * its start. Shared by the pages (useLeafData) and the ask-ahead (state/ask-ahead.ts), which
 * starts it as soon as the fan-outs name the operation, so both ask one question.
 */
export function leafLoad(
  op: LeafOp,
  range: TimeRange,
  rangeKey: string,
): { key: string; load: () => Promise<LoadInfo> } {
  // A uniform sample of an operation's fan-outs past LEAF_CALL_BUDGET calls, as the server's
  // warm answers ask it (the same question, so a first visit finds it answered).
  const maxFanouts = leafFanoutCap(op);
  const key = requestKey('leaves', {
    rangeKey,
    leafService: op.leafService,
    leafOperation: op.leafOperation,
    maxFanouts,
  });
  const url = apiUrl('leaves', {
    query: {
      from: Math.floor(range.fromMs),
      to: Math.ceil(range.toMs),
      leafService: op.leafService,
      leafOperation: op.leafOperation,
      maxFanouts,
    },
  });
  return { key, load: () => leafClient.load(key, url) };
}

/** The operation's leaf calls, loaded into the worker once per (range, operation). */
export function useLeafData(op: LeafOp, range: TimeRange, rangeKey: string): Resource<LeafData> {
  const { key, load } = leafLoad(op, range, rangeKey);
  return useResource(key, async () => ({ key, info: await load() }));
}

/**
 * Opens an example trace for a query (a host, a time window, a latency) from the loaded leaf
 * data; asked before the data is in, it opens once it is. `message` says why nothing opened.
 */
export function useOpenExample(leaves: Resource<LeafData>): {
  open: (q: ExampleQuery) => void;
  message: string | null;
} {
  const navigate = useNavigate();
  const [message, setMessage] = useState<string | null>(null);
  const [waiting, setWaiting] = useState<ExampleQuery | null>(null);
  const key = leaves.state === 'ready' ? leaves.data.key : null;
  const failed = leaves.state === 'error' ? leaves.error.message : null;
  const go = useCallback(
    (k: string, q: ExampleQuery) => {
      leafClient.example(k, q).then(
        (traceId) => {
          if (traceId === null) setMessage('No fan-out matches that (host, time window).');
          else void navigate(`/traces/${traceId}${window.location.search}`);
        },
        (e: unknown) => {
          setMessage(e instanceof Error ? e.message : String(e));
        },
      );
    },
    [navigate],
  );
  useEffect(() => {
    if (waiting === null) return;
    if (key !== null) {
      // A query asked before the data came waits for it; the data arrives as a prop, so the
      // hand-over (clear the wait, ask) can only happen here.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setWaiting(null);
      setMessage(null);
      go(key, waiting);
    } else if (failed !== null) {
      setWaiting(null);
      setMessage(`Example traces need the leaf data: ${failed}`);
    }
  }, [key, failed, waiting, go]);
  const open = useCallback(
    (q: ExampleQuery) => {
      if (key !== null) go(key, q);
      else {
        setMessage('Finding an example request…');
        setWaiting(q);
      }
    },
    [key, go],
  );
  return { open, message };
}
