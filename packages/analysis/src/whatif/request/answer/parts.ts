/**
 * A whole-request answer split into parts of the requests, each planned and replayed on its own
 * and merged back bit for bit.
 */

import type { LeafCalls } from '../../../types';
import type { RequestHead } from './answer';
import { buildRequestPlan, planState, runPlan, type RequestPlan } from '../plan';
import { ArenaMemory } from '../arena';
import type { RequestTrees } from '../trees';

/**
 * A whole-request answer split into parts of the requests (issue #14's performance part: the
 * parts are planned and replayed on separate threads). Each request is planned on its own, so
 * the parts' plans laid end to end are the whole plan, bit for bit: block, group and involved
 * numbers shift by the parts before. The answer therefore does not depend on how the parts are
 * spread over threads, nor on their size; the policy's replay (its draws cross requests in time
 * order) runs once over the merged target calls, as in the one-thread answer.
 */

/** Requests per part: small enough to spread over threads evenly, big enough to cost little. */
export const PART_REQUESTS = 65_536;

/** The parts [from, to) of `requests` requests, in order. */
export function requestParts(
  requests: number,
  size = PART_REQUESTS,
): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (let from = 0; from < requests; from += size)
    out.push({ from, to: Math.min(requests, from + size) });
  return out;
}

/** A part's plan as the answer needs it (copies: a plan's columns are views of bigger buffers). */
export function partHead(plan: RequestPlan, calls: boolean): RequestHead {
  const b = plan.blocks;
  const copy = <A extends Float64Array | Uint32Array>(a: A): A => a.slice() as A;
  return {
    involved: plan.involved.slice(),
    groups: plan.groups,
    groupRecordedMs: plan.groupRecordedMs.slice(),
    repeated: plan.repeated,
    blocks: {
      ...b,
      fanoutOffsets: calls ? copy(b.fanoutOffsets) : new Uint32Array([0]),
      fanoutStartMs: calls ? copy(b.fanoutStartMs) : new Float64Array(0),
      startMs: calls ? copy(b.startMs) : new Float64Array(0),
      durationMs: calls ? copy(b.durationMs) : new Float64Array(0),
      host: calls ? copy(b.host) : new Uint32Array(0),
      mode: calls ? copy(b.mode) : new Uint32Array(0),
      background: calls ? copy(b.background) : new Uint32Array(0),
    },
  };
}

/** Where each part's rows start in the merged answer (length parts + 1: the totals last). */
export interface PartOffsets {
  involved: Uint32Array;
  groups: Uint32Array;
  blocks: Uint32Array;
}

/**
 * The parts' heads laid end to end: the whole plan's head (involved requests, groups, target
 * calls as one LeafCalls for the policy). `blocks`: each part's block count (a pool plan's
 * head carries no calls, partHead(plan, false)).
 */
export function mergeParts(
  heads: readonly RequestHead[],
  blocks: readonly number[],
): { head: RequestHead; at: PartOffsets } {
  const P = heads.length;
  const at: PartOffsets = {
    involved: new Uint32Array(P + 1),
    groups: new Uint32Array(P + 1),
    blocks: new Uint32Array(P + 1),
  };
  let calls = 0;
  for (let i = 0; i < P; i++) {
    const h = heads[i]!;
    at.involved[i + 1] = at.involved[i]! + h.involved.length;
    at.groups[i + 1] = at.groups[i]! + h.groups;
    at.blocks[i + 1] = at.blocks[i]! + blocks[i]!;
    calls += h.blocks.durationMs.length;
  }
  const cat = <A extends Float64Array | Uint32Array>(
    make: (n: number) => A,
    of: (h: RequestHead) => A,
  ): A => {
    let n = 0;
    for (const h of heads) n += of(h).length;
    const out = make(n);
    let k = 0;
    for (const h of heads) {
      out.set(of(h), k);
      k += of(h).length;
    }
    return out;
  };
  const offsets = new Uint32Array(calls > 0 ? at.blocks[P]! + 1 : 1);
  if (calls > 0) {
    let c = 0;
    for (let i = 0; i < P; i++) {
      const off = heads[i]!.blocks.fanoutOffsets;
      for (let b = 1; b < off.length; b++) offsets[at.blocks[i]! + b] = c + off[b]!;
      c += off[off.length - 1]!;
    }
  }
  const first = heads[0]?.blocks;
  const f64 = (n: number): Float64Array => new Float64Array(n);
  const u32 = (n: number): Uint32Array => new Uint32Array(n);
  const merged: LeafCalls = {
    fanoutOffsets: offsets,
    fanoutStartMs: cat(f64, (h) => h.blocks.fanoutStartMs),
    traceIds: [],
    startMs: cat(f64, (h) => h.blocks.startMs),
    durationMs: cat(f64, (h) => h.blocks.durationMs),
    host: cat(u32, (h) => h.blocks.host),
    mode: cat(u32, (h) => h.blocks.mode),
    background: cat(u32, (h) => h.blocks.background),
    hosts: first?.hosts ?? [],
    modes: first?.modes ?? [],
    backgrounds: first?.backgrounds ?? ['none'],
  };
  return {
    head: {
      involved: cat(u32, (h) => h.involved),
      groups: at.groups[P]!,
      groupRecordedMs: cat(f64, (h) => h.groupRecordedMs),
      repeated: heads.some((h) => h.repeated),
      blocks: merged,
    },
    at,
  };
}

