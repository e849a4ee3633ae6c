/**
 * The `microservices` request model: one trace per request, drawn in a fixed order from three
 * streams (arrivals, calls, ids), so request i is the same whatever follows it. Times are
 * integer nanoseconds after the run's start.
 */
import type { SpanBatch } from './batch';
import { topologyOf, type AppTopology } from './app-topology';
import type { Plan } from './plan';
import { stream, type Rng } from './random';
import type { AppSpec } from './spec';
import type { TreeSpans } from './tree';

const US = 1e3;
const MS = 1e6;

/** Requests i with i % duplicateEvery equal to these offsets send spans twice. */
export const duplicateOffsets = { customerPair: 1, loopCall: 2 } as const;
/** The loop call (0-based position) that is sent twice. */
export const duplicatedLoopCall = 3;

export class AppModel {
  readonly topo: AppTopology;
  private readonly arrivals: Rng;
  private readonly rng: Rng;
  private readonly ids: Rng;
  private readonly faultStartNs: number;
  private readonly faultEndNs: number;
  private readonly workers: Float64Array;

  constructor(
    private readonly plan: Plan,
    private readonly app: AppSpec,
  ) {
    this.topo = topologyOf(app);
    this.arrivals = stream(plan.seed, 'app/arrivals');
    this.rng = stream(plan.seed, 'app/calls');
    this.ids = stream(plan.seed, 'app/ids');
    this.faultStartNs = Math.round(app.fault.startFraction * plan.durationNs);
    this.faultEndNs = Math.round(app.fault.endFraction * plan.durationNs);
    this.workers = new Float64Array(app.poolWorkers);
  }

  /** A lognormal draw in ns, at least `minNs`. */
  private lognormal(medianMs: number, sigma: number, minNs: number): number {
    return Math.max(minNs, Math.round(medianMs * MS * Math.exp(sigma * this.rng.normal())));
  }

  /** A half network round trip, 25-75 us. */
  private half(): number {
    return Math.round((0.5 + this.rng.float()) * 50 * US);
  }

  private span(
    t: TreeSpans,
    res: number,
    tpl: number,
    req: number,
    parent: number,
    s: number,
    e: number,
  ) {
    const i = t.add(res, tpl, req, parent, s, e);
    this.ids.fill(t.spanIds, 8 * i, 8);
    return i;
  }

  /** Appends request `i` to `b.tree`. */
  next(b: SpanBatch, i: number): void {
    const t = b.tree;
    if (!t) throw new Error('an application batch needs tree spans');
    const r = b.requestCount;
    const startNs = Math.round((i + this.arrivals.float()) * this.plan.intervalNs);
    this.ids.fill(t.traceIds, 16 * r, 16);
    const before = t.emit.length;
    const root = this.span(t, this.topo.r.frontend, this.topo.t.root, r, -1, startNs, 0);
    let at = startNs + 100 * US;
    at = this.customer(t, r, root, at, i) + 30 * US;
    at = this.driver(t, r, root, at, i) + 30 * US;
    at = this.routePool(t, r, root, at) + 30 * US;
    at = this.quotes(t, r, root, at) + 30 * US;
    at = this.publish(t, r, root, at) + 30 * US;
    t.endNs[root] = at + 100 * US;
    b.reqStartNs[r] = startNs;
    b.reqEndNs[r] = at + 100 * US;
    b.requestCount = r + 1;
    b.spanCount += t.emit.length - before;
  }

  /** Wrapper -> INTERNAL HTTP call -> customer SERVER -> mysql CLIENT; the faulty service. */
  private customer(t: TreeSpans, r: number, root: number, at: number, i: number): number {
    const { t: T, r: R } = this.topo;
    const mysqlNs = this.lognormal(3, 0.3, 200 * US);
    const httpStart = at + 20 * US;
    const inFault = httpStart >= this.faultStartNs && httpStart < this.faultEndNs;
    const f = this.app.fault;
    // Drawn always, so the fault changes no other draw.
    const factor = f.factorMin + (f.factorMax - f.factorMin) * this.rng.float();
    const k = inFault ? factor : 1;
    const d1 = this.half();
    const d2 = this.half();
    const serverStart = httpStart + d1;
    const serverNs = Math.round(k * (200 * US + mysqlNs + 300 * US));
    const httpEnd = serverStart + serverNs + d2;
    const wrap = this.span(t, R.frontend, T.customerWrap, r, root, at, httpEnd + 20 * US);
    const http = this.span(t, R.frontend, T.customerHttp, r, wrap, httpStart, httpEnd);
    const server = this.span(
      t,
      R.customer,
      T.customerServer,
      r,
      http,
      serverStart,
      serverStart + serverNs,
    );
    const mysqlStart = serverStart + Math.round(k * 200 * US);
    this.span(t, R.customer, T.mysql, r, server, mysqlStart, mysqlStart + Math.round(k * mysqlNs));
    if (i % this.app.duplicateEvery === duplicateOffsets.customerPair) {
      t.duplicate(http);
      t.duplicate(server);
    }
    return httpEnd + 20 * US;
  }

