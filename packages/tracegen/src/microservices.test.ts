import { describe, expect, it } from 'vitest';
import {
  byEdgeAndTrace,
  concurrency,
  referenceCalls,
  unique,
  type RefCall,
} from './microservices-reference';
import {
  createGenerator,
  encodeOtlpJson,
  encodeOtlpProtobuf,
  presetSpec,
  truthJson,
  type AppTruth,
} from './index';
import { decodeJson, decodeProtobuf, type ReferenceSpan } from './otlp-reference';

const REQUESTS = 400;
// A short run at 1 request/ms of arrivals would hide the fault: 2 requests/s keeps it minutes long.
const gen = createGenerator(presetSpec('microservices', { ratePerSecond: 2 }), {
  requests: REQUESTS,
  seed: 11,
});
const batches = [...gen.batches()];
const spans: ReferenceSpan[] = batches.flatMap((b) => decodeProtobuf(encodeOtlpProtobuf(b)));
const app = gen.truth.app as AppTruth;
const ns = (s: ReferenceSpan) => ({ s: BigInt(s.startTimeUnixNano), e: BigInt(s.endTimeUnixNano) });
const startNs = BigInt(gen.truth.start.epochMs) * 1_000_000n;
const roots = spans.filter((s) => !s.parentSpanId).sort((a, b) => (ns(a).s < ns(b).s ? -1 : 1));
const requestOf = new Map(roots.map((r, i) => [r.traceId, i]));

