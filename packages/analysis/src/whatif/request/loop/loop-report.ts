/**
 * The closed-loop model as an answer reports it, and its hook into the replay.
 */

import { detectLoopModel, replayClosedLoop, type LoopDetection } from './loop-model';
import type { RequestTrees } from '../trees';

/** What the closed-loop model detected and replayed, as the what-if answer reports it. */
export interface LoopReport {
  /** Clients: the most root requests in flight at once. */
  clients: number;
  /** The operation serialized across requests (one execution at a time). */
  resourceService: string;
  resourceOperation: string;
  /** Median hold of the resource per execution (FIFO reconstruction), ms. */
  holdP50Ms: number;
  /** Median time between a client's answer and its next request, ms. */
  thinkP50Ms: number;
  /** Median wait on the resource: recorded, and in the replay. */
  recordedWaitP50Ms: number;
  replayedWaitP50Ms: number;
}

/** Above this many requests the loop is not looked for (the check sorts and scans every client). */
export const MAX_LOOP_REQUESTS = 100_000;

/** The load model of one what-if: how it re-times the replays, and what to report. */
export interface LoopHook {
  /** Re-times one replay's requests in place; undefined for the open model. */
  apply: ((requestMs: Float64Array) => void) | undefined;
  notes: string[];
  fields: () => {
    model: 'open' | 'closed-loop';
    closedLoop?: LoopReport;
    modelReason?: string;
  };
}

const median = (a: number[]): number => {
  if (a.length === 0) return NaN;
  const s = Float64Array.from(a).sort();
  return s[Math.floor((s.length - 1) / 2)]!;
};

/** The load model of these trees (target: per edge 1 when replayed); it depends on the recording only. */
export function detectLoop(t: RequestTrees, target: Uint8Array): LoopDetection {
  return t.nodeOffsets.length - 1 > MAX_LOOP_REQUESTS
    ? {
        model: 'open',
        reason: `closed-loop detection is limited to ${String(MAX_LOOP_REQUESTS)} requests`,
      }
    : detectLoopModel(t, target);
}

/**
 * The whole-request replay's one entry into the load model: from the detection (detectLoop,
 * kept with a prepared replay) the hook simulateRequestWhatIf calls per replay.
 */
export function loopModelFor(t: RequestTrees, d: LoopDetection): LoopHook {
  const R = t.nodeOffsets.length - 1;
  if (d.model === 'open')
    return {
      apply: undefined,
      notes: [],
      fields: () => ({ model: 'open', modelReason: d.reason }),
    };
  const m = d.loop;
  const waits: number[] = [];
  const wait = new Float64Array(R);
  const { service, operation } = m.resource;
  return {
    apply: (requestMs) => {
      replayClosedLoop(m, requestMs, wait);
      for (let q = 0; q < R; q++) if (!Number.isNaN(m.arrivalMs[q]!)) waits.push(wait[q]!);
    },
    notes: [
      `closed loop: ${String(m.clients)} clients send requests back to back (think p50 ${m.thinkP50Ms.toFixed(1)} ms) and ${service}/${operation} serves one request at a time (hold p50 ${m.holdP50Ms.toFixed(1)} ms); each replay re-runs the clients, each request re-timed alone, and that operation's FIFO queue`,
    ],
    fields: () => ({
      model: 'closed-loop',
      closedLoop: {
        clients: m.clients,
        resourceService: service,
        resourceOperation: operation,
        holdP50Ms: m.holdP50Ms,
        thinkP50Ms: m.thinkP50Ms,
        recordedWaitP50Ms: m.recordedWaitP50Ms,
        replayedWaitP50Ms: median(waits),
      },
    }),
  };
}
