import { Client, compressionAlgorithms, credentials } from '@grpc/grpc-js';
import { loadSettings, type Settings } from '../src/config';
import type { IngestTuning } from '../src/ingest';
import { serve, type Running } from '../src/server/serve';
import { sql } from '../src/store';

/** Shared by the ingest-* tests of issue #15: a real server on a data directory, and its answers. */

export async function startServer(
  dataDir: string,
  overrides: Partial<Record<keyof Settings, string>> = {},
  ingestTuning: Partial<IngestTuning> = {},
  log = false,
): Promise<Running> {
  const settings = loadSettings(
    {},
    { dataDir, port: '0', otlpHttpPort: '0', otlpGrpcPort: '0', ...overrides },
  );
  return serve(settings, { ingestTuning, log });
}

export const PROTO = { 'content-type': 'application/x-protobuf' };
export const JSON_TYPE = { 'content-type': 'application/json' };

export function postOtlp(
  running: Running,
  body: Buffer | string,
  headers: Record<string, string> = PROTO,
): Promise<Response> {
  return fetch(`${running.urls.otlpHttp}/v1/traces`, { method: 'POST', headers, body });
}

export interface IngestStats {
  spans: number;
  oldestUnixNano: string | null;
  replayBacklogSpans: number;
  walDamage: { damagedRecords: number; damagedBytes: number; tornBytes: number };
  deadLetter: { batches: number; spans: number; lastReason: string | null };
}

export async function stats(running: Running): Promise<IngestStats> {
  const res = await fetch(`${running.urls.api}/api/v1/stats`);
  if (res.status !== 200) throw new Error(`stats answered ${res.status}`);
  return (await res.json()) as IngestStats;
}

/** Rows of otel_traces (all, or of one trace). */
export async function countSpans(running: Running, traceId?: string): Promise<number> {
  const rows = await running.store.query<{ n: string }>(
    traceId === undefined
      ? sql`SELECT toString(count()) AS n FROM otel_traces`
      : sql`SELECT toString(count()) AS n FROM otel_traces WHERE TraceId = ${traceId}`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Polls until `check` holds (a liveness guard, not a timing assertion). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** One unary Export call (traces by default; `path` names another service's Export). */
export function grpcExport(
  address: string,
  body: Buffer,
  compress = false,
  path = EXPORT_PATH,
): Promise<{ code: number; details: string; res?: Buffer }> {
  const client = new Client(address, credentials.createInsecure(), {
    'grpc.default_compression_algorithm': compress
      ? compressionAlgorithms.gzip
      : compressionAlgorithms.identity,
  });
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      (err, res) => {
        client.close();
        if (err) resolve({ code: err.code, details: err.details });
        else resolve({ code: 0, details: '', ...(res ? { res } : {}) });
      },
    );
  });
}

/** An OTLP/JSON span with explicit times (ns, as decimal strings) and attributes. */
export function timedSpan(
  traceId: string,
  i: number,
  startNs: bigint,
  endNs: bigint,
  attributes: Record<string, unknown>[] = [],
): Record<string, unknown> {
  return {
    traceId,
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `op-${i}`,
    kind: 2,
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(endNs),
    attributes,
  };
}

export const DAY_NS = 86_400_000_000_000n;
/** 2025-11-22, a day the tests' spans start from. */
export const T0 = 1_763_800_000_000_000_000n;
