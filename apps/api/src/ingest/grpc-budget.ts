import { constants as h2 } from 'node:http2';
import {
  Metadata,
  ServerInterceptingCall,
  ServerListenerBuilder,
  status as GrpcStatus,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import type { InflightBudget } from './inflight';
import { statusProto } from './otlp-response';
import type { Pipeline } from './pipeline';
import type { IngestObserver, RequestOutcome } from './observer';

/**
 * The in-flight byte budget for OTLP/gRPC, taken before a message is buffered, as OTLP/HTTP
 * takes it from Content-Length. gRPC declares no size in its headers, but every message starts
 * with a 5-byte prefix (compressed flag, u32 length): the call's share is taken when that
 * prefix arrives, and a call that does not fit is answered RESOURCE_EXHAUSTED (with RetryInfo)
 * and its stream reset, so at most a flow-control window of it is ever read. The share is kept
 * until the stream closes; a gzip message that inflates past its wire size takes the rest once
 * it is decompressed.
 *
 * grpc-js offers no hook at the prefix: the HTTP/2 stream is read from its base call (a
 * private field, looked up defensively). Where it cannot be found, the handler takes the share
 * once the message is read, as before (`budgeted` says which calls are covered here).
 */

/** Calls (by their metadata object, which reaches the handler) whose share is held here. */
export const budgeted = new WeakSet<Metadata>();

interface Http2StreamLike {
  prependListener(event: 'data', listener: (chunk: Buffer) => void): unknown;
  removeListener(event: 'data', listener: (chunk: Buffer) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  close(code?: number): void;
  closed: boolean;
}

/** The HTTP/2 stream under a call, through the chain of intercepting calls to the base one. */
function streamOf(call: ServerInterceptingCallInterface): Http2StreamLike | undefined {
  let at: unknown = call;
  for (let depth = 0; depth < 16 && typeof at === 'object' && at !== null; depth++) {
    const { stream, nextCall } = at as { stream?: unknown; nextCall?: unknown };
    if (
      typeof stream === 'object' &&
      stream !== null &&
      typeof (stream as Http2StreamLike).prependListener === 'function' &&
      typeof (stream as Http2StreamLike).close === 'function'
    )
      return stream as Http2StreamLike;
    at = nextCall;
  }
  return undefined;
}

export function overBudgetMessage(budget: InflightBudget): string {
  return `too many bytes in flight (limit ${budget.maxBytes}, TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES): retry later`;
}

function refuse(
  call: ServerInterceptingCallInterface,
  code: GrpcStatus,
  message: string,
  retryDelaySeconds: number,
): void {
  const trailers = new Metadata();
  trailers.set('grpc-status-details-bin', statusProto(code, message, retryDelaySeconds));
  call.sendStatus({ code, details: message, metadata: trailers });
}

/** Why a call is refused as soon as its metadata arrives, or undefined. */
function refusalAtStart(
  budget: InflightBudget,
  pipeline: Pipeline | undefined,
): [RequestOutcome, GrpcStatus, string, number] | undefined {
  const stuck = pipeline?.stuck();
  if (stuck && pipeline)
    return [
      'store_error',
      GrpcStatus.UNAVAILABLE,
      `cannot store ${pipeline.signal.plural} now (${stuck.reason}): retry later`,
      stuck.retryAfterSeconds ?? 1,
    ];
  if (pipeline?.isFull())
    return ['queue_full', GrpcStatus.UNAVAILABLE, 'write queue is full: retry later', 1];
  if (budget.isFull())
    return ['over_inflight_budget', GrpcStatus.RESOURCE_EXHAUSTED, overBudgetMessage(budget), 1];
  return undefined;
}

export function budgetInterceptor(
  budget: InflightBudget,
  pipelines: readonly Pipeline[],
  observer: IngestObserver,
): ServerInterceptor {
  return (method, call) => {
    // The signal's own queue decides; an unknown method is answered UNIMPLEMENTED by grpc-js.
    const pipeline = pipelines.find((p) => p.signal.grpcPath === method.path);
    let held = 0;
    const release = () => {
      budget.release(held);
      held = 0;
    };
    /** Takes the share of a message of `bytes`; false (and the call answered) if it is refused. */
    const take = (bytes: number, stream: Http2StreamLike | undefined): boolean => {
      if (bytes <= held) return true;
      if (budget.tryAcquire(bytes - held, held)) {
        held = bytes;
        return true;
      }
      observer.request('grpc', 'over_inflight_budget');
      refuse(call, GrpcStatus.RESOURCE_EXHAUSTED, overBudgetMessage(budget), 1);
      // RST_STREAM(NO_ERROR) after the answer: the client stops sending (RFC 9113 8.1), and
      // grpc-js stops buffering what it had begun to read.
      if (stream && !stream.closed)
        setImmediate(() => {
          stream.close(h2.NGHTTP2_NO_ERROR);
        });
      return false;
    };
    return new ServerInterceptingCall(call, {
      start: (next) => {
        next(
          new ServerListenerBuilder()
            .withOnReceiveMetadata((metadata, nextMetadata) => {
              const refusal = refusalAtStart(budget, pipeline);
              if (refusal) {
                const [outcome, ...answer] = refusal;
                observer.request('grpc', outcome);
                refuse(call, ...answer);
                return;
              }
              const stream = streamOf(call);
              if (stream) {
                budgeted.add(metadata);
                stream.once('close', release);
                watchPrefix(stream, (bytes) => take(bytes, stream));
              }
              nextMetadata(metadata);
            })
            .withOnReceiveMessage((message: Buffer, nextMessage) => {
              // Decompressed, it may be larger than on the wire: its share grows to match.
              if (held === 0 || take(message.length, undefined)) nextMessage(message);
            })
            .build(),
        );
      },
    });
  };
}

/** Calls `onLength` with the length in the first message's 5-byte prefix, once. */
function watchPrefix(stream: Http2StreamLike, onLength: (bytes: number) => boolean): void {
  const prefix = Buffer.alloc(5);
  let have = 0;
  const onData = (chunk: Buffer) => {
    const n = Math.min(5 - have, chunk.length);
    chunk.copy(prefix, have, 0, n);
    have += n;
    if (have < 5) return;
    stream.removeListener('data', onData);
    onLength(prefix.readUInt32BE(1));
  };
  stream.prependListener('data', onData);
}
