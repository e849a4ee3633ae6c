import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  randomTraceSpans,
  requestTreesFromColumns,
  requestTreesFromSpans,
} from '@tailscope/analysis';
import type { Store } from '../src/store';
import { loadRequestColumns } from '../src/store/request-columns';
import { loadRequestSpans } from '../src/store/request-trees';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The columnar whole-request read (store/request-columns.ts) on the real embedded engine: the
 * same trees as the span-object read it replaces, the sample and span limits.
 */

const TRACES = 400; // 1 s apart
const scope = {
  fromNs: T0_NS,
  toNs: T0_NS + BigInt(TRACES) * 1_000_000_000n,
  leafService: 'route',
  leafOperation: 'op1',
};

describe('loadRequestColumns', () => {
  let store: Store;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('whatif-columns'));
    await insertSpans(store, randomTraceSpans(11, TRACES, { t0Ns: T0_NS, duplicates: false }));
  });
  afterAll(async () => {
    await close();
  });

  it('reads the same request trees as the span objects', async () => {
    const limits = { maxTraces: 10_000, maxSpans: 1_000_000 };
    const cols = await loadRequestColumns(store, scope, limits);
    const objs = await loadRequestSpans(store, scope, limits);
    expect(cols).not.toBeNull();
    const got = requestTreesFromColumns(cols!.columns);
    const want = requestTreesFromSpans(objs.spans);
    expect(want.requestStartMs.length).toBeGreaterThan(100);
    expect(got).toEqual(want);
    expect(cols!.sampled).toBe(false);
    expect(cols!.truncated).toBe(false);
  });

  it('samples the same requests beyond maxTraces and says so; cuts at maxSpans', async () => {
    const limits = { maxTraces: 50, maxSpans: 1_000_000 };
    const cols = await loadRequestColumns(store, scope, limits);
    const objs = await loadRequestSpans(store, scope, limits);
    expect(cols!.sampled).toBe(true);
    expect(cols!.columns.traceIds).toEqual([...new Set(objs.spans.map((s) => s.traceId))].sort());
    const cut = await loadRequestColumns(store, scope, { maxTraces: 10_000, maxSpans: 100 });
    expect(cut!.truncated).toBe(true);
    expect(cut!.columns.spanKey.length).toBe(100);
  });

  it('finds nothing for an operation nobody calls', async () => {
    const none = await loadRequestColumns(
      store,
      { ...scope, leafOperation: 'nothing' },
      { maxTraces: 10, maxSpans: 10 },
    );
    expect(none).toBeNull();
  });
});
