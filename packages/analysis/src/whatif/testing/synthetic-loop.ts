/**
 * Requests with a known closed-loop model, for the loop-model tests (not exported).
 */

import { SeededRandom } from '../../random';
import { pack, STRUCTURE_CODE, type RequestTreeNode, type RequestTrees } from '../request/trees';

export interface SyntheticLoopOptions {
  requests: number;
  /** Clients sending back to back (closed loop); ignored when `perSecond` is set. */
  clients: number;
  /** Workers of the route pool (per request). */
  workers: number;
  /** Open loop instead: Poisson arrivals at this rate. */
  perSecond?: number;
  /** Think time between a client's requests, ms. Default 1. */
  thinkMs?: number;
  seed?: number;
  /** false: `db` serves every call at once (no lock). Default true. */
  locked?: boolean;
}

const ROUTE_CALLS = 6;

/**
 * Requests with a known closed-loop model (loop-model tests): the root calls `db` (one lock
 * shared by all requests, FIFO, hold 150 + exp(mean 50) ms), then 6 route calls on a pool of
 * `workers` (each 20 + exp(30) ms), 1 ms of self time before and after each step. Simulated
 * event by event, so the recording holds the true queue. O(requests x clients).
 */
export function synthesizeLoopRequests(o: SyntheticLoopOptions): RequestTrees {
  const rng = new SeededRandom(o.seed ?? 1);
  const exp = (mean: number): number => -mean * Math.log(1 - rng.float());
  const think = o.thinkMs ?? 1;
  const open = o.perSecond !== undefined;
  const clients = open ? o.requests : o.clients;
  const next: number[] = [];
  let t = 0;
  for (let c = 0; c < Math.min(clients, o.requests); c++) {
    if (open) t += exp(1000 / o.perSecond!);
    next.push(open ? t : c * 0.5);
  }
  let lockFree = -Infinity;
  const requests: { traceId: string; startNs: bigint; nodes: RequestTreeNode[] }[] = [];
  for (let q = 0; q < o.requests; q++) {
    let c = 0;
    for (let j = 1; j < next.length; j++) if (next[j]! < next[c]!) c = j;
    const start = next[c]!;
    const arrive = 1;
    const begin = o.locked === false ? start + arrive : Math.max(start + arrive, lockFree);
    const hold = 150 + exp(50);
    lockFree = begin + hold;
    const nodes: RequestTreeNode[] = [
      node(0, 0, -1, -1),
      node(arrive, begin + hold - start - arrive, 0, 0),
    ];
    const routeAt = lockFree - start + 1;
    const free = new Array<number>(o.workers).fill(routeAt);
    for (let k = 0; k < ROUTE_CALLS; k++) {
      let w = 0;
      for (let j = 1; j < free.length; j++) if (free[j]! < free[w]!) w = j;
      const d = 20 + exp(30);
      nodes.push({ ...node(free[w]!, d, 1, 0), structure: STRUCTURE_CODE.pool });
      free[w] = free[w]! + d;
    }
    const end = Math.max(...free) + 1;
    nodes[0]!.duration = end;
    for (const n of nodes.slice(2)) n.concurrency = Math.min(o.workers, ROUTE_CALLS);
    requests.push({
      traceId: q.toString(16).padStart(32, '0'),
      startNs: BigInt(Math.round((1e9 + start) * 1e6)),
      nodes,
    });
    if (open) next.splice(c, 1);
    else next[c] = start + end + think;
    if (next.length === 0) break;
  }
  return pack(
    requests,
    [
      {
        parentService: 'web',
        parentOperation: 'GET /',
        leafService: 'db',
        leafOperation: 'SELECT',
      },
      {
        parentService: 'web',
        parentOperation: 'GET /',
        leafService: 'route',
        leafOperation: 'GET /route',
      },
    ],
    ['', 'db-0', 'route-0'],
    [''],
  );
}

function node(start: number, duration: number, edge: number, parent: number): RequestTreeNode {
  return {
    start,
    duration,
    edge,
    host: edge < 0 ? 0 : edge + 1,
    mode: 0,
    parent,
    structure: STRUCTURE_CODE.single,
    concurrency: 1,
  };
}
