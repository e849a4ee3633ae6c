import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  amplification,
  detectFanouts,
  quantileInclusive,
  fanoutPickHashes,
  fanoutTimes,
  table1,
  type LeafCalls,
  type SpanRecord,
} from '@tailscope/analysis';
import {
  lowerMedian,
  queuedStragglers,
  queuedTail,
  sortAscending,
  hostWindowStats,
  widthStats,
  type DetectedOperation,
} from '@tailscope/analysis/testing';
import type { Store } from '../src/store';
import {
  cacheCovers,
  coverage,
  loadLeafCalls,
  materializeFanouts,
  selectFanoutOperations,
  selectHostWindows,
  startFanoutMaterializer,
} from '../src/store/fanouts';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The SQL pushdown against the TypeScript reference on the same spans: fan-out detection and
 * leaf-call columns must be identical; Table 1, thresholds and counts too. Both use the same
 * type-7 arithmetic, so quantiles are compared to 1e-9 ms (float64 rounding only).
 */

const REQUESTS = 1500;
const FROM = T0_NS + 2_000_000_000n; // cuts into the data: edge handling is exercised
const TO = T0_NS + BigInt(REQUESTS) * 40_000_000n - 3_000_000_000n;
const SEED = 11;

/** Fan-out identity -> sorted call tuples, so call order inside a fan-out does not matter. */
function canonical(c: LeafCalls, keys: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let f = 0; f + 1 < c.fanoutOffsets.length; f++) {
    const rows: string[] = [];
    for (let i = c.fanoutOffsets[f] as number; i < (c.fanoutOffsets[f + 1] as number); i++) {
      rows.push(
        JSON.stringify([
          c.startMs[i],
          c.durationMs[i],
          c.hosts[c.host[i] as number],
          c.modes[c.mode[i] as number],
          c.backgrounds[c.background[i] as number],
          ...keys.map((k) => {
            const col = c.attributes?.[k];
            return col ? col.values[col.index[i] as number] : undefined;
          }),
        ]),
      );
    }
    out.set(`${c.traceIds[f]}/${c.parentSpanIds?.[f]}@${c.fanoutStartMs[f]}`, rows.sort());
  }
  return out;
}

