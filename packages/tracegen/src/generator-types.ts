/** What a run offers: the truth up front, then batches streamed one at a time. */
import type { LeafCalls } from '@tailscope/analysis';
import type { SpanBatch } from './batch';
import type { Plan } from './plan';
import type { ScenarioTruth } from './truth';

/** The calls a run emits, columnar, with the planted reason behind each call's latency. */
export interface PlantedCalls {
  calls: LeafCalls;
  /** CallEffect bits, one per call. */
  effects: Uint8Array;
}

export interface TraceGenerator {
  readonly truth: ScenarioTruth;
  readonly plan: Plan;
  /** Spans batches() will yield (exact for a fixed width, else the expectation). */
  readonly expectedSpans: number;
  /** Streams the run from the start; calling it again gives identical batches. */
  batches(): Generator<SpanBatch, void, undefined>;
  /** The same calls without spans, as the analysis' LeafCalls. */
  leafCalls(): PlantedCalls;
}
