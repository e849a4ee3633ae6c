import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CriticalPathResponse,
  FanoutsResponse,
  StragglersResponse,
  TracesResponse,
} from '@tailscope/contracts';
import type { SpanRecord } from '@tailscope/analysis';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { openTempStore } from './analysis-support';
import { fanoutSpans, insertSpans, T0_NS } from './query-support';

/**
 * Background activity is evidence, not traffic (issue 24): the demo reports each GC pause and
 * compaction as a `background.activity` root span on each of its 8 virtual hosts. Those filled
 * most of the newest trace-search rows, were the critical path's default root, and (nested under
 * a request by an SDK) made fan-outs. They must still mark the calls they overlap.
 */

const MS = 1_000_000n;
const REQUESTS = 200;
const FROM_MS = Number(T0_NS / MS);
const range = `from=${FROM_MS}&to=${FROM_MS + REQUESTS * 20 + 60_000}`;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** 8 copies (kv-0..kv-7) of `events` GC pauses, after the requests: the newest traces. */
function gcRoots(events: number): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (let e = 0; e < events; e++)
    for (let h = 0; h < 8; h++)
      out.push({
        traceId: hex(0xbac000 + e * 8 + h, 32),
        spanId: hex(0xbac000 + e * 8 + h, 16),
        parentSpanId: '',
        kind: 'Internal',
        service: 'kv',
        name: 'gc',
        startNs: T0_NS + BigInt(REQUESTS * 20 + 1000 + e * 50) * MS,
        durationNs: 5n * MS,
        resource: { 'service.name': 'kv', 'host.name': `kv-${String(h)}` },
        attributes: { 'background.activity': 'gc' },
      });
  return out;
}

/** GC pauses an SDK nested under a request's root: 8 overlapping spans of another service. */
function nestedGc(): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (let q = 0; q < REQUESTS; q += 10)
    for (let h = 0; h < 8; h++)
      out.push({
        traceId: hex(q + 1, 32),
        spanId: hex(0xfeed0000 + q * 8 + h, 16),
        parentSpanId: hex(q * 100 + 1, 16),
        kind: 'Internal',
        service: 'gc-reporter',
        name: 'gc',
        startNs: T0_NS + BigInt(q) * 20n * MS,
        durationNs: 2n * MS,
        resource: { 'service.name': 'gc-reporter', 'host.name': `kv-${String(h % 4)}` },
        attributes: { 'background.activity': 'gc' },
      });
  return out;
}

describe('background activity is not traffic', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('background-not-traffic'));
    await insertSpans(store, [...fanoutSpans(REQUESTS, 4, 3), ...gcRoots(60), ...nestedGc()]);
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await api.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('trace search lists requests only, newest first', async () => {
    const t = await get<TracesResponse>(`/api/v1/traces?${range}&limit=100`);
    expect(t.traces).toHaveLength(100);
    expect(t.traces.every((r) => r.rootOperation === 'search')).toBe(true);
    const filtered = await get<TracesResponse>(`/api/v1/traces?${range}&limit=20&service=kv`);
    expect(filtered.traces.length).toBeGreaterThan(0);
    expect(filtered.traces.every((r) => r.rootOperation === 'search')).toBe(true);
  });

  it('the critical path defaults to the busiest request root and lists only request roots', async () => {
    const cp = await get<CriticalPathResponse>(`/api/v1/criticalpath?${range}`);
    expect([cp.service, cp.operation]).toEqual(['frontend', 'search']);
    expect(cp.roots).toEqual([{ service: 'frontend', operation: 'search', requests: REQUESTS }]);
  });

  it('makes no fan-out of background spans, and still marks the calls they overlap', async () => {
    const f = await get<FanoutsResponse>(`/api/v1/fanouts?${range}`);
    expect(f.fanouts.map((o) => `${o.parentService}/${o.leafService}/${o.leafOperation}`)).toEqual([
      'frontend/kv/get',
    ]);
    const s = await get<StragglersResponse>(
      `/api/v1/stragglers?${range}&leafService=kv&leafOperation=get&by=background`,
    );
    expect(s.rows.find((r) => r.value === 'gc')?.calls).toBeGreaterThan(0);
  });
});
