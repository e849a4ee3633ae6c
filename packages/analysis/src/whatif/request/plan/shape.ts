/**
 * A request shape's plan compiled into a program, for requests that share their shape.
 */

import { STRUCTURE_CODE, type RequestTrees } from '../trees';
import type { LocalRequest } from './columns';
import { STATIC } from './parent';
import { DYN } from './blocks';

/**
 * A request shape's plan as a program (issue #14's performance part). Requests of one service
 * share their shape: the same nodes with the same parents, edges, structures and concurrencies
 * (the microservices preset has one; HotROD a handful). Everything the planner decides from
 * the shape alone (the children lists, which parents are planned, how children form blocks,
 * each block's and pool call's source, the target blocks and groups) is decided once, from a
 * request planned the general way, and written here; a request of the same shape then only
 * reads its recorded times (request/plan/shape-run.ts). With the shape numbers kept in the
 * trees, the plan of the preset's 1M requests went from ~2.1 s to ~1.0 s CPU.
 *
 * Layout (Int32Array, read in order; "nodes" are local indexes):
 * 1. checks: count, then per parent whose children order is read: len, children in node order
 *    (a request runs the program when they are in recorded start order, as planned, or when
 *    only tied leaves changed places: request/plan/shape-order.ts);
 * 2. target groups in numbering order: count, then per group: len, its calls;
 * 3. target blocks in numbering order: count, then per block: kind (TB_*), len, its calls;
 * 4. planned parents, children first: count, then per parent: node, dynamic, children, blocks,
 *    then per block: OP_SINGLE node srcKind srcArg group | OP_WHOLE node block fan len nodes |
 *    OP_POOL node fan target constant run lone0 kr kn len (node srcKind srcArg) x len;
 * 5. the request's own source: srcKind srcArg.
 */
export interface Shape {
  m: number;
  /** Per node: local parent, edge, structure, concurrency (what the program depends on). */
  sig: Int32Array;
  prog: Int32Array;
  /** Per node: 1 when it has no children (ShapeRun may put tied leaves in each other's place). */
  leaf: Uint8Array;
  /** Whether a target group holds more than one call (TargetBlocks.repeated). */
  repeated: boolean;
  /** The most children of a planned parent (the plan's maxBlocks, maxPool). */
  most: number;
}

export const TB_WHOLE = 0;
export const TB_LONE = 1;
export const TB_LEAN = 2;
export const OP_SINGLE = 0;
export const OP_WHOLE = 1;
export const OP_POOL = 2;
/** Sources: a lone call (arg: its index in the request), a planned parent, a recorded duration, a parent evaluated once (arg: the node). */
export const S_LONE = 0;
export const S_PARENT = 1;
export const S_DUR = 2;
export const S_STATIC = 3;

/** The numbering where the general path started this request (bases of the relative numbers). */
export interface ShapeBases {
  nb: number;
  lone: number;
  ng: number;
}

interface Compile {
  t: RequestTrees;
  L: LocalRequest & { lpar: Int32Array; flag: Uint8Array };
  m: number;
  target: Uint8Array;
  perCall: boolean;
  lean: boolean;
  workers: number | undefined;
  base: ShapeBases;
}

function sourceOf(c: Compile, node: number, out: number[]): void {
  const { L } = c;
  if (L.lone[node]! >= 0) out.push(S_LONE, L.lone[node]! - c.base.lone);
  else if (L.slot[node]! >= 0) out.push(S_PARENT, node);
  else out.push(L.slot[node] === STATIC ? S_STATIC : S_DUR, node);
}

function kidsOf(L: LocalRequest, p: number): number[] {
  return Array.from(L.kList.subarray(L.kStart[p], L.kStart[p + 1]));
}

/**
 * Sections 2 and 3 (formRequestBlocks' iteration). Returns false when the request's numbering
 * is not the one derived (a group of mixed structures, not from real traces): no program.
 */
function targetSections(c: Compile, out: number[]): { ok: boolean; repeated: boolean } {
  const { t, L, m } = c;
  const groups: number[][] = [];
  const blocks: number[][] = [];
  const seen = new Map<string, number>();
  let repeated = false;
  for (let p = 0; p < m; p++) {
    if ((L.flag[p]! & DYN) === 0) continue;
    const kids = kidsOf(L, p);
    const inBlock = new Set<number>();
    for (const ch of kids) {
      const e = t.edge[L.a + ch]!;
      if (e < 0 || c.target[e] !== 1) continue;
      const key = `${String(p)}/${String(e)}`;
      const g = seen.get(key);
      if (g === undefined) {
        seen.set(key, groups.length);
        groups.push(kids.filter((k) => t.edge[L.a + k] === e));
      } else repeated = true;
      if (L.groupOf[ch]! - c.base.ng !== (g ?? groups.length - 1)) return { ok: false, repeated };
      const whole = !c.perCall && t.structure[L.a + ch] === STRUCTURE_CODE.parallel;
      if (whole && inBlock.has(ch)) continue;
      const b = blocks.length;
      if (whole) {
        const members = kids.slice(kids.indexOf(ch)).filter((k) => t.edge[L.a + k] === e);
        for (const k of members) {
          inBlock.add(k);
          if (L.blockOf[k]! - c.base.nb !== b || L.whole[k] !== 1 || L.lone[k]! >= 0)
            return { ok: false, repeated };
        }
        blocks.push([TB_WHOLE, members.length, ...members]);
      } else {
        if (L.blockOf[ch]! - c.base.nb !== b || L.whole[ch] === 1) return { ok: false, repeated };
        blocks.push([c.lean ? TB_LEAN : TB_LONE, 1, ch]);
      }
    }
  }
  out.push(groups.length);
  for (const g of groups) out.push(g.length, ...g);
  out.push(blocks.length);
  for (const b of blocks) out.push(...b);
  return { ok: true, repeated };
}

