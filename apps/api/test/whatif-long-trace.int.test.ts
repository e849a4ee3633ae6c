import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import type { WhatIfResponse } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Issue 25: for traces spanning 30 days the preview what-if said 404 while the full one
 * answered. Each of 50 requests has a root starting at T0 and lasting 30 days, and fans out 10
 * calls to kv get on day 15; the range asked holds the calls, not the roots, so no whole request
 * is read (its spans are looked for within a minute of the calls) and only the fan-out replay
 * answers. A preview then answers from the fan-out replay too, as the full answer does.
 */

const REQUESTS = 50;
const DAY_NS = 86_400_000_000_000n;
const CALLS_NS = T0_NS + 15n * DAY_NS;
const FROM_MS = Number(CALLS_NS / 1_000_000n);
const TO_MS = FROM_MS + 3_600_000;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function spans(): SpanRecord[] {
  const r = randomFromSeed('long-trace');
  const out: SpanRecord[] = [];
  for (let q = 0; q < REQUESTS; q++) {
    const traceId = hex(q + 1, 32);
    const parentId = hex(q * 100 + 1, 16);
    out.push({
      traceId,
      spanId: parentId,
      parentSpanId: '',
      kind: 'Server',
      service: 'frontend',
      name: 'batch',
      startNs: T0_NS + BigInt(q) * 1_000_000n,
      durationNs: 30n * DAY_NS,
      resource: { 'service.name': 'frontend', 'host.name': 'fe-0' },
      attributes: {},
    });
    for (let h = 0; h < 10; h++)
      out.push({
        traceId,
        spanId: hex(q * 100 + 2 + h, 16),
        parentSpanId: parentId,
        kind: 'Server',
        service: 'kv',
        name: 'get',
        startNs: CALLS_NS + BigInt(q) * 20_000_000n,
        durationNs: BigInt(Math.round((2 - 3 * Math.log(1 - r())) * 1e6)),
        resource: { 'service.name': 'kv', 'host.name': `kv-${h}` },
        attributes: {},
      });
  }
  return out;
}

describe('what-if over requests spanning 30 days', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('whatif-long'));
    await insertSpans(store, spans());
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  it('answers the preview as the full what-if does', async () => {
    const answers = [];
    for (const quality of ['full', 'preview'] as const) {
      const res = await api.inject({
        method: 'POST',
        url: '/api/v1/whatif',
        payload: {
          leafService: 'kv',
          leafOperation: 'get',
          from: FROM_MS,
          to: TO_MS,
          policy: { kind: 'hedge', delayMs: 5 },
          quality,
        },
      });
      expect(res.statusCode, `${quality}: ${res.body}`).toBe(200);
      answers.push(res.json<WhatIfResponse>());
    }
    const [full, preview] = answers;
    expect(preview?.requests).toBe(REQUESTS);
    expect(preview?.baseline).toEqual(full?.baseline);
    expect(preview?.quality).toBe('preview');
  });
});
