import type {
  EdgeTarget,
  LeafCalls,
  PartOffsets,
  PoolPart,
  RequestHead,
  RequestTrees,
  StaticIndex,
  WhatIfPolicy,
} from '@tailscope/analysis';

/**
 * The messages between RequestReplayThreads (request-threads.ts) and its threads
 * (request-thread.ts), and the shared memory they travel on.
 */
/** What the main thread asks a replay thread (request-thread.ts). */
export type ThreadTask =
  | { type: 'trees'; trees: RequestTrees }
  | {
      type: 'plan';
      part: number;
      range: { from: number; to: number };
      target: EdgeTarget;
      policy: WhatIfPolicy;
      /**
       * Count the part's target calls for the merge (a 'calls' task writes them; not for
       * `pool`).
       */
      calls: boolean;
    }
  /**
   * `values` ordered into `out` where the answer's bootstrap reads them (sortedAtRanges over
   * `ranges`, or all of them: sortedCopy); `values` is left alone.
   */
  | { type: 'order'; values: Float64Array; ranges: [number, number][] | 'all'; out: Float64Array }
  /** The merged calls' replay index (buildStaticIndex), for the policy's replay here. */
  | { type: 'index'; calls: LeafCalls }
  /** latencyQuantile of the merged calls' durations (the hedge's delay, tied's median). */
  | { type: 'quantile'; values: Float64Array; q: number }
  | {
      /** Write a planned part's target calls into the merged columns (writePartCalls). */
      type: 'calls';
      part: number;
      merged: LeafCalls;
      blockAt: number;
      callAt: number;
      /** The part's involved requests' recorded times go here (recordedRequestMs), from involvedAt. */
      recorded: Float64Array;
      involvedAt: number;
    }
  | {
      /** The pool policy: plan and replay a part at once (poolPart). */
      type: 'pool';
      part: number;
      range: { from: number; to: number };
      mask: Uint8Array;
      workers: number;
    }
  | {
      type: 'replay';
      part: number;
      at: PartOffsets;
      blockMs: Float64Array | undefined;
      replays: number;
      workers: number;
      reqAll: Float64Array;
      fanAll: Float64Array;
    };

export type ThreadReply =
  | { type: 'ok' }
  | {
      type: 'planned';
      part: number;
      head: RequestHead;
      blocks: number;
      /** Its target calls (planCalls), 0 when not asked. */
      calls: number;
      overflow: boolean;
    }
  | { type: 'replayed'; part: number }
  | { type: 'index'; index: StaticIndex }
  | { type: 'quantile'; value: number }
  | { type: 'pool'; part: number; result: PoolPart }
  | { type: 'error'; message: string };

/** The trees' columns on shared memory (trace ids left out: the replay never reads them). */
export function shareTrees(t: RequestTrees): RequestTrees {
  const share = <A extends Float64Array | Int32Array | Uint32Array | Uint8Array>(
    a: A,
    make: (b: SharedArrayBuffer, n: number) => A,
  ): A => {
    const out = make(new SharedArrayBuffer(Math.max(8, a.byteLength)), a.length);
    out.set(a);
    return out;
  };
  return {
    nodeOffsets: share(t.nodeOffsets, (b, n) => new Uint32Array(b, 0, n)),
    requestStartMs: share(t.requestStartMs, (b, n) => new Float64Array(b, 0, n)),
    traceIds: [],
    parent: share(t.parent, (b, n) => new Int32Array(b, 0, n)),
    startMs: share(t.startMs, (b, n) => new Float64Array(b, 0, n)),
    durationMs: share(t.durationMs, (b, n) => new Float64Array(b, 0, n)),
    edge: share(t.edge, (b, n) => new Int32Array(b, 0, n)),
    host: share(t.host, (b, n) => new Uint32Array(b, 0, n)),
    mode: share(t.mode, (b, n) => new Uint32Array(b, 0, n)),
    structure: share(t.structure, (b, n) => new Uint8Array(b, 0, n)),
    concurrency: share(t.concurrency, (b, n) => new Uint32Array(b, 0, n)),
    edges: t.edges,
    hosts: t.hosts,
    modes: t.modes,
    ...(t.shape ? { shape: share(t.shape, (b, n) => new Int32Array(b, 0, n)) } : {}),
  };
}
