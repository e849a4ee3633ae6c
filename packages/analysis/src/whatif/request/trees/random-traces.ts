/**
 * Random traces with every case the calls definition distinguishes, for equivalence tests.
 */

import { SeededRandom } from '../../../random';
import type { SpanRecord } from '../../../span-record';

const KINDS = ['Server', 'Client', 'Internal', 'Producer', 'Consumer', 'Unspecified'];
const SERVICES = ['frontend', 'route', 'redis', 'mysql', 'driver'];
const CLIENT_ATTRS: Record<string, string>[] = [
  {},
  { 'peer.service': 'redis' },
  { 'db.system': 'mysql' },
  { 'http.method': 'GET', 'http.target': '/x' },
  { 'server.address': 'cache:6379' },
];

/**
 * Random traces with every case the calls definition distinguishes: client spans answered by
 * zero, one or several servers, unanswered calls named by attributes, producers to a named
 * broker, wrappers (one child), cross-service INTERNAL spans, SERVER spans under non-call
 * parents, missing parents, traces without a root, duplicated spans, equal start times.
 * Traces start 1 s apart from `t0Ns`.
 */
export function randomTraceSpans(
  seed: number,
  traces: number,
  opts: { t0Ns?: bigint; duplicates?: boolean } = {},
): SpanRecord[] {
  const rng = new SeededRandom(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rng.float() * a.length)] as T;
  const out: SpanRecord[] = [];
  for (let t = 0; t < traces; t++) {
    const traceId = `t${String(t).padStart(4, '0')}`;
    const n = 1 + Math.floor(rng.float() * 30);
    const spans: SpanRecord[] = [];
    const base = (opts.t0Ns ?? 1_700_000_000_000_000_000n) + BigInt(t) * 1_000_000_000n;
    for (let i = 0; i < n; i++) {
      const parent = i === 0 ? null : spans[Math.floor(rng.float() * i)];
      const noRoot = i === 0 && rng.float() < 0.05;
      const missing = i > 0 && rng.float() < 0.03;
      // Coarse start times so that ties (and the 1 ms send jitter) happen.
      const start = (parent?.startNs ?? base) + BigInt(Math.floor(rng.float() * 8)) * 500_000n;
      const host = rng.float() < 0.8 ? { 'host.name': `h${Math.floor(rng.float() * 4)}` } : {};
      const mode = rng.float() < 0.5 ? { 'host.sharing_mode': pick(['shared', 'dedicated']) } : {};
      spans.push({
        traceId,
        spanId: `s${i}`,
        parentSpanId: noRoot ? 'gone' : i === 0 ? '' : missing ? `x${i}` : (parent?.spanId ?? ''),
        kind: i === 0 ? 'Server' : pick(KINDS),
        service: pick(SERVICES),
        name: `op${Math.floor(rng.float() * 3)}`,
        startNs: start,
        durationNs: BigInt(Math.floor(rng.float() * 10)) * 1_000_000n,
        resource: { ...host, ...mode },
        attributes: pick(CLIENT_ATTRS),
      });
    }
    out.push(...spans);
    if (rng.float() < 0.1 && spans[1] && opts.duplicates !== false)
      out.push({ ...spans[1], durationNs: 123n }); // a copy
  }
  return out;
}