/** One planned parent's blocks (planBlocks' and planPool's decisions). */
function parentSection(c: Compile, p: number, out: number[]): number {
  const { t, L } = c;
  const kids = kidsOf(L, p);
  const used = new Set<number>();
  const body: number[] = [];
  let nb = 0;
  const fanOf = (ch: number): number => (L.groupOf[ch]! >= 0 ? L.groupOf[ch]! - c.base.ng : -1);
  for (let k = 0; k < kids.length; k++) {
    const ch = kids[k]!;
    if (used.has(k)) continue;
    const g = L.a + ch;
    const target = L.groupOf[ch]! >= 0;
    const st = t.structure[g]!;
    const grouped =
      L.whole[ch] === 1 ||
      st === STRUCTURE_CODE.pool ||
      (target && c.workers !== undefined && st !== STRUCTURE_CODE.single);
    nb++;
    if (!grouped) {
      body.push(OP_SINGLE, ch);
      sourceOf(c, ch, body);
      body.push(fanOf(ch));
      continue;
    }
    const e = t.edge[g]!;
    const members: number[] = [];
    for (let q = k; q < kids.length; q++) {
      if (t.edge[L.a + kids[q]!] !== e) continue;
      used.add(q);
      members.push(kids[q]!);
    }
    if (L.whole[ch] === 1) {
      body.push(OP_WHOLE, ch, L.blockOf[ch]! - c.base.nb, fanOf(ch), members.length, ...members);
      continue;
    }
    const policyK = target && c.workers !== undefined;
    const n = members.length;
    const kw = policyK ? c.workers! : t.concurrency[g]!;
    const lone0 = L.lone[ch]!;
    const run = lone0 >= 0 && members.every((d, j) => L.lone[d] === lone0 + j);
    const constant = members.every((d) => L.lone[d]! < 0 && L.slot[d]! < 0);
    body.push(OP_POOL, ch, fanOf(ch), policyK ? 1 : 0, constant ? 1 : 0, run ? 1 : 0);
    body.push(lone0 - c.base.lone, Math.max(1, Math.min(n, t.concurrency[g]!)));
    body.push(Math.max(1, Math.min(n, kw)), n);
    for (const d of members) {
      body.push(d);
      sourceOf(c, d, body);
    }
  }
  out.push(p, (L.flag[p]! & DYN) !== 0 ? 1 : 0, kids.length, nb, ...body);
  return kids.length;
}

/**
 * The program of request L's shape, compiled from its general plan just made (L as the
 * general path left it, `base` the numbering before it). Undefined when the request's storage
 * order or a mixed group leaves the program unable to say what the general path would.
 */
export function compileShape(c: Compile): Shape | undefined {
  const { t, L, m } = c;
  const checks: number[][] = [];
  for (let p = 0; p < m; p++) {
    const kids = kidsOf(L, p);
    if (kids.length < 2 || L.flag[p] === 0) continue;
    // The general path sorted them: this request's order is not node order.
    for (let k = 1; k < kids.length; k++) if (kids[k - 1]! > kids[k]!) return undefined;
    checks.push(kids);
  }
  const sig = new Int32Array(4 * m);
  for (let i = 0; i < m; i++) {
    if (L.lpar[i]! >= i) return undefined; // children-first needs parents first
    sig[4 * i] = L.lpar[i]!;
    sig[4 * i + 1] = t.edge[L.a + i]!;
    sig[4 * i + 2] = t.structure[L.a + i]!;
    sig[4 * i + 3] = t.concurrency[L.a + i]!;
  }
  const out: number[] = [];
  out.push(checks.length);
  for (const k of checks) out.push(k.length, ...k);
  const { ok, repeated } = targetSections(c, out);
  if (!ok) return undefined;
  const at = out.length;
  out.push(0);
  let most = 1;
  for (let x = m - 1; x >= 0; x--) {
    const nk = L.kStart[x + 1]! - L.kStart[x]!;
    if (L.flag[x] === 0 || nk === 0 || L.lone[x]! >= 0) continue;
    most = Math.max(most, parentSection(c, x, out));
    out[at]!++;
  }
  sourceOf(c, 0, out);
  const leaf = new Uint8Array(m);
  for (let i = 0; i < m; i++) leaf[i] = L.kStart[i + 1] === L.kStart[i] ? 1 : 0;
  return { m, sig, prog: Int32Array.from(out), leaf, repeated, most };
}
