import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DecodeError } from './proto-reader';
import {
  GrpcCode,
  exportResponseJson,
  exportResponseProto,
  statusJson,
  statusProto,
} from './otlp-response';
import type { InflightBudget } from './inflight';
import {
  Hold,
  HttpFailure,
  discardRest,
  gunzipLimited,
  isClientAbort,
  overBudget,
  readBody,
  tooLarge,
} from './http-body';
import type { Pipeline } from './pipeline';
import type { WriterHealth } from './writer-faults';
import { NO_OBSERVER, outcomeOfStatus, type IngestObserver } from './observer';
import { checkBearer, type TokenSet } from '../foundation';

/**
 * OTLP/HTTP: `POST /v1/traces` and `POST /v1/metrics` with application/x-protobuf or application/json, optionally
 * gzip-compressed. A plain node:http server (not the API's Fastify) because this path is all
 * about bytes: bounded body reads, bounded decompression, no JSON schema layer.
 */

type Encoding = 'protobuf' | 'json';

/** The media type without parameters (`application/json; charset=utf-8` -> json). */
function requestEncoding(contentType: string | undefined): Encoding | undefined {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (media === 'application/x-protobuf' || media === 'application/protobuf') return 'protobuf';
  if (media === 'application/json') return 'json';
  return undefined;
}

function contentEncoding(header: string | undefined): 'gzip' | 'identity' | undefined {
  const v = (header ?? '').trim().toLowerCase();
  if (v === '' || v === 'identity') return 'identity';
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  return undefined;
}