describe('fan-out SQL pushdown equals the TypeScript reference', () => {
  let store: Store;
  let close: () => Promise<void>;
  let spans: SpanRecord[];
  let reference: DetectedOperation[];
  const attributeKeys = ['zone', 'rack'];

  beforeAll(async () => {
    ({ store, close } = await openTempStore('analysis-sql'));
    spans = [...mixedSpans(SEED, REQUESTS), ...chain()];
    await insertSpans(store, spans);
    reference = detectFanouts(spans, { fromNs: FROM, toNs: TO, attributeKeys });
  });
  afterAll(async () => {
    await close();
  });

  it('the generated data has every shape the rules cover', () => {
    const names = reference.map(
      (r) => `${r.operation.parentService}|${r.operation.leafService}|${r.operation.leafOperation}`,
    );
    expect(names).toContain('front|kv|get');
    expect(names).toContain('|kv|get'); // missing parent span
    expect(names.some((n) => n.includes('|kv-'))).toBe(true); // CLIENT without peer.service
    const all = reference.flatMap((r) => r.calls.backgrounds);
    expect(all).toEqual(expect.arrayContaining(['none', 'gc', 'compaction']));
  });

  for (const cache of [false, true]) {
    describe(cache ? 'from stored fan-outs (tailscope_fanouts)' : 'detected live', () => {
      if (cache) {
        beforeAll(async () => {
          expect(await cacheCovers(store, { fromNs: FROM, toNs: TO })).toBe(false);
          const built = await materializeFanouts(store, {
            fromNs: FROM,
            toNs: TO,
            nowNs: TO + 10n ** 12n,
          });
          expect(built.chunks).toBeGreaterThan(0);
          expect(await cacheCovers(store, { fromNs: FROM, toNs: TO })).toBe(true);
          // Nothing left to do on a second pass.
          expect(
            (await materializeFanouts(store, { fromNs: FROM, toNs: TO, nowNs: TO + 10n ** 12n }))
              .chunks,
          ).toBe(0);
        });
      }
      it('keeps every call of a request once two overlap; touching calls do not (half-open)', async () => {
        const loaded = await loadLeafCalls(
          store,
          { fromNs: FROM, toNs: TO, leafService: 'chain', leafOperation: 'op' },
          { cache },
        );
        expect(loaded.calls.traceIds).toEqual(['c'.repeat(32)]);
        const rows = Array.from(loaded.calls.startMs, (s, i) => [s, loaded.calls.durationMs[i]]);
        // B [20,30) overlaps C [25,40): 2 in flight, so all 6 calls are a pool fan-out. Trace d's
        // calls only touch (ms-truncated loop) or are zero-length at one instant: sequential.
        expect(rows).toEqual([
          [0, 10],
          [20, 10],
          [25, 15],
          [40, 5],
          [50, 0],
          [50, 0],
        ]);
      });

      it('loads the same leaf calls, with dimensions (and attributes live), for each leaf operation', async () => {
        // Stored fan-outs carry no attributes: the stored pass compares without them.
        const keys = cache ? [] : attributeKeys;
        const leafOps = new Map<string, { leafService: string; leafOperation: string }>();
        for (const r of reference)
          leafOps.set(`${r.operation.leafService}/${r.operation.leafOperation}`, r.operation);
        expect(leafOps.size).toBeGreaterThanOrEqual(3);
        // kv/get, kv/put (pairs, direct, both kind spellings) and two CLIENT-only operations.
        for (const op of [...leafOps.values()].slice(0, 4)) {
          const loaded = await loadLeafCalls(
            store,
            { fromNs: FROM, toNs: TO, ...op },
            { attributeKeys: keys, cache },
          );
          const expected = new Map<string, string[]>();
          for (const r of reference) {
            if (
              r.operation.leafService !== op.leafService ||
              r.operation.leafOperation !== op.leafOperation
            )
              continue;
            for (const [k, v] of canonical(r.calls, keys)) expected.set(k, v);
          }
          expect(loaded.sampled).toBe(false);
          expect(canonical(loaded.calls, keys)).toEqual(expected);
          expect(loaded.calls.backgrounds[0]).toBe('none');
        }
      });

      it('samples fan-outs deterministically above maxFanouts', async () => {
        const scope = { fromNs: FROM, toNs: TO, leafService: 'kv', leafOperation: 'get' };
        const a = await loadLeafCalls(store, scope, { maxFanouts: 50, cache });
        const b = await loadLeafCalls(store, scope, { maxFanouts: 50, cache });
        expect(a.sampled).toBe(true);
        expect(a.calls.traceIds).toHaveLength(50);
        expect(b.calls.traceIds).toEqual(a.calls.traceIds);
      });

      it('aggregates Table 1, width, threshold, F(t) and the width histogram as the reference does', async () => {
        const rows = await selectFanoutOperations(
          store,
          { fromNs: FROM, toNs: TO },
          { seed: SEED, cache },
        );
        expect(
          rows
            .map(
              (r) => `${r.parentService}|${r.parentOperation}|${r.leafService}|${r.leafOperation}`,
            )
            .sort(),
        ).toEqual(reference.map((r) => Object.values(r.operation).join('|')).sort());
        for (const row of rows) {
          const ref = reference.find(
            (r) =>
              r.operation.parentService === row.parentService &&
              r.operation.parentOperation === row.parentOperation &&
              r.operation.leafService === row.leafService &&
              r.operation.leafOperation === row.leafOperation,
          );
          if (!ref) throw new Error('operation missing from the reference');
          const times = fanoutTimes(ref.calls, fanoutPickHashes(ref.calls, SEED));
          const t1 = table1(times);
          const w = widthStats(times.width);
          const { amplification: amp, hist } = amplification(ref.calls, times.allLeavesMs);
          expect(row.requests).toBe(times.width.length);
          expect(row.widthP50).toBe(w.p50);
          expect(row.widthMax).toBe(w.max);
          const q = (x: { p50: number; p95: number; p99: number; p999: number }): number[] => [
            x.p50,
            x.p95,
            x.p99,
            x.p999,
          ];
          for (const [got, want] of [
            [row.oneLeaf, q(t1.oneLeaf)],
            [row.p95Leaves, q(t1.p95Leaves)],
            [row.allLeaves, q(t1.allLeaves)],
          ] as const) {
            want.forEach((v, i) => {
              expect(got[i]).toBeCloseTo(v, 9);
            });
          }
          expect(row.thresholdMs).toBeCloseTo(amp.thresholdMs, 9);
          expect(row.calls).toBe(ref.calls.durationMs.length);
          expect(row.callsAtMost).toBe(Math.round(amp.singleCallCdf * row.calls));
          expect(row.widths).toEqual(hist);
          // Structure: counts, concurrency, pool size, queue waits and queued tail stragglers.
          const kinds = ref.structures.map((x) => x.structure);
          expect(row.parallelFanouts).toBe(kinds.filter((k) => k === 'parallel').length);
          expect(row.poolFanouts).toBe(kinds.filter((k) => k === 'pool').length);
          const k = ref.structures.map((x) => x.concurrency);
          expect(row.concurrencyMax).toBe(Math.max(...k));
          expect(row.concurrencyP50).toBe(quantileInclusive(sortAscending(k), 0.5));
          const pools = ref.structures.filter((x) => x.structure === 'pool');
          expect(row.poolSize).toBe(lowerMedian(pools.map((x) => x.concurrency)));
          const tail = queuedTail(queuedStragglers(ref.calls), times.allLeavesMs, row.thresholdMs);
          expect(row.queuedTailFanouts).toBe(tail.queued);
          expect(amp.tailFanouts).toBe(tail.tail);
        }
      });

      it('uses an explicit threshold and filters by parent and leaf', async () => {
        const rows = await selectFanoutOperations(
          store,
          {
            fromNs: FROM,
            toNs: TO,
            parentService: 'front',
            leafService: 'kv',
            leafOperation: 'put',
          },
          { thresholdMs: 15, seed: SEED, cache },
        );
        expect(rows).toHaveLength(1);
        const ref = reference.find(
          (r) =>
            r.operation.parentService === 'front' &&
            r.operation.leafService === 'kv' &&
            r.operation.leafOperation === 'put',
        );
        if (!ref) throw new Error('missing');
        const { amplification: amp, hist } = amplification(
          ref.calls,
          fanoutTimes(ref.calls, fanoutPickHashes(ref.calls, SEED)).allLeavesMs,
          15,
        );
        expect(rows[0]?.thresholdMs).toBe(15);
        expect(rows[0]?.callsAtMost).toBe(
          Array.from(ref.calls.durationMs).filter((d) => d <= 15).length,
        );
        expect(amp.thresholdMs).toBe(15);
        expect(rows[0]?.widths).toEqual(hist);
      });

      it('computes per-host windows as the reference does', async () => {
        const ref = reference.filter(
          (r) => r.operation.leafService === 'kv' && r.operation.leafOperation === 'get',
        );
        const rows = await selectHostWindows(
          store,
          { fromNs: FROM, toNs: TO, leafService: 'kv', leafOperation: 'get' },
          5000,
          { cache },
        );
        // The reference per parent operation, merged: windows are per leaf operation.
        const merged = detectFanouts(spans, { fromNs: FROM, toNs: TO }).filter(
          (r) => r.operation.leafService === 'kv' && r.operation.leafOperation === 'get',
        );
        expect(merged.length).toBe(ref.length);
        const calls = mergeCalls(merged.map((m) => m.calls));
        const want = hostWindowStats(calls, 5000);
        expect(rows.map((r) => [r.host, r.startMs, r.calls])).toEqual(
          want.map((w) => [w.host, w.startMs, w.calls]),
        );
        rows.forEach((r, i) => {
          const w = want[i];
          expect(r.p50Ms).toBeCloseTo(w?.p50Ms ?? NaN, 9);
          expect(r.p99Ms).toBeCloseTo(w?.p99Ms ?? NaN, 9);
          expect(r.maxMs).toBe(w?.maxMs);
        });
      });
    });
  }

  it('serves a range partly stored: stored chunks first, live detection from where they stop', async () => {
    const wide = { fromNs: FROM, toNs: TO + 1_200_000_000_000n };
    const cov = await coverage(store, wide);
    expect(cov.chunks.length).toBeGreaterThan(0);
    expect(cov.splitNs).toBeGreaterThan(FROM);
    expect(cov.splitNs).toBeLessThan(wide.toNs);
    // The union of stored and live rows must equal detecting the whole range live.
    const live = await selectFanoutOperations(store, wide, { seed: SEED, cache: false });
    expect(await selectFanoutOperations(store, wide, { seed: SEED })).toEqual(live);
    const scope = { ...wide, leafService: 'kv', leafOperation: 'put' };
    const a = await loadLeafCalls(store, scope);
    const b = await loadLeafCalls(store, scope, { cache: false });
    expect(canonical(a.calls, [])).toEqual(canonical(b.calls, []));
    expect(await selectHostWindows(store, scope, 5000)).toEqual(
      await selectHostWindows(store, scope, 5000, { cache: false }),
    );
  });

  it('the background materializer rebuilds what went stale, one pass at a time', async () => {
    const nowMs = Number((TO + 10n ** 12n) / 1_000_000n);
    const m = startFanoutMaterializer(store, {
      now: () => nowMs,
      intervalMs: 3_600_000,
      lookbackMs: 30 * 60_000,
    });
    try {
      await insertSpans(
        store,
        mixedSpans(SEED + 2, 2).map((x) => ({ ...x, traceId: `e${x.traceId.slice(1)}` })),
      );
      const [a, b] = await Promise.all([m.runOnce(), m.runOnce()]); // single flight: one pass
      // The stale data chunk plus the empty closed chunks of the lookback, all in one pass.
      expect(a).toBeGreaterThanOrEqual(1);
      expect(b).toBe(a);
      expect(await m.runOnce()).toBe(0);
    } finally {
      await m.stop();
    }
  });

  it('stores older chunks that were never stored, after the recent ones', async () => {
    // Spans from 5 and 7 hours before the data: outside a 30-minute lookback, never stored.
    const HOUR = 3_600_000_000_000n;
    const old = [5n, 7n].flatMap((h) =>
      mixedSpans(SEED + 3, 2).map((x) => ({
        ...x,
        traceId: `${h}${x.traceId.slice(1)}`,
        startNs: x.startNs - h * HOUR,
      })),
    );
    await insertSpans(store, old);
    const ranges = [5n, 7n].map((h) => ({ fromNs: FROM - h * HOUR, toNs: TO - h * HOUR }));
    for (const r of ranges) expect(await cacheCovers(store, r)).toBe(false);
    const nowMs = Number((TO + 10n ** 12n) / 1_000_000n);
    // No time for history: the recent pass only.
    const none = startFanoutMaterializer(store, {
      now: () => nowMs,
      intervalMs: 3_600_000,
      lookbackMs: 30 * 60_000,
      historyMs: 0,
    });
    await none.runOnce();
    await none.stop();
    for (const r of ranges) expect(await cacheCovers(store, r)).toBe(false);
    const m = startFanoutMaterializer(store, {
      now: () => nowMs,
      intervalMs: 3_600_000,
      lookbackMs: 30 * 60_000,
    });
    try {
      expect(await m.runOnce()).toBeGreaterThanOrEqual(2);
      for (const r of ranges) expect(await cacheCovers(store, r)).toBe(true);
      // Nothing is left for the next pass.
      expect(await m.runOnce()).toBe(0);
    } finally {
      await m.stop();
    }
  });

  it('notices spans arriving in a stored chunk and rebuilds only that chunk', async () => {
    const late = mixedSpans(SEED + 1, 3).map((x) => ({ ...x, traceId: `f${x.traceId.slice(1)}` }));
    await insertSpans(store, late);
    expect(await cacheCovers(store, { fromNs: FROM, toNs: TO })).toBe(false);
    const rebuilt = await materializeFanouts(store, {
      fromNs: FROM,
      toNs: TO,
      nowNs: TO + 10n ** 12n,
    });
    expect(rebuilt.chunks).toBe(1);
    expect(await cacheCovers(store, { fromNs: FROM, toNs: TO })).toBe(true);
    // Chunks not yet closed (ending within the edge margin of now) are not stored.
    const open = await materializeFanouts(store, {
      fromNs: TO,
      toNs: TO + 10n ** 12n,
      nowNs: TO + 1n,
    });
    expect(open.chunks).toBe(0);
  });
});

