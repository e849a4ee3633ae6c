import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMetricsRequest } from '../src/ingest/decode-metrics';
import { metricsJsonToProtobuf } from '../src/ingest/decode-metrics-json';
import { DecodeError } from '../src/ingest/proto-reader';
import type { Running } from '../src/server/serve';
import { JSON_TYPE, PROTO, startServer } from './ingest-support';
import { metricRows, metricsJson } from './metrics-support';

/**
 * Property-based fuzzing of the metrics decoder and receiver, fixed seeds: random bytes and
 * mutations of a real request either decode or throw a DecodeError (never anything else, so
 * never a 5xx), the server answers every such body with a 2xx or 4xx, and a valid request is
 * still stored afterwards.
 */

const VALID = metricsJsonToProtobuf(Buffer.from(metricsJson('fuzz-seed', true)));

/** A real request with `n` bytes overwritten, some bytes cut, or random bytes appended. */
const mutated = fc
  .tuple(
    fc.array(fc.tuple(fc.nat(VALID.length - 1), fc.integer({ min: 0, max: 255 })), {
      maxLength: 8,
    }),
    fc.nat(VALID.length),
    fc.uint8Array({ maxLength: 32 }),
  )
  .map(([writes, cut, tail]) => {
    const b = Buffer.from(VALID);
    for (const [at, v] of writes) b[at] = v;
    return Buffer.concat([b.subarray(0, Math.max(cut, VALID.length - 64)), tail]);
  });

const bodies = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((a) => Buffer.from(a)),
  mutated,
);

describe('the metrics decoder under fuzzing', () => {
  it('decodes or throws a DecodeError, nothing else', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        try {
          const d = decodeMetricsRequest(body);
          for (const t of d.tables) t.block();
          expect(d.accepted + d.rejected).toBeGreaterThanOrEqual(0);
        } catch (err) {
          expect(err).toBeInstanceOf(DecodeError);
        }
      }),
      { numRuns: 2000, seed: 2701 },
    );
  });

  it('turns malformed JSON into a DecodeError', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (text) => {
        try {
          metricsJsonToProtobuf(Buffer.from(`{"resourceMetrics":[${text}]}`));
        } catch (err) {
          expect(err).toBeInstanceOf(DecodeError);
        }
      }),
      { numRuns: 500, seed: 2702 },
    );
  });
});

describe('the metrics receiver under fuzzing', () => {
  let dir: string;
  let running: Running;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-fuzz-'));
    running = await startServer(dir);
  });
  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every fuzzed body with a 2xx or 4xx and still stores a valid request', async () => {
    const samples = fc.sample(bodies, { numRuns: 60, seed: 2703 });
    for (const body of samples) {
      const res = await fetch(`${running.urls.otlpHttp}/v1/metrics`, {
        method: 'POST',
        headers: PROTO,
        body,
      });
      expect(res.status).toBeLessThan(500);
      await res.arrayBuffer();
    }
    const ok = await fetch(`${running.urls.otlpHttp}/v1/metrics`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: metricsJson('after-fuzz'),
    });
    expect(ok.status).toBe(200);
    await running.ingest.flush();
    expect(await metricRows(running, 'otel_metrics_gauge', 'after-fuzz')).toHaveLength(1);
    expect(running.ingest.status().metrics.deadLetter.batches).toBe(0);
  });
});
