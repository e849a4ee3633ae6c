import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom, type SpanRecord } from '@tailscope/analysis';
import type { Store } from '../src/store';
import { migrate } from '../src/store/schema/migrations';
import { sql } from '../src/store/sql/template';
import {
  hasSpanCounts,
  SPAN_COUNTS_PROJECTION,
  spansPerBucket,
} from '../src/store/traces/span-counts';
import { selectSamplingInfo } from '../src/store/traces/sampling';
import { openTempStore, T0_NS } from './analysis-support';
import { insertWithTraceStates, TRACE_STATES } from './sampling-support';

/**
 * The spans table's span counts (migration 14, store/traces/span-counts.ts) against the spans'
 * own starts, on a table whose parts are mixed: the first batch written while the table had no
 * projection (as a store migrated before version 14 holds until the materialization reaches
 * it), the second after it was added. Counts per bucket and the sampling block must be exactly
 * what the spans themselves give, for aligned windows of every bucket size the callers use and
 * for ranges cut anywhere.
 */

const S = 1_000_000_000n;
const MINUTES = 12;

function spans(seed: number, n: number): SpanRecord[] {
  const r = new SeededRandom(seed);
  return Array.from({ length: n }, (_, i) => ({
    traceId: `${seed.toString(16).padStart(2, '0')}${i.toString(16).padStart(30, '0')}`,
    spanId: i.toString(16).padStart(16, '0'),
    parentSpanId: '',
    kind: 'Server',
    service: ['front', 'kv', 'db'][i % 3] as string,
    name: ['GET /a', 'get'][i % 2] as string,
    // Anywhere in 12 minutes, to the nanosecond: bucket edges are crossed in both directions.
    startNs: T0_NS + BigInt(Math.floor(r.float() * MINUTES * 60 * 1e9)),
    durationNs: 1_000_000n,
    resource: {},
    attributes: {},
  }));
}

describe('span counts from the spans table projection', () => {
  let store: Store;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('span-counts'));
    expect(await hasSpanCounts(store)).toBe(true);
    await store.client.command({
      query: `ALTER TABLE otel_traces DROP PROJECTION ${SPAN_COUNTS_PROJECTION}`,
    });
    expect(await hasSpanCounts(store)).toBe(false);
    // migrate() reads what is there: without the projection the counts read the spans.
    await migrate(store);
    expect(store.accelerators.spanCounts).toBe(false);
    const stateOf = (s: SpanRecord): string =>
      TRACE_STATES[Number.parseInt(s.spanId.slice(-4), 16) % TRACE_STATES.length] as string;
    await insertWithTraceStates(store, spans(1, 4000), stateOf);
    // Added, not materialized: the first batch's part has no projection, the next ones do.
    await store.client.command({
      query: `ALTER TABLE otel_traces ADD PROJECTION ${SPAN_COUNTS_PROJECTION} (SELECT intDiv(toUnixTimestamp64Nano(Timestamp), 10000000000) AS b, count() GROUP BY b)`,
    });
    expect(await hasSpanCounts(store)).toBe(true);
    await migrate(store);
    expect(store.accelerators.spanCounts).toBe(true);
    await insertWithTraceStates(store, spans(2, 3000), stateOf);
    await insertWithTraceStates(store, spans(3, 2000), () => '');
    const parts = await store.query<{ projections: string[] }>(
      sql`SELECT projections FROM system.parts WHERE table = 'otel_traces' AND active`,
    );
    expect(parts.filter((p) => p.projections.length === 0).length).toBeGreaterThan(0);
    expect(parts.filter((p) => p.projections.length > 0).length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await close();
  });

  /** The same call with the projection's reads turned off (the spans' starts). */
  async function withoutProjection<T>(f: () => Promise<T>): Promise<T> {
    store.accelerators.spanCounts = false;
    try {
      return await f();
    } finally {
      store.accelerators.spanCounts = true;
    }
  }

  it('counts each bucket as the spans do, over mixed parts', async () => {
    const windows: [bigint, bigint, bigint][] = [
      [T0_NS, T0_NS + BigInt(MINUTES) * 60n * S, 10n * S],
      [T0_NS - 60n * S, T0_NS + 5n * 60n * S, 60n * S],
      [T0_NS + 30n * S, T0_NS + 7n * 60n * S + 20n * S, 10n * S],
      [T0_NS, T0_NS + 20n * 60n * S, 600n * S],
    ];
    let total = 0n;
    for (const [lo, hi, b] of windows) {
      const got = await spansPerBucket(store, lo, hi, b);
      const want = await withoutProjection(() => spansPerBucket(store, lo, hi, b));
      expect([...got].sort((x, y) => (x[0] < y[0] ? -1 : 1))).toEqual(
        [...want].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
      );
      total += [...got.values()].reduce((a, n) => a + n, 0n);
    }
    expect(total).toBeGreaterThan(9000n);
  });

  it('reads the projection: the engine matches the query to it', async () => {
    const rows = await store.query<{ explain: string }>(sql`
      EXPLAIN SELECT toString(intDiv(toUnixTimestamp64Nano(Timestamp), 10000000000)) AS b,
        toString(count()) AS n
      FROM otel_traces
      WHERE intDiv(toUnixTimestamp64Nano(Timestamp), 10000000000) >= ${0}
        AND intDiv(toUnixTimestamp64Nano(Timestamp), 10000000000) < ${1e10}
      GROUP BY intDiv(toUnixTimestamp64Nano(Timestamp), 10000000000)`);
    expect(rows.map((r) => r.explain).join('\n')).toContain(SPAN_COUNTS_PROJECTION);
  });

  it('gives the sampling block of any range as one scan of the spans does', async () => {
    const r = new SeededRandom(7);
    const ranges: [bigint, bigint][] = [
      [T0_NS, T0_NS + BigInt(MINUTES) * 60n * S],
      [T0_NS + 3n * S, T0_NS + 9n * S], // inside one bucket: the one query
    ];
    for (let i = 0; i < 8; i++) {
      const a = T0_NS + BigInt(Math.floor(r.float() * MINUTES * 60 * 1e9));
      const b = a + BigInt(Math.floor(r.float() * 5 * 60 * 1e9));
      ranges.push([a, b]);
    }
    for (const [fromNs, toNs] of ranges) {
      const got = await selectSamplingInfo(store, { fromNs, toNs });
      const want = await withoutProjection(() => selectSamplingInfo(store, { fromNs, toNs }));
      expect(got).toEqual(want);
    }
    const [fromNs, toNs] = ranges[0] as [bigint, bigint];
    const all = await selectSamplingInfo(store, { fromNs, toNs });
    expect(all.weighted).toBe(true);
    expect(all.spansWithoutSamplingInfo).toBeGreaterThan(0);
    expect(all.spansWithoutSamplingInfo).toBeLessThan(1);
  });
});