/** One hand-made fan-out of direct SERVER children: which calls overlap is known. */
function chain(): SpanRecord[] {
  const base = T0_NS + 500n * 40_000_000n;
  const ms = (x: number): bigint => BigInt(x) * 1_000_000n;
  const parent: SpanRecord = {
    traceId: 'c'.repeat(32),
    spanId: 'p'.repeat(16),
    parentSpanId: '',
    kind: 'Server',
    service: 'front',
    name: 'chain',
    startNs: base,
    durationNs: ms(100),
    resource: { 'host.name': 'f' },
    attributes: {},
  };
  const calls: [string, number, number][] = [
    ['A', 0, 10],
    ['B', 20, 30],
    ['C', 25, 40],
    ['F', 40, 45],
    ['D', 50, 50],
    ['E', 50, 50],
  ];
  const touching: [string, number, number][] = [
    ['1', 0, 10],
    ['2', 10, 20],
    ['3', 20, 20],
    ['4', 20, 20],
    ['5', 20, 30],
  ];
  const loop: SpanRecord = { ...parent, traceId: 'd'.repeat(32) };
  return [
    parent,
    loop,
    ...touching.map(([id, a, b]): SpanRecord => ({
      ...loop,
      spanId: id.repeat(16),
      parentSpanId: loop.spanId,
      kind: 'Server',
      service: 'chain',
      name: 'op',
      startNs: base + ms(a),
      durationNs: ms(b - a),
      resource: { 'host.name': `h${id}` },
    })),
    ...calls.map(([id, a, b]): SpanRecord => ({
      traceId: parent.traceId,
      spanId: id.repeat(16),
      parentSpanId: parent.spanId,
      kind: 'SPAN_KIND_SERVER',
      service: 'chain',
      name: 'op',
      startNs: base + ms(a),
      durationNs: ms(b - a),
      resource: { 'host.name': `h${id}` },
      attributes: {},
    })),
  ];
}

