import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzip } from 'node:zlib';
import { DecodeError } from './proto-reader';
import { jsonToProtobuf } from './decode-json';
import {
  GrpcCode,
  exportResponseJson,
  exportResponseProto,
  statusJson,
  statusProto,
} from './otlp-response';
import type { Pipeline } from './pipeline';

/**
 * OTLP/HTTP: `POST /v1/traces` with application/x-protobuf or application/json, optionally
 * gzip-compressed. A plain node:http server (not the API's Fastify) because this path is all
 * about bytes: bounded body reads, bounded decompression, no JSON schema layer.
 */

type Encoding = 'protobuf' | 'json';

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The media type without parameters (`application/json; charset=utf-8` -> json). */
export function requestEncoding(contentType: string | undefined): Encoding | undefined {
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

function tooLarge(maxBytes: number, what: string): HttpFailure {
  return new HttpFailure(
    413,
    GrpcCode.RESOURCE_EXHAUSTED,
    `${what} is larger than the limit of ${maxBytes} bytes (TAILSCOPE_OTLP_MAX_BYTES)`,
  );
}

/** Reads the body, refusing more than `maxBytes`; stops reading as soon as it is over. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        reject(tooLarge(maxBytes, 'request body'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed)
        resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}

/** gunzip with an output cap: a gzip bomb stops at `maxBytes`, it is never inflated whole. */
function gunzipLimited(body: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(body, { maxOutputLength: maxBytes }, (err, out) => {
      if (!err) resolve(out);
      else if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        reject(tooLarge(maxBytes, 'decompressed request body'));
      else
        reject(
          new HttpFailure(400, GrpcCode.INVALID_ARGUMENT, `body is not valid gzip: ${err.message}`),
        );
    });
  });
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
  pipeline: Pipeline;
  log: (message: string) => void;
}

export interface HttpReceiver {
  port: number;
  close(): Promise<void>;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: HttpReceiverOptions,
): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  const enc = requestEncoding(req.headers['content-type']);
  const replyEnc: Encoding = enc ?? 'json';
  if (path !== '/v1/traces') {
    throw new HttpFailure(
      404,
      GrpcCode.NOT_FOUND,
      `no OTLP endpoint at ${path ?? ''}: traces go to POST /v1/traces`,
    );
  }
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
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > opts.maxBytes) throw tooLarge(opts.maxBytes, 'request body');
  if (opts.pipeline.isFull()) throw queueFull();
  const body = await readBody(req, opts.maxBytes);
  const raw = compression === 'gzip' ? await gunzipLimited(body, opts.maxBytes) : body;
  const payload = enc === 'json' ? jsonToProtobuf(raw) : raw;
  const result = await opts.pipeline.submit(payload);
  if (result.status === 'full') throw queueFull();
  const partial =
    result.rejected > 0
      ? { rejectedSpans: result.rejected, errorMessage: result.message }
      : undefined;
  send(
    res,
    200,
    replyEnc,
    replyEnc === 'json' ? exportResponseJson(partial) : exportResponseProto(partial),
  );
}

/** Discards the rest of a body (up to `maxBytes`) so the keep-alive connection stays usable. */
function drainThen(req: IncomingMessage, maxBytes: number, then: () => void): void {
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) req.destroy();
  });
  req.once('end', then);
  req.resume();
}

function queueFull(): HttpFailure {
  return new HttpFailure(429, GrpcCode.UNAVAILABLE, 'write queue is full: retry later', 1);
}

export function startHttpReceiver(opts: HttpReceiverOptions): Promise<HttpReceiver> {
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    handle(req, res, opts).catch((err: unknown) => {
      const enc = requestEncoding(req.headers['content-type']) ?? 'json';
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
      if (req.complete) sendFailure(res, enc, f, false);
      else if (f.status === 429)
        drainThen(req, opts.maxBytes, () => {
          sendFailure(res, enc, f, false);
        });
      else {
        // A body that was not read to the end leaves the connection unusable: close it.
        sendFailure(res, enc, f, true);
        res.once('finish', () => req.destroy());
      }
    });
  });
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
