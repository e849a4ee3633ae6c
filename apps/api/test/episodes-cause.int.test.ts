import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '@tailscope/analysis';
import type { ServiceEpisode } from '@tailscope/contracts';
import type { Store } from '../src/store';
import { withCauses } from '../src/routes/episodes-cause';
import { selectSpanSplit } from '../src/store/episodes/spans';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Span evidence and causes on the real engine, no metrics (issue #27): calls from `front` into
 * `db` (its server span grows from 10 to 300 ms in the episode's window) and into `queue`
 * (the server span stays 10 ms; the client waits 290 ms before it answers). Exact sums per
 * window; db is named the service's own work, queue network or queueing before the server.
 */

const W_MS = 10_000;
const T0_MS = Number(T0_NS / 1_000_000n);
let store: Store;
let close: () => Promise<void>;

function calls(service: string, outside: boolean): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const t = T0_NS + BigInt(i) * 1_000_000_000n; // one call per second, 40 s
    const slow = i >= 30;
    const serverMs = slow && !outside ? 300 : 10;
    const waitMs = slow && outside ? 290 : 0;
    const trace = `${service.padEnd(8, '0').slice(0, 8)}${i.toString(16).padStart(24, '0')}`;
    const common = { traceId: trace, name: 'op', attributes: {} };
    out.push(
      {
        ...common,
        spanId: 'c'.padStart(16, '0'),
        parentSpanId: 'a'.padStart(16, '0'),
        kind: 'Client',
        service: 'front',
        startNs: t,
        durationNs: BigInt(serverMs + waitMs + 1) * 1_000_000n,
        resource: { 'host.name': 'front-1' },
      },
      {
        ...common,
        spanId: 's'.padStart(16, '0'),
        parentSpanId: 'c'.padStart(16, '0'),
        kind: 'Server',
        service,
        startNs: t + BigInt(waitMs) * 1_000_000n,
        durationNs: BigInt(serverMs) * 1_000_000n,
        resource: { 'host.name': `${service}-1` },
      },
    );
  }
  return out;
}

beforeAll(async () => {
  ({ store, close } = await openTempStore('episodes-cause'));
  await insertSpans(store, [...calls('db', false), ...calls('queue', true)]);
}, 120_000);

afterAll(async () => {
  await close();
});

const episode = (service: string): ServiceEpisode => ({
  service,
  host: `${service}-1`,
  kind: 'callee',
  fromMs: T0_MS + 3 * W_MS,
  toMs: T0_MS + 4 * W_MS,
  p99Ms: 300,
  baselineP99Ms: 10,
  ratio: 30,
  calls: 10,
  qValue: 0.001,
  evidenceNote: 'no metrics stored over the episode and its baseline',
});

describe('span evidence and causes without metrics', () => {
  it('sums client, server and outside time per window exactly', async () => {
    const rows = await selectSpanSplit(store, {
      fromNs: T0_NS,
      toNs: T0_NS + 40_000_000_000n,
      windowNs: 10_000_000_000n,
      services: ['queue'],
      hosts: ['queue-1'],
      maxRows: 100,
    });
    expect(rows.map((r) => [r.window - T0_MS / W_MS, r.calls])).toEqual([
      [0, 10],
      [1, 10],
      [2, 10],
      [3, 10],
    ]);
    expect(rows[3]).toMatchObject({ clientMs: 3010, serverMs: 100, outsideMs: 2910 });
    expect(rows[0]).toMatchObject({ clientMs: 110, serverMs: 100, outsideMs: 10 });
  });

  it('names the server and the network or queueing before it', async () => {
    const [db, queue] = await withCauses(store, [episode('db'), episode('queue')], W_MS);
    expect(db?.spanEvidence).toMatchObject({ calls: 10, baselineCalls: 30, serverMs: 300 });
    expect(db?.causeSignal).toBe('server-time');
    expect(db?.cause).toContain('no metrics stored');
    expect(queue?.spanEvidence).toMatchObject({ outsideMs: 291, baselineOutsideMs: 1 });
    expect(queue?.causeSignal).toBe('network-or-queueing');
    expect(queue?.cause).toBe(
      "calls into queue on queue-1 were 30x slower from 22:13:50 to 22:14:00; the server spans did not grow (10.0 ms, 10.0 ms before); the callers' time outside them did (291 ms, 1.00 ms before): network or queueing before the server",
    );
  });
});