/** Concatenates LeafCalls with the same dictionaries semantics (re-encoding host strings). */
function mergeCalls(parts: readonly LeafCalls[]): LeafCalls {
  const hosts: string[] = [];
  const ids = new Map<string, number>();
  const id = (h: string): number => {
    let i = ids.get(h);
    if (i === undefined) ids.set(h, (i = hosts.push(h) - 1));
    return i;
  };
  const total = parts.reduce((n, p) => n + p.durationMs.length, 0);
  const fanouts = parts.reduce((n, p) => n + p.traceIds.length, 0);
  const out: LeafCalls = {
    fanoutOffsets: new Uint32Array(fanouts + 1),
    fanoutStartMs: new Float64Array(fanouts),
    traceIds: [],
    startMs: new Float64Array(total),
    durationMs: new Float64Array(total),
    host: new Uint32Array(total),
    mode: new Uint32Array(total),
    background: new Uint32Array(total),
    hosts,
    modes: ['x'],
    backgrounds: ['none'],
  };
  let f = 0;
  let i = 0;
  for (const p of parts) {
    for (let k = 0; k < p.traceIds.length; k++) {
      out.fanoutStartMs[f] = p.fanoutStartMs[k] as number;
      out.traceIds.push(p.traceIds[k] ?? '');
      for (let j = p.fanoutOffsets[k] as number; j < (p.fanoutOffsets[k + 1] as number); j++) {
        out.startMs[i] = p.startMs[j] as number;
        out.durationMs[i] = p.durationMs[j] as number;
        out.host[i] = id(p.hosts[p.host[j] as number] ?? '');
        i++;
      }
      out.fanoutOffsets[++f] = i;
    }
  }
  return out;
}
