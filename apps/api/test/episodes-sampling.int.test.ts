import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/store';
import { selectEpisodeWindows } from '../src/store/episodes';
import { selectSamplingInfo } from '../src/store/traces/sampling';
import { openTempStore, T0_NS } from './analysis-support';

/**
 * Sampling weights in the episodes query: 100 calls sampled at 50% (`ot=th:8`, adjusted count 2)
 * and 100 calls without sampling information (count 1) in one window weigh 300, and the
 * weighted p50 follows the weights.
 */

const nsText = (ns: bigint): string =>
  `${String(ns / 1_000_000_000n)}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

function row(o: {
  trace: number;
  span: string;
  parent: string;
  kind: string;
  service: string;
  startNs: bigint;
  durationMs: number;
  traceState: string;
}): string {
  return JSON.stringify({
    Timestamp: nsText(o.startNs),
    TraceId: o.trace.toString(16).padStart(32, '0'),
    SpanId: o.span,
    ParentSpanId: o.parent,
    TraceState: o.traceState,
    SpanName: o.kind === 'Server' ? 'GET /b' : o.parent === '' ? 'GET /a' : 'call b',
    SpanKind: o.kind,
    ServiceName: o.service,
    ResourceAttributes: { 'service.name': o.service, 'host.name': `${o.service}-1` },
    SpanAttributes: {},
    Duration: String(Math.round(o.durationMs * 1e6)),
    StatusCode: 'Unset',
  });
}

describe('episodes weighted by sampling', () => {
  let store: Store;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await openTempStore('episodes-sampling'));
    const rows: string[] = [];
    for (let i = 0; i < 200; i++) {
      const sampled = i < 100;
      // Sampled calls take 10 ms, the others 1 ms: weighted, 2/3 of the calls take 10 ms.
      const ms = sampled ? 10 : 1;
      const ts = sampled ? 'ot=th:8' : '';
      const start = T0_NS + BigInt(i) * 10_000_000n;
      const base = { trace: i + 1, traceState: ts };
      rows.push(
        row({
          ...base,
          span: 'a0000000000000a1',
          parent: '',
          kind: 'Server',
          service: 'a',
          startNs: start,
          durationMs: ms + 2,
        }),
        row({
          ...base,
          span: 'a0000000000000a2',
          parent: 'a0000000000000a1',
          kind: 'Client',
          service: 'a',
          startNs: start + 100_000n,
          durationMs: ms,
        }),
        row({
          ...base,
          span: 'b0000000000000b1',
          parent: 'a0000000000000a2',
          kind: 'Server',
          service: 'b',
          startNs: start + 200_000n,
          durationMs: ms - 0.5,
        }),
      );
    }
    await store.client.command({
      query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${rows.join('\n')}`,
    });
  });
  afterAll(async () => {
    await close();
  });

  it('weighs calls and quantiles by the adjusted count', async () => {
    const windows = await selectEpisodeWindows(store, {
      fromNs: T0_NS,
      toNs: T0_NS + 60_000_000_000n,
      windowMs: 60_000,
    });
    const callee = windows.filter((w) => w.kind === 'callee' && w.service === 'b');
    expect(callee).toHaveLength(1);
    expect(callee[0]?.calls).toBe(200);
    expect(callee[0]?.weightedCalls).toBeCloseTo(300, 9);
    // Unweighted the median call would sit between 1 and 10 ms; weighted it is a 10 ms call
    // (read off the fine histogram: within half a bin, 1.09%).
    expect(Math.abs((callee[0]?.p50Ms ?? 0) / 10 - 1)).toBeLessThan(0.011);
    const info = await selectSamplingInfo(store, { fromNs: T0_NS, toNs: T0_NS + 60_000_000_000n });
    expect(info.weighted).toBe(true);
    expect(info.spansWithoutSamplingInfo).toBeCloseTo(0.5, 9);
    // Without a range (the whole store, every span in that minute): the same figures.
    expect(await selectSamplingInfo(store)).toEqual(info);
  });
});
