// Messages between the page and the leaf worker. Every request carries an id; the answer
// carries it back.
import type { WhatIfPolicy, WhatIfResult } from '@tailscope/analysis';
import type { LeafCurves, ExampleQuery } from './dataset';
import type { QuantilePoint } from '@tailscope/charts';

export type WorkerRequest =
  | { id: number; type: 'load'; key: string; url: string }
  | { id: number; type: 'curves'; key: string }
  | {
      id: number;
      type: 'simulate';
      key: string;
      policy: WhatIfPolicy;
      seed: number;
      bootstrapSamples: number;
      /** Replay the preview subsample (while a slider moves). */
      preview: boolean;
    }
  | { id: number; type: 'example'; key: string; query: ExampleQuery };

export interface LoadInfo {
  fanouts: number;
  calls: number;
  hosts: number;
  /** A uniform sample of the operation's fan-outs (the API's maxFanouts), not all of them. */
  sampled: boolean;
  fetchMs: number;
  prepareMs: number;
}

export interface SimulateAnswer {
  result: WhatIfResult;
  /** The replayed all-leaves distribution as a curve (the samples stay in the worker). */
  whatIfCurve: QuantilePoint[];
  simulateMs: number;
  /** Fan-outs replayed: all of them, or the preview subsample. */
  replayed: number;
}

export type WorkerAnswer =
  | { id: number; ok: true; type: 'load'; info: LoadInfo }
  | { id: number; ok: true; type: 'curves'; curves: LeafCurves }
  | { id: number; ok: true; type: 'simulate'; answer: SimulateAnswer }
  | { id: number; ok: true; type: 'example'; traceId: string | null }
  | { id: number; ok: false; message: string; field?: string };
