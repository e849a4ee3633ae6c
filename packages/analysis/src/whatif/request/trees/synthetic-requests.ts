/**
 * HotROD-shaped request trees with a known model, for tests and the benchmark.
 */

import { SeededRandom } from '../../../random';
import { STRUCTURE_CODE, type RequestTrees } from './trees';
import { requestShapes } from './shapes';

export interface SyntheticRequestsOptions {
  requests: number;
  /** Workers of the route pool (HotROD's -W flag); 10 route calls per request. */
  workers: number;
  seed?: number;
  /** Route instances (hosts). Default 1 (as HotROD). */
  routeHosts?: number;
  /** Requests per second. Default 50. */
  perSecond?: number;
}

const ROUTE_CALLS = 10;

/**
 * HotROD-shaped request trees with a known model, for tests and the benchmark: the frontend's
 * root calls customer (one call, 200 + exp(mean 100) ms), then driver (one call, 20 + exp(10) ms,
 * with 3 sequential redis calls of 5 + exp(3) ms inside), then route 10 times on a pool of
 * `workers` (each 20 + exp(30) ms, 0.1 ms dispatch delay), and keeps 1 ms of self time after
 * each step. O(requests).
 */
export function synthesizeRequests(o: SyntheticRequestsOptions): RequestTrees {
  const rng = new SeededRandom(o.seed ?? 1);
  const exp = (mean: number): number => -mean * Math.log(1 - rng.float());
  const routeHosts = o.routeHosts ?? 1;
  const hosts = [
    '',
    'customer-0',
    'driver-0',
    'redis-0',
    ...Array.from({ length: routeHosts }, (_, i) => `route-${i}`),
  ];
  const edges = [
    ['frontend', 'HTTP GET /dispatch', 'customer', 'HTTP GET /customer'],
    ['frontend', 'HTTP GET /dispatch', 'driver', '/driver.DriverService/FindNearest'],
    ['driver', '/driver.DriverService/FindNearest', 'redis', 'GetDriver'],
    ['frontend', 'HTTP GET /dispatch', 'route', 'HTTP GET /route'],
  ].map(([parentService, parentOperation, leafService, leafOperation]) => ({
    parentService: parentService!,
    parentOperation: parentOperation!,
    leafService: leafService!,
    leafOperation: leafOperation!,
  }));
  // Columns written directly (16 nodes a request): no per-node objects, so a benchmark of a
  // million requests does not pay the generator's garbage collection.
  const N = o.requests;
  const per = 6 + ROUTE_CALLS;
  const t: RequestTrees = {
    nodeOffsets: new Uint32Array(N + 1),
    requestStartMs: new Float64Array(N),
    traceIds: new Array<string>(N),
    parent: new Int32Array(N * per),
    startMs: new Float64Array(N * per),
    durationMs: new Float64Array(N * per),
    edge: new Int32Array(N * per),
    host: new Uint32Array(N * per),
    mode: new Uint32Array(N * per),
    structure: new Uint8Array(N * per),
    concurrency: new Uint32Array(N * per),
    edges,
    hosts,
    modes: [''],
  };
  const spacing = 1000 / (o.perSecond ?? 50);
  const k = Math.min(o.workers, ROUTE_CALLS);
  const routeStructure = k >= ROUTE_CALLS ? STRUCTURE_CODE.parallel : STRUCTURE_CODE.pool;
  const free = new Float64Array(k);
  let at = 0;
  const node = (
    start: number,
    duration: number,
    edge: number,
    host: number,
    parent: number,
    structure: number,
    concurrency: number,
  ): number => {
    t.startMs[at] = start;
    t.durationMs[at] = duration;
    t.edge[at] = edge;
    t.host[at] = host;
    t.parent[at] = parent;
    t.structure[at] = structure;
    t.concurrency[at] = concurrency;
    return at++;
  };
  for (let q = 0; q < N; q++) {
    t.traceIds[q] = q.toString(16).padStart(32, '0');
    t.requestStartMs[q] = 1.7e12 + q * spacing;
    const root = node(0, 0, -1, 0, -1, 0, 1);
    let now = 1;
    const customer = 200 + exp(100);
    node(now, customer, 0, 1, root, STRUCTURE_CODE.single, 1);
    now += customer + 1;
    const driver = node(now, 0, 1, 2, root, STRUCTURE_CODE.single, 1);
    let d = now + 1;
    for (let r = 0; r < 3; r++) {
      const ms = 5 + exp(3);
      node(d, ms, 2, 3, driver, STRUCTURE_CODE.sequential, 1);
      d += ms + 0.5;
    }
    d += 20 + exp(10);
    t.durationMs[driver] = d - now;
    now = d + 1;
    free.fill(now);
    let end = now;
    for (let c = 0; c < ROUTE_CALLS; c++) {
      let w = 0;
      for (let j = 1; j < k; j++) if (free[j]! < free[w]!) w = j;
      const st = free[w]! + (routeStructure === STRUCTURE_CODE.pool ? 0.1 : 0);
      const ms = 20 + exp(30);
      node(st, ms, 3, 4 + rng.below(routeHosts), root, routeStructure, k);
      free[w] = st + ms;
      end = Math.max(end, st + ms);
    }
    t.durationMs[root] = end + 1;
    t.nodeOffsets[q + 1] = at;
  }
  t.shape = requestShapes(t);
  return t;
}
