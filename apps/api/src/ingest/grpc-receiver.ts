import {
  Metadata,
  Server,
  ServerInterceptingCall,
  ServerListenerBuilder,
  type ServerInterceptor,
  ServerCredentials,
  status as GrpcStatus,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { DecodeError } from './proto-reader';
import { exportResponseProto, statusProto } from './otlp-response';
import type { InflightBudget } from './inflight';
import { budgetInterceptor, budgeted, overBudgetMessage } from './grpc-budget';
import type { Pipeline } from './pipeline';
import { NO_OBSERVER, type IngestObserver, type RequestOutcome } from './observer';
import { checkBearer, type TokenSet } from '../foundation';

/**
 * OTLP/gRPC: opentelemetry.proto.collector.trace.v1.TraceService/Export and
 * opentelemetry.proto.collector.metrics.v1.MetricsService/Export. Messages stay bytes
 * (identity (de)serializers) and go through the same decoder and pipeline as OTLP/HTTP. grpc-js
 * handles `grpc-encoding: gzip` and caps messages at max_receive_message_length (from the
 * prefix, before reading; decompressed, as it inflates); the in-flight budget is taken from the
 * prefix too (grpc-budget.ts).
 */

const identity = (b: Buffer): Buffer => b;

/** One unary Export method whose messages stay bytes. */
function exportService(path: string): ServiceDefinition {
  return {
    Export: {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
}

export interface GrpcReceiverOptions {
  host: string;
  port: number;
  maxBytes: number;
  budget: InflightBudget;
  /** One per signal, each served at its `grpcPath`. */
  pipelines: readonly Pipeline[];
  log: (message: string) => void;
  /** Bearer tokens a call's `authorization` metadata must carry (open when empty). */
  tokens: TokenSet;
  observer?: IngestObserver;
  /** PEM certificate and key: the receiver speaks TLS. */
  tls?: { cert: Buffer; key: Buffer };
}

export interface GrpcReceiver {
  port: number;
  close(): Promise<void>;
}

function fail(
  callback: sendUnaryData<Buffer>,
  code: GrpcStatus,
  message: string,
  retryDelaySeconds?: number,
): void {
  const metadata = new Metadata();
  if (retryDelaySeconds !== undefined) {
    // google.rpc.Status with RetryInfo: OTLP clients retry after the delay it names.
    metadata.set('grpc-status-details-bin', statusProto(code, message, retryDelaySeconds));
  }
  callback({ code, details: message, metadata });
}

/**
 * Refuses a call without a valid ingest token in its `authorization` metadata (UNAUTHENTICATED)
 * as soon as the metadata arrives, before its message is read.
 */
function authInterceptor(tokens: TokenSet, observer: IngestObserver): ServerInterceptor {
  return (_method, call) =>
    new ServerInterceptingCall(call, {
      start: (next) => {
        next(
          new ServerListenerBuilder()
            .withOnReceiveMetadata((metadata, nextMetadata) => {
              const header = metadata.get('authorization').map(String);
              const verdict = checkBearer(tokens, header.length > 0 ? header : undefined);
              if (verdict === 'ok') {
                nextMetadata(metadata);
                return;
              }
              observer.request('grpc', 'unauthenticated');
              call.sendStatus({
                code: GrpcStatus.UNAUTHENTICATED,
                details:
                  verdict === 'missing'
                    ? 'OTLP needs an ingest token (TAILSCOPE_INGEST_TOKENS is set): send metadata "authorization: Bearer <token>" (the exporter\'s headers setting) without spaces before or after it (HTTP/2 drops such a value)'
                    : 'the bearer token is not one of TAILSCOPE_INGEST_TOKENS',
                metadata: new Metadata(),
              });
            })
            .build(),
        );
      },
    });
}

/** The Export handler of one signal: the same checks and pipeline for traces and metrics. */
function exportHandler(
  pipeline: Pipeline,
  opts: GrpcReceiverOptions,
  failed: (outcome: RequestOutcome) => void,
): (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => void {
  const observer = opts.observer ?? NO_OBSERVER;
  return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
    const stuck = pipeline.stuck();
    if (stuck) {
      failed('store_error');
      fail(
        callback,
        GrpcStatus.UNAVAILABLE,
        `cannot store ${pipeline.signal.plural} now (${stuck.reason}): retry later`,
        stuck.retryAfterSeconds ?? 1,
      );
      return;
    }
    if (pipeline.isFull()) {
      failed('queue_full');
      fail(callback, GrpcStatus.UNAVAILABLE, 'write queue is full: retry later', 1);
      return;
    }
    // Taken from the message's prefix already, before it was buffered (grpc-budget.ts).
    const size = budgeted.has(call.metadata) ? 0 : call.request.length;
    if (size > 0 && !opts.budget.tryAcquire(size)) {
      failed('over_inflight_budget');
      fail(callback, GrpcStatus.RESOURCE_EXHAUSTED, overBudgetMessage(opts.budget), 1);
      return;
    }
    const done = () => {
      opts.budget.release(size);
    };
    pipeline
      .submit(call.request, 'grpc')
      .finally(done)
      .then(
        (result) => {
          if (result.status === 'full') {
            failed('queue_full');
            fail(callback, GrpcStatus.UNAVAILABLE, 'write queue is full: retry later', 1);
            return;
          }
          const partial =
            result.message !== ''
              ? { rejected: result.rejected, errorMessage: result.message }
              : undefined;
          observer.request('grpc', 'accepted');
          callback(null, exportResponseProto(partial));
        },
        (err: unknown) => {
          if (err instanceof DecodeError) {
            failed('undecodable');
            fail(callback, GrpcStatus.INVALID_ARGUMENT, `undecodable request: ${err.message}`);
            return;
          }
          opts.log(`otlp/grpc: ${String(err)}`);
          failed('store_error');
          fail(callback, GrpcStatus.UNAVAILABLE, 'could not store the request: retry later', 1);
        },
      );
  };
}

export function startGrpcReceiver(opts: GrpcReceiverOptions): Promise<GrpcReceiver> {
  const observer = opts.observer ?? NO_OBSERVER;
  const server = new Server({
    'grpc.max_receive_message_length': opts.maxBytes,
    interceptors: [
      authInterceptor(opts.tokens, observer),
      budgetInterceptor(opts.budget, opts.pipelines, observer),
    ],
  });
  const failed = (outcome: RequestOutcome) => {
    observer.request('grpc', outcome);
  };
  for (const pipeline of opts.pipelines)
    server.addService(exportService(pipeline.signal.grpcPath), {
      Export: exportHandler(pipeline, opts, failed),
    });
  // An IPv6 address needs brackets before the port.
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return new Promise((resolve, reject) => {
    const credentials = opts.tls
      ? ServerCredentials.createSsl(null, [
          { cert_chain: opts.tls.cert, private_key: opts.tls.key },
        ])
      : ServerCredentials.createInsecure();
    server.bindAsync(`${host}:${opts.port}`, credentials, (err, port) => {
      if (err) {
        reject(err);
        return;
      }
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              server.forceShutdown();
              done();
            }, 5000);
            server.tryShutdown(() => {
              clearTimeout(timer);
              done();
            });
          }),
      });
    });
  });
}
