import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../random';
import { randomTrees } from '../../testing/random-trees';
import type { RequestTrees } from '../trees/trees';
import { buildRequestPlan, type PlanOptions, type RequestPlan } from './plan';
import { synthesizeRequests } from '../trees/synthetic-requests';
import { targetMask } from '../answer/simulate';
import { requestShapes } from '../trees/shapes';
import { ArenaMemory } from '../arena';
import { prepareRequestWhatIf } from '../answer/simulate';

/**
 * `distinct` random requests, each repeated `copies` times with its times moved (by whole and
 * half milliseconds, so ties stay common): requests that share a shape, some of whose children
 * change order between copies (the shape's program must then hand them to the general path).
 */
function repeatedShapes(seed: number, distinct: number, copies: number): RequestTrees {
  const t = randomTrees(seed, distinct);
  const rng = new SeededRandom(seed + 77);
  const n = t.parent.length * copies;
  const out: RequestTrees = {
    ...t,
    nodeOffsets: new Uint32Array(distinct * copies + 1),
    requestStartMs: new Float64Array(distinct * copies),
    parent: new Int32Array(n),
    startMs: new Float64Array(n),
    durationMs: new Float64Array(n),
    edge: new Int32Array(n),
    host: new Uint32Array(n),
    mode: new Uint32Array(n),
    structure: new Uint8Array(n),
    concurrency: new Uint32Array(n),
  };
  let k = 0;
  let r = 0;
  for (let c = 0; c < copies; c++)
    for (let q = 0; q < distinct; q++) {
      const a = t.nodeOffsets[q]!;
      const z = t.nodeOffsets[q + 1]!;
      const base = k;
      out.requestStartMs[r] = 1e12 + r * 5;
      for (let i = a; i < z; i++, k++) {
        out.parent[k] = t.parent[i]! < 0 ? -1 : base + t.parent[i]! - a;
        const move = c === 0 ? 0 : rng.below(5) / 2;
        // Odd copies: whole milliseconds, so siblings tie often (the program may swap tied
        // leaves, never a leaf and a subtree).
        const at = c % 2 === 1 ? Math.floor(t.startMs[i]! / 4) : t.startMs[i]! + move;
        out.startMs[k] = i === a ? 0 : at;
        out.durationMs[k] = rng.below(3) === 0 ? t.durationMs[i]! : rng.below(120) / 2;
        out.edge[k] = t.edge[i]!;
        out.host[k] = rng.below(3);
        out.structure[k] = t.structure[i]!;
        out.concurrency[k] = t.concurrency[i]!;
      }
      out.nodeOffsets[++r] = k;
    }
  return out;
}

function columns(p: RequestPlan): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [key, v] of Object.entries(p))
    if (ArrayBuffer.isView(v)) out[key] = Array.from(v as Float64Array);
  for (const [key, v] of Object.entries(p.blocks))
    if (ArrayBuffer.isView(v)) out[`blocks.${key}`] = Array.from(v as Float64Array);
  for (const key of ['parents', 'lones', 'groups', 'maxBlocks', 'maxPool'] as const)
    out[key] = [p[key]];
  out.flags = [p.repeated ? 1 : 0, p.overflow ? 1 : 0];
  return out;
}

