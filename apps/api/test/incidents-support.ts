import { type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';

/**
 * Hand-made requests for the incident tests: frontend `GET /home` (fe-0) -> CLIENT `GET /api`
 * -> api SERVER `GET /api` on api-0 -> CLIENT `query` -> db SERVER `query` on db-0. With
 * `netFault`, requests starting in [from, to) of the run wait `U(15, 30)` ms more between the
 * client's start and the api server span's start (network or a queue before the server); the
 * server span itself is unchanged. With `dbFault`, db's own time is 10x in [from, to) (a slow
 * callee two hops down). With `rootFault`, the frontend waits `U(20, 40)` ms of its own time before
 * its call (a worker pool made smaller in front of the call): requests slower, no call slower.
 * Seeded; times in integer ns.
 */
export interface NetworkRun {
  startMs: number;
  requests: number;
  ratePerSecond: number;
  seed: number;
  /** Fault window as fractions of the run; absent: no fault. */
  netFault?: { from: number; to: number };
  dbFault?: { from: number; to: number };
  rootFault?: { from: number; to: number };
}

const MS = 1_000_000n;

export function networkRun(o: NetworkRun): SpanRecord[] {
  const r = randomFromSeed(o.seed);
  const normal = (): number => {
    const u = Math.max(r(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
  };
  const lognormalNs = (medianMs: number, sigma: number): bigint =>
    BigInt(Math.round(medianMs * 1e6 * Math.exp(sigma * normal())));
  const hex = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
    return s;
  };
  const runNs = BigInt(Math.round((o.requests / o.ratePerSecond) * 1e9));
  const t0 = BigInt(o.startMs) * MS;
  const spans: SpanRecord[] = [];
  const res = (service: string, host: string) => ({ 'service.name': service, 'host.name': host });
  for (let i = 0; i < o.requests; i++) {
    const traceId = hex(32);
    const start = t0 + BigInt(Math.round(((i + r()) / o.ratePerSecond) * 1e9));
    const at = Number(start - t0) / Number(runNs);
    const inside = (w: { from: number; to: number } | undefined): boolean =>
      w !== undefined && at >= w.from && at < w.to;
    const extra = inside(o.netFault) ? BigInt(Math.round((15 + 15 * r()) * 1e6)) : 0n;
    const dbNs = lognormalNs(2, 0.3) * (inside(o.dbFault) ? 10n : 1n);
    const apiSelfNs = lognormalNs(3, 0.3);
    const netNs = BigInt(Math.round((0.1 + 0.1 * r()) * 1e6));
    const ids = { root: hex(16), call: hex(16), api: hex(16), dbc: hex(16), db: hex(16) };
    // Drawn only inside the fault, as `extra`: runs without it keep their numbers.
    const wait = inside(o.rootFault) ? BigInt(Math.round((20 + 20 * r()) * 1e6)) : 0n;
    const callStart = start + 200_000n + wait;
    const apiStart = callStart + netNs + extra;
    const dbcStart = apiStart + apiSelfNs / 2n;
    const dbStart = dbcStart + 50_000n;
    const dbcEnd = dbStart + dbNs + 50_000n;
    const apiEnd = dbcEnd + apiSelfNs / 2n;
    const callEnd = apiEnd + netNs;
    const rootEnd = callEnd + 200_000n;
    const span = (
      spanId: string,
      parentSpanId: string,
      kind: string,
      service: string,
      host: string,
      name: string,
      s: bigint,
      e: bigint,
      attributes: Record<string, string> = {},
    ): SpanRecord => ({
      traceId,
      spanId,
      parentSpanId,
      kind,
      service,
      name,
      startNs: s,
      durationNs: e - s,
      resource: res(service, host),
      attributes,
    });
    spans.push(
      span(ids.root, '', 'Server', 'frontend', 'fe-0', 'GET /home', start, rootEnd),
      span(ids.call, ids.root, 'Client', 'frontend', 'fe-0', 'GET /api', callStart, callEnd, {
        'http.request.method': 'GET',
        'server.address': 'api-0',
        'peer.service': 'api',
      }),
      span(ids.api, ids.call, 'Server', 'api', 'api-0', 'GET /api', apiStart, apiEnd),
      span(ids.dbc, ids.api, 'Client', 'api', 'api-0', 'query', dbcStart, dbcEnd, {
        'db.system': 'postgresql',
        'peer.service': 'db',
      }),
      span(ids.db, ids.dbc, 'Server', 'db', 'db-0', 'query', dbStart, dbStart + dbNs),
    );
  }
  return spans;
}
