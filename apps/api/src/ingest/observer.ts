/**
 * What ingest tells the metrics (GET /metrics, docs/operations.md) as it works. The receivers
 * and the writer call it; the server's metrics implement it. Labels are bounded sets, never
 * free text, so a misbehaving client cannot blow up the metric series.
 */

import type { WriterFailure } from './writer-faults';

export type OtlpProtocol = 'http' | 'grpc';

/** How an OTLP request ended: accepted, or why it was refused as a whole. */
export type RequestOutcome =
  | 'accepted'
  | 'unauthenticated'
  | 'queue_full'
  | 'over_inflight_budget'
  | 'too_large'
  | 'undecodable'
  | 'timeout'
  | 'bad_request'
  | 'store_error';

/** Why spans were not kept: the decoder refused them, or their request met a full queue. */
export type SpanRejectReason = 'invalid_span' | 'queue_full';

/** Why metric data points were not kept (as for spans). */
export type PointRejectReason = 'invalid_point' | 'queue_full';

export interface IngestObserver {
  request(protocol: OtlpProtocol, outcome: RequestOutcome): void;
  /** Spans decoded from a request, kept or not. */
  spansReceived(protocol: OtlpProtocol, spans: number): void;
  spansRejected(protocol: OtlpProtocol, reason: SpanRejectReason, spans: number): void;
  /** One insert into `table` that the store took, and how long it took. */
  inserted(table: string, seconds: number): void;
  /** Spans now in the store (after their batch's inserts all succeeded). */
  stored(spans: number): void;
  /** Metric data points decoded from a request (POST /v1/metrics, MetricsService), kept or not. */
  pointsReceived(protocol: OtlpProtocol, points: number): void;
  pointsRejected(protocol: OtlpProtocol, reason: PointRejectReason, points: number): void;
  /** Metric data points now in the store. */
  pointsStored(points: number): void;
  /** One attempt of the writer (an insert, a batch-log or dead-letter write) failed. */
  writerFailed(failure: WriterFailure): void;
}

export const NO_OBSERVER: IngestObserver = {
  request: () => undefined,
  spansReceived: () => undefined,
  spansRejected: () => undefined,
  inserted: () => undefined,
  stored: () => undefined,
  pointsReceived: () => undefined,
  pointsRejected: () => undefined,
  pointsStored: () => undefined,
  writerFailed: () => undefined,
};

/** The outcome label of a refused OTLP/HTTP request, from its status and google.rpc code. */
export function outcomeOfStatus(status: number, code: number): RequestOutcome {
  if (status === 401) return 'unauthenticated';
  if (status === 429) return code === 8 ? 'over_inflight_budget' : 'queue_full';
  if (status === 413) return 'too_large';
  if (status === 408) return 'timeout';
  if (status === 400) return 'undecodable';
  if (status >= 500) return 'store_error';
  return 'bad_request';
}