describe('request shapes: a shape program plans a request as the general path does', () => {
  it('every plan column bit for bit, on requests that repeat shapes with moved times', () => {
    let planned = 0;
    let byShape = 0;
    for (let seed = 2; seed <= 40; seed += 2) {
      const t = repeatedShapes(seed, 12, 12);
      const numbered = { ...t, shape: requestShapes(t) };
      const rng = new SeededRandom(seed + 3000);
      for (const perCall of [false, true]) {
        const target = Uint8Array.from([1, rng.below(2), 0, rng.below(2)]);
        for (const workers of [undefined, 2, Infinity]) {
          const o: PlanOptions = { target, perCall, ...(workers !== undefined ? { workers } : {}) };
          const opts: PlanOptions[] = [o];
          if (perCall) opts.push({ ...o, durationsOnly: true });
          for (const x of opts) {
            const general = buildRequestPlan(t, { ...x, shapes: false });
            const shaped = buildRequestPlan(t, x);
            const what = `seed ${String(seed)} perCall ${String(perCall)} workers ${String(workers)}`;
            expect(columns(shaped), what).toEqual(columns(general));
            // The same with the shapes numbered when the trees were built (found by number).
            expect(columns(buildRequestPlan(numbered, x)), what).toEqual(columns(general));
            planned += general.involved.length;
            byShape += shaped.shaped;
          }
        }
      }
    }
    // The comparison is not vacuous: thousands of requests planned each way, a good part by shape (the moved times put many children out of order, so
    // many go the general way too).
    expect(planned).toBeGreaterThan(5000);
    expect(byShape).toBeGreaterThan(planned / 8);
  });

  it('a split plan (parts from the middle of the trees) equals the general one too', () => {
    const t = repeatedShapes(8, 20, 10);
    const target = Uint8Array.from([1, 1, 0, 0]);
    for (const [from, to] of [
      [0, 70],
      [70, 200],
    ] as const) {
      const o: PlanOptions = { target, perCall: true, workers: 3, from, to };
      expect(columns(buildRequestPlan(t, o))).toEqual(
        columns(buildRequestPlan(t, { ...o, shapes: false })),
      );
    }
  });

  it('HotROD-shaped requests: nearly all planned by their shape, the same columns', () => {
    const t = synthesizeRequests({ requests: 2000, workers: 3, seed: 5, routeHosts: 4 });
    for (const e of t.edges) {
      const target = targetMask(t, e);
      for (const o of [
        { target, perCall: false },
        { target, perCall: true, workers: Infinity, durationsOnly: true },
      ]) {
        const general = buildRequestPlan(t, { ...o, shapes: false });
        const shaped = buildRequestPlan(t, o);
        expect(columns(shaped), `${e.parentService} -> ${e.leafService}`).toEqual(columns(general));
        // Starts tie or reorder in a few requests; the rest run their shape's program.
        expect(shaped.shaped).toBeGreaterThan(0.8 * general.involved.length);
      }
    }
  });

  it('tied siblings: leaves may trade places, a leaf and a subtree may not', () => {
    // Root -> two calls on edge 0 (node 1 a leaf, node 2 calling node 3 on the target edge 1).
    // Requests 0-1 in node order (the shape compiles); then node 1 ties node 2's start and
    // ends later, so the general path puts node 2 first.
    const R = 6;
    const starts = [0, 1, 2, 3];
    const t: RequestTrees = {
      nodeOffsets: Uint32Array.from({ length: R + 1 }, (_, q) => 4 * q),
      requestStartMs: Float64Array.from({ length: R }, (_, q) => 1e12 + 100 * q),
      traceIds: [],
      parent: Int32Array.from({ length: 4 * R }, (_, i) =>
        i % 4 === 0 ? -1 : i % 4 === 3 ? i - 1 : i - (i % 4),
      ),
      startMs: Float64Array.from({ length: 4 * R }, (_, i) =>
        i % 4 === 2 && i >= 8 ? 1 : starts[i % 4]!,
      ),
      durationMs: Float64Array.from({ length: 4 * R }, (_, i) =>
        i % 4 === 0 ? 50 : i % 4 === 1 ? 30 : 10,
      ),
      edge: Int32Array.from({ length: 4 * R }, (_, i) => [-1, 0, 0, 1][i % 4]!),
      host: new Uint32Array(4 * R),
      mode: new Uint32Array(4 * R),
      structure: Uint8Array.from({ length: 4 * R }, (_, i) => [0, 3, 3, 0][i % 4]!),
      concurrency: new Uint32Array(4 * R).fill(1),
      edges: [0, 1].map((e) => ({
        parentService: 'p',
        parentOperation: 'op',
        leafService: `s${String(e)}`,
        leafOperation: 'op',
      })),
      hosts: [''],
      modes: [''],
    };
    const o: PlanOptions = { target: Uint8Array.from([0, 1]), perCall: true, workers: 2 };
    const general = buildRequestPlan(t, { ...o, shapes: false });
    const shaped = buildRequestPlan(t, o);
    expect(columns(shaped)).toEqual(columns(general));
    expect(shaped.shaped).toBe(0); // compiled from request 1; requests 2-5 may not swap
  });

  it('requestShapes numbers two requests alike exactly when their nodes are alike', () => {
    for (let seed = 2; seed <= 12; seed += 2) {
      const t = repeatedShapes(seed, 15, 4);
      const ids = requestShapes(t);
      const sig = (q: number): string => {
        const a = t.nodeOffsets[q]!;
        const z = t.nodeOffsets[q + 1]!;
        const out: number[] = [];
        for (let i = a; i < z; i++) {
          const p = t.parent[i]! - a;
          out.push(p >= 0 && p < z - a ? p : -1, t.edge[i]!, t.structure[i]!, t.concurrency[i]!);
        }
        return out.join(',');
      };
      const R = t.nodeOffsets.length - 1;
      for (let x = 0; x < R; x++)
        for (let y = x + 1; y < R; y += 7) expect(ids[x] === ids[y]).toBe(sig(x) === sig(y));
      // Copies of one request share a number; 15 distinct requests give at most 15 numbers.
      expect(new Set(ids).size).toBeLessThanOrEqual(15);
      expect(ids[0]).toBe(ids[15]);
    }
  });

  it('a plan made in memory reused from another plan equals a fresh one (hedge, tied)', () => {
    const t = synthesizeRequests({ requests: 3000, workers: 3, seed: 9, routeHosts: 4 });
    const route = { leafService: 'route', leafOperation: 'HTTP GET /route' };
    for (const policy of [
      { kind: 'hedge', delayPercentile: 90 },
      { kind: 'tied', delayMs: 1 },
    ] as const) {
      const memory = new ArenaMemory();
      // Bigger first, then smaller: the second plan reuses buffers holding the first's rows.
      prepareRequestWhatIf(t, route, policy, { from: 0, to: 2000 }, memory);
      const reused = prepareRequestWhatIf(t, route, policy, { from: 2000, to: 3000 }, memory);
      const fresh = prepareRequestWhatIf(t, route, policy, { from: 2000, to: 3000 });
      expect(columns(reused.plan)).toEqual(columns(fresh.plan));
    }
  });
});
