import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceRows } from '@tailscope/analysis';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store/sql/template';
import { selectHostEvidence } from '../src/store/metrics/evidence';
import { startServer } from './ingest-support';

/**
 * A real OpenTelemetry Collector (issue #27): the hostmetrics receiver, built from the Go module
 * proxy (collectors/otelcol/build, which .ci/run builds into node_modules/.cache/tailscope-bin),
 * scrapes this machine every second with collectors/otelcol/hostmetrics-to-tailscope.yaml and
 * exports OTLP/HTTP (protobuf, gzip) to a real server. The exporter's tables then hold the
 * receiver's metrics under the configured host.name, and the evidence query reads steal,
 * paging and network signals for that host from them. .ci/run sets OTELCOL_REQUIRED where it
 * built the Collector, so a missing binary fails there instead of skipping.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = process.env.OTELCOL_BIN ?? join(root, 'node_modules/.cache/tailscope-bin/otelcol');
const CONFIG = join(root, 'collectors/otelcol/hostmetrics-to-tailscope.yaml');
const HOST = 'otelcol-test-host';

const missing = existsSync(BIN)
  ? undefined
  : `no Collector at ${BIN} (go build in collectors/otelcol/build)`;
if (missing && process.env.OTELCOL_REQUIRED === '1')
  throw new Error(`the Collector test cannot run: ${missing}`);
if (missing) console.warn(`otelcol-hostmetrics.int.test.ts skipped: ${missing}`);

let dir: string;
let running: Running;
let collector: ChildProcess | undefined;
let log = '';
let fromNs = 0n;

async function points(): Promise<number> {
  const rows = await running.store.query<{ n: string }>(sql`
    SELECT toString(count()) AS n FROM otel_metrics_sum
    WHERE MetricName = 'system.cpu.time' AND ResourceAttributes['host.name'] = ${HOST}`);
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), 'tailscope-otelcol-'));
  running = await startServer(dir);
  fromNs = BigInt(Date.now() - 1000) * 1_000_000n;
  collector = spawn(BIN, ['--config', CONFIG], {
    env: {
      ...process.env,
      TAILSCOPE_OTLP_ENDPOINT: running.urls.otlpHttp,
      HOST_NAME: HOST,
      SCRAPE_INTERVAL: '1s',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  collector.stderr?.setEncoding('utf8').on('data', (d: string) => (log += d));
  // Eight scrapes of every CPU state (each a cumulative point): rates need two windows.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && collector.exitCode === null) {
    await running.ingest.flush();
    if ((await points()) >= 8 * 8) break;
    await sleep(1000);
  }
  const exited = new Promise((resolve) => collector?.once('exit', resolve));
  collector.kill('SIGINT');
  await exited;
  await running.ingest.flush();
}, 120_000);

afterAll(async () => {
  collector?.kill('SIGKILL');
  if (missing) return;
  await running.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(missing !== undefined)('a real OpenTelemetry Collector with hostmetrics', () => {
  it("stores the receiver's metrics in the exporter's tables under the configured host", async () => {
    expect(await points(), log).toBeGreaterThanOrEqual(64);
    const rows = await running.store.query<{ metric: string; table: string; states: string[] }>(sql`
      SELECT MetricName AS metric, '_sum' AS table, groupUniqArray(Attributes['state']) AS states
      FROM otel_metrics_sum WHERE ResourceAttributes['host.name'] = ${HOST} GROUP BY metric
      UNION ALL
      SELECT MetricName AS metric, '_gauge' AS table, groupUniqArray(Attributes['state']) AS states
      FROM otel_metrics_gauge WHERE ResourceAttributes['host.name'] = ${HOST} GROUP BY metric`);
    const byName = new Map(rows.map((r) => [r.metric, r]));
    expect(byName.get('system.cpu.time')?.table).toBe('_sum');
    expect(byName.get('system.cpu.time')?.states).toEqual(
      expect.arrayContaining(['idle', 'steal']),
    );
    expect(byName.get('system.cpu.utilization')?.table).toBe('_gauge');
    // Outside the evidence table, stored all the same.
    expect(byName.has('system.memory.usage')).toBe(true);
    expect(byName.has('system.network.io')).toBe(true);
  });

  it('gives steal, paging and network evidence for that host', async () => {
    const evidence = evidenceRows(
      await selectHostEvidence(running.store, {
        fromNs,
        toNs: BigInt(Date.now() + 1000) * 1_000_000n,
        windowNs: 2_000_000_000n,
        hosts: [HOST],
        maxRows: 10_000,
      }),
    );
    const signals = new Set(evidence.map((e) => e.signal));
    for (const s of ['neighbour-pressure', 'memory-pressure', 'network'] as const)
      expect(signals, `${s} among ${[...signals].join(', ')}`).toContain(s);
    // Steal of a machine that is not a VM's guest (or barely): a rate near 0, never negative.
    const steal = evidence.filter(
      (e) => e.signal === 'neighbour-pressure' && e.metric === 'system.cpu.time',
    );
    expect(steal.length).toBeGreaterThan(0);
    for (const e of steal) expect(e.value).toBeGreaterThanOrEqual(0);
  });
});
