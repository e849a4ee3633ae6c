/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array fills, in bounds by construction. */
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../random';
import { randomTrees } from './request-trees-random';
import type { RequestTrees } from './request-trees';
import { buildRequestPlan, type PlanOptions, type RequestPlan } from './request-plan';

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
        out.startMs[k] = i === a ? 0 : t.startMs[i]! + move;
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
});