  /** The driver service reports whole milliseconds (floored), as some tracers do. */
  private floorMs(ns: number): number {
    const sub = this.plan.start.subNs;
    return Math.floor((sub + ns) / MS) * MS - sub;
  }

  private ceilMs(ns: number): number {
    const sub = this.plan.start.subNs;
    return Math.ceil((sub + ns) / MS) * MS - sub;
  }

  /** gRPC CLIENT -> driver SERVER (ms clock) -> FindDriverIDs, then a sequential GetDriver loop. */
  private driver(t: TreeSpans, r: number, root: number, at: number, i: number): number {
    const { t: T, r: R } = this.topo;
    // The server's times are whole ms inside the client's, so truncation adds no skew.
    const serverStart = this.ceilMs(at + this.half());
    let x = serverStart + 100 * US;
    const spans: [number, number, number][] = [];
    const findNs = this.lognormal(1, 0.3, 100 * US);
    spans.push([T.redisFind, x, x + findNs]);
    x += findNs;
    for (let c = 0; c < this.app.loopCalls; c++) {
      x += Math.round((20 + 280 * this.rng.float()) * US);
      const ns = this.lognormal(0.8, 0.4, 50 * US);
      spans.push([T.redisGet, x, x + ns]);
      x += ns;
    }
    const serverEnd = this.ceilMs(x + 100 * US);
    const clientEnd = serverEnd + this.half();
    const client = this.span(t, R.frontend, T.driverClient, r, root, at, clientEnd);
    const server = this.span(t, R.driver, T.driverServer, r, client, serverStart, serverEnd);
    spans.forEach(([tpl, s, e], c) => {
      const span = this.span(t, R.driver, tpl, r, server, this.floorMs(s), this.floorMs(e));
      if (c === 1 + duplicatedLoopCall && i % this.app.duplicateEvery === duplicateOffsets.loopCall)
        t.duplicate(span);
    });
    return clientEnd;
  }

  /**
   * poolCalls route calls dispatched at once through poolWorkers workers: each worker takes the
   * next call when it is free, so a call waits from the dispatch until a worker picks it up.
   */
  private routePool(t: TreeSpans, r: number, root: number, dispatch: number): number {
    const { t: T, r: R } = this.topo;
    const w = this.workers;
    w.fill(dispatch);
    let end = dispatch;
    for (let c = 0; c < this.app.poolCalls; c++) {
      let k = 0;
      for (let j = 1; j < w.length; j++) if ((w[j] ?? 0) < (w[k] ?? 0)) k = j;
      const wrapStart =
        Math.max(dispatch + c * 5 * US, w[k] ?? 0) + Math.round((10 + 40 * this.rng.float()) * US);
      const httpStart = wrapStart + 10 * US;
      const httpEnd = httpStart + this.lognormal(5, 0.35, 500 * US);
      const wrapEnd = httpEnd + 10 * US;
      const wrap = this.span(t, R.frontend, T.routeWrap, r, root, wrapStart, wrapEnd);
      const http = this.span(t, R.frontend, T.routeHttp, r, wrap, httpStart, httpEnd);
      this.span(t, R.route, T.routeServer, r, http, httpStart + this.half(), httpEnd - this.half());
      w[k] = wrapEnd;
      end = Math.max(end, wrapEnd);
    }
    return end;
  }

  /** One quote call to every pricing host at once; the last host's clock runs ahead. */
  private quotes(t: TreeSpans, r: number, root: number, at: number): number {
    const { t: T, r: R } = this.topo;
    const hosts = this.app.parallelHosts;
    let end = at;
    for (let h = 0; h < hosts; h++) {
      const s = at + h * 20 * US;
      const e = s + this.lognormal(4, 0.5, 1 * MS);
      const skew = h === hosts - 1 ? Math.round(this.app.skewMs * MS) : 0;
      const client = this.span(t, R.frontend, T.quote[h] ?? 0, r, root, s, e);
      const serverStart = s + this.half() + skew;
      this.span(
        t,
        R.pricing[h] ?? 0,
        T.quoteServer,
        r,
        client,
        serverStart,
        e - this.half() + skew,
      );
      end = Math.max(end, e);
    }
    return end;
  }

  /** One Kafka message, consumed later by two services (after the request may have ended). */
  private publish(t: TreeSpans, r: number, root: number, at: number): number {
    const { t: T, r: R } = this.topo;
    const e = at + this.lognormal(0.5, 0.3, 100 * US);
    const p = this.span(t, R.frontend, T.publish, r, root, at, e);
    const n = e + Math.round((1 + 4 * this.rng.float()) * MS);
    this.span(t, R.notifier, T.notify, r, p, n, n + this.lognormal(2, 0.4, 200 * US));
    const a = e + Math.round((1 + 7 * this.rng.float()) * MS);
    this.span(t, R.audit, T.audit, r, p, a, a + this.lognormal(3, 0.4, 200 * US));
    return e;
  }
}
