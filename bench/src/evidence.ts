import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { migrate, openStore, selectHostEvidence, sql } from '@tailscope/api';

/**
 * Evidence for 1,000 hosts over an hour (issue 27: under 500 ms): 1,000 hosts x 360 points
 * (10 s) of process.cpu.utilization and of a cumulative system.cpu.time{state=steal}, written
 * with INSERT ... SELECT (the pre-aggregate's views run on it: the insert time includes them),
 * then selectHostEvidence over the hour in 10 s windows for all hosts, from the pre-aggregate
 * and, for comparison, from the exporter's tables alone (a read-only store over a Collector's
 * tables, which has no pre-aggregate). Prints the median of 5 runs of each, alternating.
 */
const HOSTS = 1000;
const POINTS = 360;
const T0 = 1767607200;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-bench-evidence-'));
  const store = openStore({ dataDir: dir });
  try {
    await migrate(store);
    const common = sql`'bench' AS ServiceName, map('host.name', concat('h', toString(number % ${HOSTS}))) AS ResourceAttributes,
      toDateTime64(${T0} + intDiv(number, ${HOSTS}) * 10, 9) AS TimeUnix, toDateTime64(${T0}, 9) AS StartTimeUnix`;
    const inserted = performance.now();
    await store.command(sql`INSERT INTO otel_metrics_gauge (ServiceName, ResourceAttributes, TimeUnix, StartTimeUnix, MetricName, Value)
      SELECT ${common}, 'process.cpu.utilization', (number % 97) / 100 FROM numbers(${HOSTS * POINTS})`);
    await store.command(sql`INSERT INTO otel_metrics_sum (ServiceName, ResourceAttributes, TimeUnix, StartTimeUnix, MetricName, Value, Attributes, AggregationTemporality, IsMonotonic)
      SELECT ${common}, 'system.cpu.time', intDiv(number, ${HOSTS}) * 0.5, map('state', 'steal'), 2, true FROM numbers(${HOSTS * POINTS})`);
    const insertMs = performance.now() - inserted;
    const hosts = Array.from({ length: HOSTS }, (_, i) => `h${String(i)}`);
    const q = {
      fromNs: BigInt(T0) * 1_000_000_000n,
      toNs: BigInt(T0 + POINTS * 10) * 1_000_000_000n,
      windowNs: 10_000_000_000n,
      hosts,
      maxRows: 1_000_000,
    };
    const times = { windows: [] as number[], raw: [] as number[] };
    const rows = { windows: 0, raw: 0 };
    for (let i = 0; i < 5; i++)
      for (const path of ['windows', 'raw'] as const) {
        store.accelerators.metricWindows = path === 'windows';
        const t = performance.now();
        rows[path] = (await selectHostEvidence(store, q)).value.length;
        times[path].push(performance.now() - t);
      }
    const fmt = (ts: number[]) => {
      const s = [...ts].sort((a, b) => a - b);
      return `median ${(s[2] ?? 0).toFixed(0)} ms (min ${(s[0] ?? 0).toFixed(0)})`;
    };
    console.log(
      `evidence: ${String(HOSTS)} hosts x ${String(POINTS)} points x 2 metrics (insert with views ${insertMs.toFixed(0)} ms), ${String(rows.windows)} rows, ${fmt(times.windows)}`,
    );
    console.log(
      `  from the exporter's tables alone (no pre-aggregate): ${String(rows.raw)} rows, ${fmt(times.raw)}`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
