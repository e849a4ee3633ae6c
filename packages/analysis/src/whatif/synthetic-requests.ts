/* eslint-disable @typescript-eslint/no-non-null-assertion -- array fills, in bounds by construction. */
import { SeededRandom } from '../random';
import { pack, STRUCTURE_CODE, type RequestTreeNode, type RequestTrees } from './request-trees';

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
  const requests = [];
  const spacing = 1000 / (o.perSecond ?? 50);
  for (let q = 0; q < o.requests; q++) {
    const nodes: RequestTreeNode[] = [];
    const node = (
      start: number,
      duration: number,
      edge: number,
      host: number,
      parent: number,
      structure: number,
      concurrency: number,
    ): number => {
      nodes.push({ start, duration, edge, host, mode: 0, parent, structure, concurrency });
      return nodes.length - 1;
    };
    node(0, 0, -1, 0, -1, 0, 1);
    let t = 1;
    const customer = 200 + exp(100);
    node(t, customer, 0, 1, 0, STRUCTURE_CODE.single, 1);
    t += customer + 1;
    const driver = node(t, 0, 1, 2, 0, STRUCTURE_CODE.single, 1);
    let d = t + 1;
    for (let k = 0; k < 3; k++) {
      const r = 5 + exp(3);
      node(d, r, 2, 3, driver, STRUCTURE_CODE.sequential, 1);
      d += r + 0.5;
    }
    d += 20 + exp(10);
    nodes[driver]!.duration = d - t;
    t = d + 1;
    const k = Math.min(o.workers, ROUTE_CALLS);
    const free = new Array<number>(k).fill(t);
    let end = t;
    const structure = k >= ROUTE_CALLS ? STRUCTURE_CODE.parallel : STRUCTURE_CODE.pool;
    for (let c = 0; c < ROUTE_CALLS; c++) {
      let w = 0;
      for (let j = 1; j < k; j++) if (free[j]! < free[w]!) w = j;
      const s = free[w]! + (structure === STRUCTURE_CODE.pool ? 0.1 : 0);
      const r = 20 + exp(30);
      node(s, r, 3, 4 + rng.below(routeHosts), 0, structure, k);
      free[w] = s + r;
      end = Math.max(end, s + r);
    }
    nodes[0]!.duration = end + 1;
    requests.push({
      traceId: q.toString(16).padStart(32, '0'),
      startNs: BigInt(Math.round((1.7e12 + q * spacing) * 1e6)),
      nodes,
    });
  }
  return pack(requests, edges, hosts, ['']);
}
