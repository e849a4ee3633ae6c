import { type Random, type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import { T0_NS } from './analysis-support';

/**
 * Seeded span trees with every shape the call and structure rules cover (issue #12): HotROD-like
 * wrapper chains (0 to 4 wrappers, one past MAX_WRAPPER_HOPS) over INTERNAL HTTP client spans,
 * CLIENT spans, worker pools, parallel fan-outs sent with jitter, ms-truncated sequential loops
 * of cross-service INTERNAL spans, a `peer.service` INTERNAL single call, SERVER answers sent
 * twice (retries) or lying outside their client (skew), a PRODUCER with two CONSUMERs, spans
 * stored twice, missing roots and resources without a host. Requests are 50 ms apart.
 */

const MS = 1_000_000n;

const hex = (r: Random, n: number): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
  return s;
};

const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

interface Ctx {
  r: Random;
  traceId: string;
  out: SpanRecord[];
}

function add(c: Ctx, s: Omit<SpanRecord, 'traceId' | 'spanId'> & { spanId?: string }): string {
  const spanId = s.spanId ?? hex(c.r, 16);
  const span: SpanRecord = { ...s, traceId: c.traceId, spanId };
  c.out.push(span);
  // Duplicates: some spans are stored twice.
  if (c.r() < 0.02) c.out.push({ ...span });
  return spanId;
}

const res = (service: string, host?: string): Record<string, string> =>
  host ? { 'service.name': service, 'host.name': host } : { 'service.name': service };

/** One HTTP call from `parent` through `hops` wrappers, answered by the route service. */
function routeCall(c: Ctx, parent: string, startNs: bigint, durNs: bigint, hops: number): void {
  const { r } = c;
  let up = parent;
  for (let h = 0; h < hops; h++)
    up = add(c, {
      parentSpanId: up,
      kind: 'Internal',
      service: 'frontend',
      name: `wrap${h}`,
      startNs,
      durationNs: durNs,
      resource: res('frontend', 'fe-1'),
      attributes: {},
    });
  const internal = r() < 0.6;
  const client = add(c, {
    parentSpanId: up,
    kind: internal ? 'Internal' : pick(r, ['Client', 'SPAN_KIND_CLIENT']),
    service: 'frontend',
    name: 'HTTP GET',
    startNs,
    durationNs: durNs,
    resource: res('frontend', 'fe-1'),
    attributes: internal ? { 'http.method': 'GET', 'http.url': '0.0.0.0:8083' } : {},
  });
  const skew = r() < 0.05 ? BigInt(1 + Math.floor(r() * 5)) * MS : 0n;
  const answers = r() < 0.1 ? 2 : 1;
  for (let a = 0; a < answers; a++)
    add(c, {
      parentSpanId: client,
      kind: 'Server',
      service: 'route',
      name: 'HTTP GET /route',
      startNs: startNs + 100_000n - skew + BigInt(a) * 1000n,
      durationNs: durNs - 200_000n,
      resource: res('route', r() < 0.2 ? undefined : pick(r, ['rt-1', 'rt-2', 'rt-3'])),
      attributes: {},
    });
}

/** A pool of k workers running n calls in list order; or all at once with send jitter. */
function fanout(c: Ctx, parent: string, t0: bigint, n: number, k: number): bigint {
  const free = Array.from({ length: k }, () => t0);
  let end = t0;
  for (let i = 0; i < n; i++) {
    const w = free.indexOf(free.reduce((m, x) => (x < m ? x : m)));
    const start = (free[w] as bigint) + BigInt(Math.floor(c.r() * 300_000));
    const dur = BigInt(Math.floor((2 + c.r() * 20) * 1e6));
    free[w] = start + dur;
    if (start + dur > end) end = start + dur;
    routeCall(c, parent, start, dur, Math.floor(c.r() * 5));
  }
  return end;
}

/** A loop of cross-service INTERNAL calls with ms-truncated, touching times. */
function loop(c: Ctx, parent: string, t0: bigint, n: number): bigint {
  let t = (t0 / MS + 1n) * MS;
  for (let i = 0; i < n; i++) {
    const dur = BigInt(Math.floor(c.r() * 3)) * MS; // 0, 1 or 2 ms: truncated
    add(c, {
      parentSpanId: parent,
      kind: 'Internal',
      service: 'redis',
      name: 'GetDriver',
      startNs: t,
      durationNs: dur,
      resource: res('redis'),
      attributes: { 'param.driverID': String(i) },
    });
    t += dur;
  }
  return t;
}

function messaging(c: Ctx, parent: string, t0: bigint): void {
  const producer = add(c, {
    parentSpanId: parent,
    kind: 'Producer',
    service: 'frontend',
    name: 'publish',
    startNs: t0,
    durationNs: MS,
    resource: res('frontend', 'fe-1'),
    attributes: { 'messaging.system': 'kafka' },
  });
  for (let i = 0; i < 2; i++)
    add(c, {
      parentSpanId: producer,
      kind: 'Consumer',
      service: 'audit',
      name: 'consume',
      startNs: t0 + BigInt(2 + i) * MS,
      durationNs: 5n * MS,
      resource: res('audit', `au-${i}`),
      attributes: {},
    });
}

/** The spans of `requests` requests (see the file comment). */
export function callShapes(seed: number, requests: number): SpanRecord[] {
  const r = randomFromSeed(`calls-${seed}`);
  const out: SpanRecord[] = [];
  for (let q = 0; q < requests; q++) {
    const c: Ctx = { r, traceId: hex(r, 32), out };
    const t0 = T0_NS + BigInt(q) * 50n * MS + BigInt(Math.floor(r() * 1e6));
    const rootId = hex(r, 16);
    const n = 2 + Math.floor(r() * 9);
    const k = pick(r, [1, 2, 3, n]);
    let end = fanout(c, rootId, t0 + MS, n, k);
    const driver = add(c, {
      parentSpanId: rootId,
      kind: 'Server',
      service: 'driver',
      name: 'FindNearest',
      startNs: end,
      durationNs: 30n * MS,
      resource: res('driver'),
      attributes: {},
    });
    end = loop(c, driver, end, 1 + Math.floor(r() * 12)) + MS;
    add(c, {
      parentSpanId: rootId,
      kind: 'Internal',
      service: 'mysql',
      name: 'SQL SELECT',
      startNs: end,
      durationNs: 3n * MS,
      resource: res('mysql'),
      attributes: { 'peer.service': 'mysql', 'sql.query': 'select 1' },
    });
    if (r() < 0.3) messaging(c, rootId, end);
    // Some roots are missing: the calls keep their request, with empty caller names.
    if (r() < 0.95)
      out.push({
        traceId: c.traceId,
        spanId: rootId,
        parentSpanId: '',
        kind: 'Server',
        service: 'frontend',
        name: 'HTTP GET /dispatch',
        startNs: t0,
        durationNs: end + 5n * MS - t0,
        resource: res('frontend', 'fe-1'),
        attributes: { 'http.method': 'GET' },
      });
  }
  return out;
}
