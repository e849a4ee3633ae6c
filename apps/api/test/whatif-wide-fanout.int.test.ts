import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import type { WhatIfResponse } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Issue 25: one fan-out of 100,000 calls made every what-if policy of its operation answer 503
 * after 30-47 s. Loading bounds the calls per fan-out (store/wide-fanouts.ts): the wide one is
 * replayed from a deterministic sample of 5,000 of its calls, and the answer says so
 * (`sampledFanouts`, a note) in the fan-out replay, the whole-request replay and the preview.
 * 200 requests of frontend search fan out 10 calls to kv get; the 101st fans out 100,000.
 */

const REQUESTS = 200;
const WIDE = 100_000;
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 60_000;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function fanout(q: number, width: number, r: () => number): SpanRecord[] {
  const traceId = hex(q + 1, 32);
  const parentId = hex(q * 1_000_000 + 1, 16);
  const start = T0_NS + BigInt(q) * 20_000_000n;
  const out: SpanRecord[] = [];
  let end = 0;
  for (let h = 0; h < width; h++) {
    const ms = 2 - 3 * Math.log(1 - r());
    const offsetUs = Math.floor(r() * 200);
    end = Math.max(end, offsetUs / 1000 + ms);
    out.push({
      traceId,
      spanId: hex(q * 1_000_000 + 2 + h, 16),
      parentSpanId: parentId,
      kind: 'Server',
      service: 'kv',
      name: 'get',
      startNs: start + BigInt(offsetUs) * 1000n,
      durationNs: BigInt(Math.round(ms * 1e6)),
      resource: { 'service.name': 'kv', 'host.name': `kv-${h % 10}` },
      attributes: {},
    });
  }
  out.push({
    traceId,
    spanId: parentId,
    parentSpanId: '',
    kind: 'Server',
    service: 'frontend',
    name: 'search',
    startNs: start,
    durationNs: BigInt(Math.round((end + 1) * 1e6)),
    resource: { 'service.name': 'frontend', 'host.name': 'fe-0' },
    attributes: {},
  });
  return out;
}

describe('what-if with one huge fan-out', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  const base = { leafService: 'kv', leafOperation: 'get', from: FROM_MS, to: TO_MS };

  beforeAll(async () => {
    ({ store, close } = await openTempStore('whatif-wide'));
    const r = randomFromSeed('wide');
    const spans: SpanRecord[] = [];
    for (let q = 0; q < REQUESTS; q++) spans.push(...fanout(q, q === 100 ? WIDE : 10, r));
    await insertSpans(store, spans);
    api = await buildStoreApi(store);
  }, 300_000);
  afterAll(async () => {
    await api.close();
    await close();
  });

  it.each(['hedge', 'pool'])(
    'answers %s with the widest fan-out sampled, and says so',
    async (kind) => {
      for (const quality of ['full', 'preview']) {
        const res = await api.inject({
          method: 'POST',
          url: '/api/v1/whatif',
          payload: { ...base, policy: { kind }, quality, seed: 3 },
        });
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json<WhatIfResponse>();
        expect(body.requests).toBe(REQUESTS);
        // The one wide fan-out, in the fan-out replay or the whole requests (or both).
        expect(body.sampledFanouts, quality).toBe(1);
        expect(body.notes.join('\n')).toMatch(/1 fan-out wider than 5000 calls/);
      }
    },
    300_000,
  );
});
