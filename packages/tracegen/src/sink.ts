/**
 * Where batches go (Node only): OTLP/HTTP POSTs with retries, or files in a directory. The
 * generator stays I/O-free; these walk its batches one at a time.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { TraceGenerator } from './generator';
import { encodeOtlpJson } from './otlp-json';
import { encodeOtlpProtobuf } from './otlp-protobuf';
import { stream } from './random';
import { TracegenError } from './spec';
import { otlpTracesUrl, statusText } from './status-text';

const gzip = promisify(gzipCallback);

export type OtlpFormat = 'protobuf' | 'json';

export interface Progress {
  batches: number;
  requests: number;
  spans: number;
  bytes: number;
}

function encode(format: OtlpFormat, batch: Parameters<typeof encodeOtlpJson>[0]): Uint8Array {
  return format === 'json' ? Buffer.from(encodeOtlpJson(batch)) : encodeOtlpProtobuf(batch);
}

/** Truth as JSON: distributions keep their spec, functions drop out. */
export function truthJson(gen: TraceGenerator): string {
  return JSON.stringify(gen.truth, null, 2) + '\n';
}

export interface FileOptions {
  format?: OtlpFormat;
  onBatch?: (p: Progress) => void;
}

/**
 * Writes batch-000001.pb (or .json), ... and truth.json into `dir` (created if missing).
 * Refuses a directory that already holds batch files, so two runs never mix.
 */
export async function writeOtlpFiles(
  gen: TraceGenerator,
  dir: string,
  options: FileOptions = {},
): Promise<Progress & { files: string[] }> {
  const format = options.format ?? 'protobuf';
  await mkdir(dir, { recursive: true });
  const existing = (await readdir(dir)).filter((f) => /^batch-\d+\.(pb|json)$/.test(f));
  if (existing.length > 0)
    throw new TracegenError(
      `--out ${dir} already holds batch files (${existing[0] ?? ''}, ...): choose an empty directory`,
    );
  const progress: Progress = { batches: 0, requests: 0, spans: 0, bytes: 0 };
  const files: string[] = [];
  const ext = format === 'json' ? 'json' : 'pb';
  for (const batch of gen.batches()) {
    const body = encode(format, batch);
    const file = join(dir, `batch-${String(batch.index + 1).padStart(6, '0')}.${ext}`);
    await writeFile(file, body);
    files.push(file);
    count(progress, batch.requestCount, batch.spanCount, body.length);
    options.onBatch?.(progress);
  }
  await writeFile(join(dir, 'truth.json'), truthJson(gen));
  return { ...progress, files };
}

function count(p: Progress, requests: number, spans: number, bytes: number) {
  p.batches++;
  p.requests += requests;
  p.spans += spans;
  p.bytes += bytes;
}

export interface PostOptions {
  format?: OtlpFormat;
  /** Sent as `Authorization: Bearer` (a receiver with TAILSCOPE_INGEST_TOKENS). */
  token?: string;
  gzip?: boolean;
  /** Attempts per request, first included; default 8. */
  maxAttempts?: number;
  /** Requests in flight; default 2. */
  concurrency?: number;
  /** First backoff, doubled per retry up to maxBackoffMs; defaults 200 ms and 10 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Longest Retry-After honoured; default 60 s. */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout; default 30 s. */
  timeoutMs?: number;
  onBatch?: (p: Progress) => void;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);

/**
 * POSTs every batch to an OTLP/HTTP traces endpoint (e.g. http://127.0.0.1:4318/v1/traces, or the
 * base URL http://127.0.0.1:4318, to which `/v1/traces` is added as SDKs do).
 */
export async function postOtlp(
  gen: TraceGenerator,
  url: string,
  options: PostOptions = {},
): Promise<Progress & { retries: number }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new TracegenError(`--otlp must be an http(s) URL, got '${url}'`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new TracegenError(`--otlp must be an http(s) URL, got '${url}'`);
  target = otlpTracesUrl(target);
  const format = options.format ?? 'protobuf';
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const progress: Progress = { batches: 0, requests: 0, spans: 0, bytes: 0 };
  const state: { retries: number; failure: Error | null } = { retries: 0, failure: null };
  const inFlight = new Set<Promise<void>>();
  for (const batch of gen.batches()) {
    let body = encode(format, batch);
    if (options.gzip) body = await gzip(body);
    const { requestCount, spanCount } = batch;
    const sent = send(target, body, format, options, state).then(
      () => {
        count(progress, requestCount, spanCount, body.length);
        options.onBatch?.(progress);
      },
      (err: unknown) => {
        state.failure ??= err instanceof Error ? err : new Error(JSON.stringify(err));
      },
    );
    const tracked = sent.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (state.failure) break;
  }
  await Promise.all(inFlight);
  if (state.failure) throw state.failure;
  return { ...progress, retries: state.retries };
}

async function send(
  url: URL,
  body: Uint8Array,
  format: OtlpFormat,
  o: PostOptions,
  state: { retries: number },
): Promise<void> {
  const maxAttempts = o.maxAttempts ?? 8;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const jitter = stream(String(body.length), 'retry-jitter');
  const headers: Record<string, string> = {
    'content-type': format === 'json' ? 'application/json' : 'application/x-protobuf',
  };
  if (o.gzip) headers['content-encoding'] = 'gzip';
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let last = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let retryAfterMs: number | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
      });
      const answer = new Uint8Array(await res.arrayBuffer());
      if (res.ok) return;
      last = `HTTP ${res.status}: ${statusText(res.headers.get('content-type'), answer).slice(0, 200)}`;
      if (!RETRY_STATUS.has(res.status))
        throw new TracegenError(`POST ${url.href} failed with ${last}`);
      retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), o.maxRetryAfterMs ?? 60_000);
    } catch (err) {
      if (err instanceof TracegenError) throw err;
      last = err instanceof Error ? err.message : String(err);
    }
    if (attempt === maxAttempts) break;
    state.retries++;
    // Full jitter on the exponential backoff, unless the server said when to come back.
    const cap = Math.min(o.maxBackoffMs ?? 10_000, (o.backoffMs ?? 200) * 2 ** (attempt - 1));
    await sleep(retryAfterMs ?? cap * (0.5 + 0.5 * jitter.float()));
  }
  throw new TracegenError(`POST ${url.href} failed after ${maxAttempts} attempts: ${last}`);
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(
  value: string | null,
  maxMs: number,
  now = Date.now(),
): number | null {
  if (!value) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(maxMs, Math.max(0, ms));
}
