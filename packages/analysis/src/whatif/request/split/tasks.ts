import type { LeafCalls } from '../../../types';
import type { StaticIndex, WhatIfPolicy } from '../../policies';
import type { EdgeTarget, PartOffsets, PoolPart, RequestHead } from '../answer';
import type { RequestTrees } from '../trees';

/**
 * The tasks of a split whole-request answer and their replies: plain data (typed arrays,
 * numbers, strings), so an executor can post them to another thread as they are.
 */

/** What the driver (driver.ts) asks a runner (runner.ts) to do. */
export type SplitTask =
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
  /** The merged calls' replay index (buildStaticIndex), for the policy's replay in the driver. */
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

/** A runner's reply to a task. */
export type SplitReply =
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