/**
 * Replays part `i` (its plan) `replays` times into the merged outputs: reqAll and fanAll hold
 * every replay's involved requests and groups of all parts, one replay after another (as the
 * one-thread answer lays them out). `blockMs`: the policy's times of every part's blocks, one
 * replay after another; undefined for the pool policy, whose times are the part's own recorded
 * durations (one replay). `workers`: the pool policy's k, else Infinity.
 */
export function replayPart(
  plan: RequestPlan,
  i: number,
  at: PartOffsets,
  blockMs: Float64Array | undefined,
  replays: number,
  workers: number,
  reqAll: Float64Array,
  fanAll: Float64Array,
): void {
  const P = at.involved.length - 1;
  const n = at.involved[P]!;
  const G = at.groups[P]!;
  const k0 = at.involved[i]!;
  const g0 = at.groups[i]!;
  const nk = plan.involved.length;
  const st = planState(plan, workers);
  for (let r = 0; r < replays; r++) {
    const req = reqAll.subarray(r * n + k0, r * n + k0 + nk);
    const fan = fanAll.subarray(r * G + g0, r * G + g0 + plan.groups);
    if (blockMs === undefined) runPlan(plan, plan.blocks.durationMs, r, st, req, fan);
    else runPlan(plan, blockMs, r, st, req, fan, at.blocks[P], at.blocks[i]);
  }
}

/** One part's pool answer (poolPart). */
export interface PoolPart {
  head: RequestHead;
  /** The part's involved requests' and groups' new times (one replay). */
  requestMs: Float64Array;
  fanoutMs: Float64Array;
}

/** Requests per part of a pool answer planned and replayed part by part (poolPart). */
export const POOL_PART_REQUESTS = 16384;

/**
 * The pool policy's answer for requests [from, to): planned (in `memory`, reused part after
 * part) and replayed at once. The pool policy draws nothing and each request is planned alone,
 * so a part needs nothing from another: the parts' outputs laid end to end are the one-plan
 * answer's (mergePoolParts). `workers`: the policy's k.
 */
export function poolPart(
  trees: RequestTrees,
  mask: Uint8Array,
  range: { from: number; to: number },
  workers: number,
  memory: ArenaMemory,
): PoolPart {
  const plan = buildRequestPlan(trees, {
    target: mask,
    perCall: true,
    workers: Infinity,
    durationsOnly: true,
    ...range,
    memory,
  });
  const requestMs = new Float64Array(plan.involved.length);
  const fanoutMs = new Float64Array(plan.groups);
  runPlan(plan, plan.blocks.durationMs, 0, planState(plan, workers), requestMs, fanoutMs);
  return { head: partHead(plan, false), requestMs, fanoutMs };
}

/** Every part of a pool answer, one after another in this thread (poolPart). */
export function poolParts(
  trees: RequestTrees,
  mask: Uint8Array,
  workers: number,
  size = POOL_PART_REQUESTS,
): PoolPart[] {
  const memory = new ArenaMemory();
  return requestParts(trees.nodeOffsets.length - 1, size).map((r) =>
    poolPart(trees, mask, r, workers, memory),
  );
}

/** The pool parts laid end to end: the head, every involved request's and group's new time. */
export function mergePoolParts(parts: readonly PoolPart[]): {
  head: RequestHead;
  at: PartOffsets;
  reqAll: Float64Array;
  fanAll: Float64Array;
} {
  const { head, at } = mergeParts(
    parts.map((p) => p.head),
    parts.map(() => 0),
  );
  const reqAll = new Float64Array(head.involved.length);
  const fanAll = new Float64Array(head.groups);
  parts.forEach((p, i) => {
    reqAll.set(p.requestMs, at.involved[i]);
    fanAll.set(p.fanoutMs, at.groups[i]);
  });
  return { head, at, reqAll, fanAll };
}