describe('microservices preset', () => {
  it('is deterministic, and its truth says what it plants', () => {
    const again = createGenerator(presetSpec('microservices', { ratePerSecond: 2 }), {
      requests: REQUESTS,
      seed: 11,
    });
    const bytes = (g: typeof gen) =>
      [...g.batches()].map((b) => Buffer.from(encodeOtlpProtobuf(b)).toString('base64')).join();
    expect(bytes(again)).toBe(bytes(gen));
    expect(truthJson(again)).toBe(truthJson(gen));
    expect(
      app.edges.map((e) => [e.leafService, e.structure, e.concurrency, e.callsPerRequest]),
    ).toContainEqual(['route', 'pool', 3, 10]);
    expect(app.skew).toMatchObject({
      clientHost: 'frontend-00',
      serverHost: 'pricing-03',
      skewMs: 25,
    });
    expect(app.fault).toMatchObject({
      service: 'customer',
      host: 'customer-00',
      factorMin: 10,
      factorMax: 40,
    });
    expect(gen.truth.causes).toEqual([{ dimension: 'host', value: 'customer-00', effect: 0 }]);
  });

  it('sends the spans it expects, one trace per request, wire-valid in both encodings', () => {
    expect(spans).toHaveLength(gen.expectedSpans);
    expect(roots).toHaveLength(REQUESTS);
    const first = batches[0];
    if (!first) throw new Error('no batch');
    const norm = (l: ReferenceSpan[]) =>
      l.map((s) => ({ ...s, parentSpanId: s.parentSpanId || '' }));
    expect(norm(decodeJson(encodeOtlpJson(first)))).toEqual(
      norm(decodeProtobuf(encodeOtlpProtobuf(first))),
    );
    const ids = new Set(spans.map((s) => `${s.traceId}/${s.spanId}`));
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      if (s.parentSpanId) expect(ids.has(`${s.traceId}/${s.parentSpanId}`)).toBe(true);
      expect(ns(s).e >= ns(s).s).toBe(true);
      expect(s.flags).toBe(s.kind === 2 || s.kind === 5 ? 0x301 : 0x101);
    }
  });

  it('duplicates are byte-identical copies of exactly the planted spans', () => {
    const seen = new Map<string, ReferenceSpan[]>();
    for (const s of spans)
      seen.set(`${s.traceId}/${s.spanId}`, [...(seen.get(`${s.traceId}/${s.spanId}`) ?? []), s]);
    const dups = [...seen.values()].filter((l) => l.length > 1);
    expect(dups.reduce((n, l) => n + l.length - 1, 0)).toBe(app.duplicates.spans);
    expect(app.duplicates.spans).toBeGreaterThan(0);
    for (const [a, ...rest] of dups) {
      for (const b of rest) expect(b).toEqual(a);
      const req = requestOf.get(a?.traceId ?? '') ?? -1;
      const group = app.duplicates.groups.find((g) => req % app.duplicates.every === g.offset);
      expect(group?.spans.map((s) => `${s.service}/${s.name}`)).toContain(
        `${a?.resource['service.name']}/${a?.name}`,
      );
    }
    // The customer pair: the INTERNAL call and its SERVER child, both doubled.
    const pair = dups.filter((l) => l[0]?.name === 'HTTP GET /customer');
    expect(pair.length).toBe(app.duplicates.groups[0]?.requests);
  });

  it('every edge has the planted calls per request and concurrency, and no other edge exists', () => {
    const edges = byEdgeAndTrace(referenceCalls(spans));
    const key = (e: AppTruth['edges'][number]) =>
      `${e.parentService}/${e.parentOperation} -> ${e.leafService}/${e.leafOperation}`;
    expect([...edges.keys()].sort()).toEqual(app.edges.map(key).sort());
    for (const e of app.edges) {
      const perTrace = edges.get(key(e)) ?? new Map<string, RefCall[]>();
      expect(perTrace.size, key(e)).toBe(REQUESTS);
      for (const calls of perTrace.values()) {
        expect(calls.length, key(e)).toBe(e.callsPerRequest);
        expect(concurrency(calls), key(e)).toBe(e.concurrency);
      }
    }
  });

  it('the pool makes calls wait for a worker; the loop never overlaps and touches on ms clocks', () => {
    const edges = byEdgeAndTrace(referenceCalls(spans));
    const pool =
      edges.get('frontend/HTTP GET /dispatch -> route/HTTP GET /route') ??
      new Map<string, RefCall[]>();
    for (const calls of pool.values()) {
      const sorted = [...calls].sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
      // The (k+1)-th call starts only after one of the first k ended.
      const firstEnd = sorted
        .slice(0, 3)
        .reduce((m, c) => (c.endNs < m ? c.endNs : m), sorted[0]?.endNs ?? 0n);
      expect((sorted[3]?.startNs ?? 0n) > firstEnd).toBe(true);
    }
    const loop =
      edges.get('driver//driver.DriverService/FindNearest -> redis/GetDriver') ??
      new Map<string, RefCall[]>();
    let touching = 0;
    for (const calls of loop.values()) {
      const sorted = [...calls].sort((a, b) =>
        a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.endNs < b.endNs ? -1 : 1,
      );
      for (let i = 1; i < sorted.length; i++) {
        expect((sorted[i - 1]?.endNs ?? 0n) <= (sorted[i]?.startNs ?? 0n)).toBe(true);
        if (sorted[i - 1]?.endNs === sorted[i]?.startNs) touching++;
      }
    }
    expect(touching).toBeGreaterThan(REQUESTS);
    for (const s of spans.filter((x) => x.resource['service.name'] === app.msTruncated.service)) {
      expect(ns(s).s % 1_000_000n).toBe(0n);
      expect(ns(s).e % 1_000_000n).toBe(0n);
    }
  });

  it('only the planted host pair has SERVER spans outside their CLIENT, by the planted skew', () => {
    const all = unique(spans);
    const byId = new Map(all.map((s) => [`${s.traceId}/${s.spanId}`, s]));
    const outside = all.filter((s) => {
      const p = byId.get(`${s.traceId}/${s.parentSpanId}`);
      return s.kind === 2 && p && (ns(s).s < ns(p).s || ns(s).e > ns(p).e);
    });
    expect(outside).toHaveLength(app.skew.calls);
    for (const s of outside) {
      const p = byId.get(`${s.traceId}/${s.parentSpanId}`);
      expect([p?.resource['host.name'], s.resource['host.name']]).toEqual([
        app.skew.clientHost,
        app.skew.serverHost,
      ]);
      const lateMs = Number(ns(s).s - (p ? ns(p).s : 0n)) / 1e6;
      expect(lateMs).toBeGreaterThan(app.skew.skewMs);
      expect(lateMs).toBeLessThan(app.skew.skewMs + 0.2);
    }
  });

  it('one message, two consumers; single-replica services run on one host', () => {
    const producers = spans.filter((s) => s.kind === 4);
    const consumers = unique(spans).filter((s) => s.kind === 5);
    expect(consumers).toHaveLength(2 * producers.length);
    expect(new Set(consumers.map((c) => c.resource['service.name']))).toEqual(
      new Set(app.messaging.consumers.map((c) => c.service)),
    );
    for (const svc of app.services) {
      const hosts = new Set(
        spans
          .filter((s) => s.resource['service.name'] === svc.name)
          .map((s) => s.resource['host.name']),
      );
      expect([...hosts].sort()).toEqual(svc.singleReplica ? [svc.hosts[0]] : [...svc.hosts].sort());
    }
  });

  it('calls into the faulty pod are 10-40x slower during the fault, and only then', () => {
    const servers = unique(spans).filter(
      (s) => s.resource['host.name'] === app.fault.host && s.kind === 2,
    );
    const inFault = (s: ReferenceSpan) => {
      const atMs = Number(ns(s).s - startNs) / 1e6;
      return atMs >= app.fault.startMs && atMs < app.fault.endMs;
    };
    const median = (l: number[]) => [...l].sort((a, b) => a - b)[Math.floor(l.length / 2)] ?? 0;
    const ms = (s: ReferenceSpan) => Number(ns(s).e - ns(s).s) / 1e6;
    const during = servers.filter(inFault).map(ms);
    const outside = servers.filter((s) => !inFault(s)).map(ms);
    expect(during.length).toBeGreaterThan(50);
    // Tolerance: the factor is U(10, 40), so the median ratio lies well inside [10, 40].
    const ratio = median(during) / median(outside);
    expect(ratio).toBeGreaterThan(15);
    expect(ratio).toBeLessThan(35);
    expect(Math.max(...outside)).toBeLessThan(Math.min(...during));
  });
});
