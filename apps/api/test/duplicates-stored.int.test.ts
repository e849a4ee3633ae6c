import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '@tailscope/analysis';
import type { Store } from '../src/store';
import { selectDuplicates } from '../src/store/edges';
import { materializeFanouts } from '../src/store/fanouts';
import { CHUNK_NS, DUPLICATES_TABLE } from '../src/store/fanouts/tables';
import { raw, sql } from '../src/store/sql/template';
import { insertSpans, openTempStore } from './analysis-support';

/**
 * Duplicates per stored chunk (migration 7): the count over a range from stored chunks plus its
 * ragged ends equals the live count (rows minus distinct span ids), for ranges on and off the
 * chunk boundaries. 35 minutes of spans, one every 5 s, every 7th sent twice, every 60th three
 * times.
 */

const C0 = (1_700_000_000_000_000_000n / CHUNK_NS + 1n) * CHUNK_NS; // a chunk boundary
const STEP = 5_000_000_000n;
const N = 420;

function spans(): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (let i = 0; i < N; i++) {
    const s: SpanRecord = {
      traceId: i.toString(16).padStart(32, '0'),
      spanId: (i + 1).toString(16).padStart(16, '0'),
      parentSpanId: '',
      kind: 'Server',
      service: 'svc',
      name: 'op',
      startNs: C0 + BigInt(i) * STEP,
      durationNs: 1_000_000n,
      resource: {},
      attributes: {},
    };
    const copies = i % 60 === 0 ? 3 : i % 7 === 0 ? 2 : 1;
    for (let k = 0; k < copies; k++) out.push(s);
  }
  return out;
}

describe('stored duplicates per chunk', () => {
  let store: Store;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await openTempStore('duplicates-stored'));
    await insertSpans(store, spans());
    const end = C0 + BigInt(N) * STEP;
    await materializeFanouts(store, { fromNs: C0, toNs: end, nowNs: end + 10n ** 13n });
  }, 60_000);
  afterAll(async () => {
    await close();
  });

  it('stores a count for each whole chunk', async () => {
    const rows = await store.query<{ n: string }>(
      sql`SELECT toString(count()) AS n FROM ${raw(DUPLICATES_TABLE)}`,
    );
    expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(3);
  });

  it('equals the live count on and off chunk boundaries', async () => {
    const m = 60_000_000_000n;
    for (const [from, to] of [
      [C0, C0 + 3n * CHUNK_NS],
      [C0 + 7n * m, C0 + 33n * m],
      [C0 + CHUNK_NS, C0 + 2n * CHUNK_NS],
      [C0 - 5n * m, C0 + 40n * m],
      [C0 + m, C0 + 2n * m],
    ] as const) {
      const live = await selectDuplicates(store, { fromNs: from, toNs: to }, { cache: false });
      const stored = await selectDuplicates(store, { fromNs: from, toNs: to });
      expect(stored, `${String(from)}..${String(to)}`).toBe(live);
    }
    const all = await selectDuplicates(store, { fromNs: C0, toNs: C0 + 40n * 60_000_000_000n });
    // Every 7th twice (one extra), every 60th three times (two extra).
    const want: number[] = Array.from({ length: N }, (_, i) =>
      i % 60 === 0 ? 2 : i % 7 === 0 ? 1 : 0,
    );
    expect(all).toBe(want.reduce((a, b) => a + b, 0));
  });
});