function send(
  res: ServerResponse,
  status: number,
  enc: Encoding,
  body: Buffer | string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'Content-Type': enc === 'json' ? 'application/json' : 'application/x-protobuf',
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

function sendFailure(
  res: ServerResponse,
  enc: Encoding,
  f: HttpFailure,
  closeConnection: boolean,
): void {
  const headers: Record<string, string> = {};
  if (f.retryAfterSeconds !== undefined) headers['Retry-After'] = String(f.retryAfterSeconds);
  if (closeConnection) headers.Connection = 'close';
  const body =
    enc === 'json'
      ? statusJson(f.code, f.message, f.retryAfterSeconds)
      : statusProto(f.code, f.message, f.retryAfterSeconds);
  send(res, f.status, enc, body, headers);
}

export interface HttpReceiverOptions {
  host: string;
  port: number;
  maxBytes: number;
  bodyIdleTimeoutMs: number;
  budget: InflightBudget;
  /** One per signal, served at `/v1/<signal name>`. */
  pipelines: readonly Pipeline[];
  log: (message: string) => void;
  /** Bearer tokens a request must carry (open when empty). */
  tokens: TokenSet;
  observer?: IngestObserver;
  /** PEM certificate and key: the receiver speaks HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
}

export interface HttpReceiver {
  port: number;
  close(): Promise<void>;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: HttpReceiverOptions,
  hold: Hold,
): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  const enc = requestEncoding(req.headers['content-type']);
  const replyEnc: Encoding = enc ?? 'json';
  const verdict = checkBearer(opts.tokens, req.headers.authorization);
  if (verdict !== 'ok') {
    res.setHeader('WWW-Authenticate', 'Bearer realm="tailscope-otlp"');
    throw new HttpFailure(
      401,
      GrpcCode.UNAUTHENTICATED,
      verdict === 'missing'
        ? 'OTLP needs an ingest token (TAILSCOPE_INGEST_TOKENS is set): send "Authorization: Bearer <token>" (the exporter\'s headers setting)'
        : 'the bearer token is not one of TAILSCOPE_INGEST_TOKENS',
    );
  }
  const pipeline = opts.pipelines.find((p) => `/v1/${p.signal.name}` === path);
  if (!pipeline) {
    throw new HttpFailure(
      404,
      GrpcCode.NOT_FOUND,
      `no OTLP endpoint at ${path ?? ''}: traces go to POST /v1/traces, metrics to POST /v1/metrics`,
    );
  }
  const { signal } = pipeline;
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    throw new HttpFailure(
      405,
      GrpcCode.UNIMPLEMENTED,
      `method ${req.method ?? ''} not allowed: use POST`,
    );
  }
  if (!enc) {
    throw new HttpFailure(
      415,
      GrpcCode.INVALID_ARGUMENT,
      `unsupported Content-Type ${JSON.stringify(req.headers['content-type'] ?? '')}: use application/x-protobuf or application/json`,
    );
  }
  const compression = contentEncoding(req.headers['content-encoding']);
  if (!compression) {
    throw new HttpFailure(
      415,
      GrpcCode.INVALID_ARGUMENT,
      `unsupported Content-Encoding ${JSON.stringify(req.headers['content-encoding'] ?? '')}: use gzip or none`,
    );
  }
  const length = req.headers['content-length'];
  const declared = Number(length ?? '0');
  if (declared > opts.maxBytes) throw tooLarge(opts.maxBytes, 'request body');
  const stuck = pipeline.stuck();
  if (stuck) throw writerStuck(stuck, signal.plural);
  if (pipeline.isFull()) throw queueFull();
  // The body's share of the in-flight budget is taken before a byte of it is read.
  if (length !== undefined && !hold.take(declared)) throw overBudget(opts.budget);
  if (length === undefined && opts.budget.isFull()) throw overBudget(opts.budget);
  const body = await readBody(
    req,
    opts.maxBytes,
    opts.bodyIdleTimeoutMs,
    length === undefined ? hold : undefined,
  );
  let raw = body;
  if (compression === 'gzip') {
    raw = await gunzipLimited(body, opts.maxBytes);
    if (!hold.take(raw.length)) throw overBudget(opts.budget);
  }
  const payload = enc === 'json' ? signal.fromJson(raw) : raw;
  const result = await pipeline.submit(payload, 'http');
  if (result.status === 'full') throw queueFull();
  (opts.observer ?? NO_OBSERVER).request('http', 'accepted');
  const partial =
    result.message !== '' ? { rejected: result.rejected, errorMessage: result.message } : undefined;
  send(
    res,
    200,
    replyEnc,
    replyEnc === 'json'
      ? exportResponseJson(partial, signal.rejectedField)
      : exportResponseProto(partial),
  );
}

/**
 * How much of a refused body is read off: up to twice the size limit (at least 64 MiB), for as
 * long as the body idle timeout between chunks, 30 s in all.
 */
function discardLimits(opts: HttpReceiverOptions) {
  return {
    maxBytes: Math.max(2 * opts.maxBytes, 64 * 1024 * 1024),
    idleMs: opts.bodyIdleTimeoutMs,
    totalMs: 30_000,
  };
}

/** No insert can finish now: 503 with Retry-After, nothing logged, until the writer recovers. */
function writerStuck(health: WriterHealth, items: string): HttpFailure {
  return new HttpFailure(
    503,
    GrpcCode.UNAVAILABLE,
    `cannot store ${items} now (${health.reason}): retry later`,
    health.retryAfterSeconds ?? 1,
  );
}

function queueFull(): HttpFailure {
  return new HttpFailure(429, GrpcCode.UNAVAILABLE, 'write queue is full: retry later', 1);
}

export function startHttpReceiver(opts: HttpReceiverOptions): Promise<HttpReceiver> {
  // The whole request within 2 minutes (Node's default is 5); a stalled body meets the idle
  // timeout in readBody much sooner.
  const serverOptions = { keepAliveTimeout: 65_000, requestTimeout: 120_000, ...opts.tls };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const hold = new Hold(opts.budget);
    res.once('close', () => {
      hold.release();
    });
    handle(req, res, opts, hold).catch((err: unknown) => {
      hold.release();
      const enc = requestEncoding(req.headers['content-type']) ?? 'json';
      if (isClientAbort(err, req)) {
        // Clients give up (timeouts, shutdowns): routine, not a server error.
        res.destroy();
        return;
      }
      let f: HttpFailure;
      if (err instanceof HttpFailure) f = err;
      else if (err instanceof DecodeError)
        f = new HttpFailure(400, GrpcCode.INVALID_ARGUMENT, `undecodable request: ${err.message}`);
      else {
        opts.log(`otlp/http: ${String(err)}`);
        f = new HttpFailure(
          503,
          GrpcCode.UNAVAILABLE,
          'could not store the request: retry later',
          1,
        );
      }
      (opts.observer ?? NO_OBSERVER).request('http', outcomeOfStatus(f.status, f.code));
      if (req.complete) {
        sendFailure(res, enc, f, false);
        return;
      }
      if (f.status === 408) {
        // The body stalled: nothing is coming that could be read off.
        sendFailure(res, enc, f, true);
        res.once('finish', () => req.destroy());
        return;
      }
      // Answered before the body was read to its end: the rest is read off (bounded) and thrown
      // away, and the connection stays usable. Closing it instead (Node destroys the socket
      // after a `Connection: close` answer) would reset it with the body unread, and a client
      // still sending would lose the answer.
      sendFailure(res, enc, f, false);
      discardRest(req, discardLimits(opts));
    });
  };
  const server: Server = opts.tls
    ? createHttpsServer(serverOptions, onRequest)
    : createServer(serverOptions, onRequest);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => {
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
