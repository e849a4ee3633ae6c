import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import protobuf from 'protobufjs/minimal';
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { loadSettings, type Settings } from '../src/config';
import { migrate, openStore, sql, type Store } from '../src/store';
import { startIngest, type IngestHandle, type IngestTuning } from '../src/ingest';
import { fanoutSpans, protobufRequest } from '../src/testing/otlp-fixtures';

/**
 * The write queue's bound and the write-ahead log's exactly-once replay, on the real pipeline
 * and the embedded engine. The writer is tuned to hold small batches back, so the queue stays
 * full until we ask it to flush: no timing involved.
 */

let dir: string;
let store: Store;
let settings: Settings;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-backpressure-'));
  store = openStore({ dataDir: dir });
  await migrate(store);
  settings = loadSettings(
    {},
    { dataDir: dir, port: '0', otlpHttpPort: '0', otlpGrpcPort: '0', queueMaxSpans: '1000' },
  );
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const HOLD: Partial<IngestTuning> = { minBatchSpans: 1_000_000, maxDelayMs: 600_000 };

const count = async (table: string) => {
  const rows = await store.query<{ n: string }>(
    sql`SELECT toString(count()) AS n FROM ${{ kind: 'param', value: table, type: 'Identifier' }}`,
  );
  return Number(rows[0]?.n ?? 0);
};

function post(ingest: IngestHandle, body: Buffer, type = 'application/x-protobuf') {
  return fetch(`http://127.0.0.1:${ingest.httpPort}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
  });
}

function grpcExport(ingest: IngestHandle, body: Buffer): Promise<ServiceError | null> {
  const client = new Client(`127.0.0.1:${ingest.grpcPort}`, credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      (err) => {
        client.close();
        resolve(err);
      },
    );
  });
}

describe('back-pressure', () => {
  it('answers 429 with Retry-After (gRPC UNAVAILABLE with RetryInfo) while the queue is full', async () => {
    const ingest = await startIngest({ store, settings, log: false, tuning: HOLD });
    try {
      const before = await count('otel_traces');
      expect((await post(ingest, protobufRequest(fanoutSpans(1000, 1)))).status).toBe(200);
      expect(ingest.queuedSpans()).toBe(1000);

      const full = await post(ingest, protobufRequest(fanoutSpans(10, 2)));
      expect(full.status).toBe(429);
      expect(full.headers.get('retry-after')).toBe('1');
      const r = protobuf.Reader.create(new Uint8Array(await full.arrayBuffer()));
      expect(r.uint32()).toBe(1 << 3);
      expect(r.int32()).toBe(status.UNAVAILABLE);

      const json = await post(ingest, Buffer.from('{"resourceSpans":[]}'), 'application/json');
      expect(json.status).toBe(429);
      expect(await json.json()).toMatchObject({ code: 14, message: /queue is full/ });

      const err = await grpcExport(ingest, protobufRequest(fanoutSpans(10, 3)));
      expect(err?.code).toBe(status.UNAVAILABLE);
      const details = err?.metadata.get('grpc-status-details-bin')[0];
      expect(Buffer.isBuffer(details) && details.includes('google.rpc.RetryInfo')).toBe(true);

      // Nothing refused was queued or logged; once the queue drains, requests are welcome again.
      expect(ingest.queuedSpans()).toBe(1000);
      await ingest.flush();
      expect(ingest.queuedSpans()).toBe(0);
      expect(await count('otel_traces')).toBe(before + 1000);
      expect((await post(ingest, protobufRequest(fanoutSpans(10, 4)))).status).toBe(200);
      expect(ingest.spansPerSecond()).toBeGreaterThan(0);
    } finally {
      await ingest.close();
    }
  });
});

describe('write-ahead log replay', () => {
  it('inserts a batch interrupted after the engine committed it exactly once', async () => {
    let ingest = await startIngest({
      store,
      settings: { ...settings, queueMaxSpans: 100_000 },
      log: false,
    });
    const bodies = Array.from({ length: 5 }, (_, i) => protobufRequest(fanoutSpans(200, 100 + i)));
    for (const b of bodies) expect((await post(ingest, b)).status).toBe(200);
    await ingest.close();
    const traces = await count('otel_traces');
    const typed = await count('tailscope_typed_attributes');

    // As if the process died after the insert returned but before `C` reached the batch log.
    const log = join(dir, 'ingest', 'wal', 'batches.log');
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    const [begin, commit] = lines.slice(-2);
    expect(begin).toMatch(/^B \d+ \d+$/);
    expect(commit).toMatch(/^C \d+$/);
    writeFileSync(log, lines.slice(0, -1).join('\n') + '\n');

    ingest = await startIngest({ store, settings, log: false });
    await ingest.close();
    expect(await count('otel_traces')).toBe(traces);
    expect(await count('tailscope_typed_attributes')).toBe(typed);
    // The same batch was inserted again (same records, same token) and the engine dropped it.
    expect(readFileSync(log, 'utf8').trimEnd().split('\n').slice(-3)).toEqual([
      begin,
      begin,
      commit,
    ]);
  });
});
