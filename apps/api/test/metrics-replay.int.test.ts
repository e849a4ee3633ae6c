import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchLog } from '../src/ingest/batch-log';
import { metricsJsonToProtobuf } from '../src/ingest/decode-metrics-json';
import { WriteAheadLog } from '../src/ingest/wal';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store';
import { startServer } from './ingest-support';

/**
 * Acknowledged means durable for metrics too: what a crash leaves in the metrics write-ahead
 * log (requests fsynced and answered, never inserted) is stored on the next start, each point
 * exactly once; a restart whose batch log still shows that batch begun (a crash between the
 * insert and its commit line) adds nothing. The lane's batch log, tokens and writer are the
 * traces' code (kill -9 tested in ingest-durability.int.test.ts).
 */

const dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-replay-'));
let running: Running | undefined;

afterAll(async () => {
  await running?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A gauge request of `n` points of one run, values 0..n-1. */
function gaugeRequest(run: string, n: number): Buffer {
  const points = Array.from({ length: n }, (_, i) => ({
    timeUnixNano: String(1767607200000000000n + BigInt(i) * 1000000000n),
    asDouble: i,
    attributes: [{ key: 'i', value: { intValue: String(i) } }],
  }));
  return metricsJsonToProtobuf(
    Buffer.from(
      JSON.stringify({
        resourceMetrics: [
          {
            resource: { attributes: [{ key: 'test.run', value: { stringValue: run } }] },
            scopeMetrics: [{ metrics: [{ name: 'replay.gauge', gauge: { dataPoints: points } }] }],
          },
        ],
      }),
    ),
  );
}

async function rows(r: Running): Promise<{ run: string; n: string; distinct: string }[]> {
  return r.store.query(sql`
    SELECT ResourceAttributes['test.run'] AS run, toString(count()) AS n,
      toString(uniqExact(Attributes['i'])) AS distinct
    FROM otel_metrics_gauge GROUP BY run ORDER BY run`);
}

describe('a crash with acknowledged metrics in the write-ahead log', () => {
  it('stores each point exactly once on restart, and again after another restart', async () => {
    running = await startServer(dir);
    await running.close();
    running = undefined;
    const walDir = join(dir, 'ingest', 'metrics-wal');
    const batchLog = await BatchLog.open(walDir);
    const { id, applied } = batchLog.state;
    await batchLog.close();
    const { wal } = await WriteAheadLog.open({
      dir: walDir,
      id,
      segmentBytes: 1 << 30,
      appliedSeq: applied,
    });
    for (const [run, n] of [
      ['a', 50],
      ['b', 7],
      ['c', 300],
    ] as const)
      await wal.append(gaugeRequest(run, n), () => undefined);
    await wal.close();

    running = await startServer(dir);
    await running.ingest.flush();
    const expected = [
      { run: 'a', n: '50', distinct: '50' },
      { run: 'b', n: '7', distinct: '7' },
      { run: 'c', n: '300', distinct: '300' },
    ];
    expect(await rows(running)).toEqual(expected);
    expect(running.ingest.status().metrics.replayBacklogPoints).toBe(0);
    await running.close();

    // As if the commit line never reached the disk: the last batch is begun, not committed.
    const log = await BatchLog.open(walDir);
    const last = log.state.applied;
    await log.close();
    await appendFile(join(walDir, 'batches.log'), `B 1 ${last}\n`);
    running = await startServer(dir);
    await running.ingest.flush();
    expect(await rows(running)).toEqual(expected);
  });
});
