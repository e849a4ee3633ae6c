import {
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { DecodeError } from './proto-reader';
import { exportResponseProto, statusProto } from './otlp-response';
import type { Pipeline } from './pipeline';

/**
 * OTLP/gRPC: opentelemetry.proto.collector.trace.v1.TraceService/Export. Messages stay bytes
 * (identity (de)serializers) and go through the same decoder and pipeline as OTLP/HTTP. grpc-js
 * handles `grpc-encoding: gzip` and caps decompressed messages at max_receive_message_length.
 */

const identity = (b: Buffer): Buffer => b;

const TRACE_SERVICE: ServiceDefinition = {
  Export: {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

export interface GrpcReceiverOptions {
  host: string;
  port: number;
  maxBytes: number;
  pipeline: Pipeline;
  log: (message: string) => void;
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

export function startGrpcReceiver(opts: GrpcReceiverOptions): Promise<GrpcReceiver> {
  const server = new Server({
    'grpc.max_receive_message_length': opts.maxBytes,
  });
  server.addService(TRACE_SERVICE, {
    Export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
      if (opts.pipeline.isFull()) {
        fail(callback, GrpcStatus.UNAVAILABLE, 'write queue is full: retry later', 1);
        return;
      }
      opts.pipeline.submit(call.request).then(
        (result) => {
          if (result.status === 'full') {
            fail(callback, GrpcStatus.UNAVAILABLE, 'write queue is full: retry later', 1);
            return;
          }
          const partial =
            result.rejected > 0
              ? { rejectedSpans: result.rejected, errorMessage: result.message }
              : undefined;
          callback(null, exportResponseProto(partial));
        },
        (err: unknown) => {
          if (err instanceof DecodeError) {
            fail(callback, GrpcStatus.INVALID_ARGUMENT, `undecodable request: ${err.message}`);
            return;
          }
          opts.log(`otlp/grpc: ${String(err)}`);
          fail(callback, GrpcStatus.UNAVAILABLE, 'could not store the request: retry later', 1);
        },
      );
    },
  });
  // An IPv6 address needs brackets before the port.
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${opts.port}`, ServerCredentials.createInsecure(), (err, port) => {
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
