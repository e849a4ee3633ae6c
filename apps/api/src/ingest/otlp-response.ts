import protobuf from 'protobufjs/minimal.js';

/**
 * The bodies OTLP answers with: ExportTraceServiceResponse / ExportMetricsServiceResponse (with
 * partial_success when items were rejected) and google.rpc.Status for errors, in protobuf or in OTLP/JSON, matching the request.
 */

/** gRPC status codes used in google.rpc.Status.code (and as gRPC statuses). */
export const GrpcCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** rejected_spans / rejected_data_points: field 1 of either signal's partial success. */
export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

export function exportResponseProto(partial: PartialSuccess | undefined): Buffer {
  if (!partial) return Buffer.alloc(0);
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).fork();
  w.uint32(1 << 3).uint64(partial.rejected);
  if (partial.errorMessage) w.uint32((2 << 3) | 2).string(partial.errorMessage);
  w.ldelim();
  return Buffer.from(w.finish());
}

/** `field`: `rejectedSpans` (traces) or `rejectedDataPoints` (metrics). */
export function exportResponseJson(
  partial: PartialSuccess | undefined,
  field = 'rejectedSpans',
): string {
  if (!partial) return '{}';
  // int64 as a string, as the protobuf JSON mapping writes it.
  return JSON.stringify({
    partialSuccess: {
      [field]: String(partial.rejected),
      errorMessage: partial.errorMessage,
    },
  });
}

/** google.rpc.RetryInfo wrapped in a google.protobuf.Any, for the status details. */
function retryInfoAny(delaySeconds: number): Uint8Array {
  const info = protobuf.Writer.create();
  info.uint32((1 << 3) | 2).fork();
  info.uint32(1 << 3).int64(delaySeconds);
  info.ldelim();
  const any = protobuf.Writer.create();
  any.uint32((1 << 3) | 2).string('type.googleapis.com/google.rpc.RetryInfo');
  any.uint32((2 << 3) | 2).bytes(info.finish());
  return any.finish();
}

export function statusProto(code: number, message: string, retryDelaySeconds?: number): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(1 << 3).int32(code);
  w.uint32((2 << 3) | 2).string(message);
  if (retryDelaySeconds !== undefined)
    w.uint32((3 << 3) | 2).bytes(retryInfoAny(retryDelaySeconds));
  return Buffer.from(w.finish());
}

export function statusJson(code: number, message: string, retryDelaySeconds?: number): string {
  const details =
    retryDelaySeconds === undefined
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${retryDelaySeconds}s`,
          },
        ];
  return JSON.stringify({ code, message, details });
}
