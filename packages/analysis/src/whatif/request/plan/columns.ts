/**
 * The plan's growing columns and the per-request scratch its passes share.
 */

import { GrowF64, GrowI32 } from './grow';
import { Arena, arenaBytes, type ArenaMemory } from '../arena';
import { PlanState, type PlanArrays } from './run';

/** The plan's columns while they are built (see PlanArrays). */
export class PlanColumns {
  readonly pDur = new GrowF64(1024);
  readonly pBlock0 = new GrowI32(1024);
  readonly pRec = new GrowF64(1024);
  readonly pCbc0 = new GrowI32(1024);
  readonly bKind = new GrowI32(4096);
  readonly bArg = new GrowI32(4096);
  readonly bVal = new GrowF64(4096);
  readonly bFan = new GrowI32(4096);
  readonly bStart = new GrowF64(4096);
  readonly bPtr = new GrowI32(4096);
  readonly bRecMax = new GrowF64(4096);
  readonly bOrder = new GrowI32(4096);
  readonly cbcGroup = new GrowI32(256);
  readonly cbcB0 = new GrowI32(256);
  readonly cbcBlock = new GrowI32(256);
  readonly poolKn = new GrowI32(256);
  readonly poolC0 = new GrowI32(256);
  readonly poolSrc = new GrowI32(256);
  readonly pcKind = new GrowI32(1024);
  readonly pcArg = new GrowI32(1024);
  readonly pcVal = new GrowF64(1024);
  readonly pcDelay = new GrowF64(1024);
  constructor() {
    this.pBlock0.push(0);
    this.pCbc0.push(0);
    this.cbcB0.push(0);
    this.poolC0.push(0);
  }
  /**
   * Room for `factor` times the rows so far in every column (and in `more`), all in one
   * buffer: one large allocation instead of a dozen doublings (each a full collection, see
   * arena.ts).
   */
  reserve(factor: number, more: (GrowF64 | GrowI32)[] = [], memory?: ArenaMemory): void {
    const cols = [...(Object.values(this) as (GrowF64 | GrowI32)[]), ...more];
    const cap = (c: GrowF64 | GrowI32): number => Math.ceil(Math.max(c.n, 1) * factor);
    let bytes = 0;
    for (const c of cols) bytes += arenaBytes(cap(c) * c.a.BYTES_PER_ELEMENT);
    const arena = new Arena(bytes, memory, 1);
    for (const c of cols) c.moveTo(arena, cap(c));
  }
  /** Typed arrays of exactly the planned length (views: copying hundreds of MB costs more). */
  compact(): PlanArrays {
    return {
      pDur: this.pDur.done(),
      pBlock0: this.pBlock0.done(),
      pRec: this.pRec.done(),
      pCbc0: this.pCbc0.done(),
      bKind: this.bKind.done(),
      bArg: this.bArg.done(),
      bVal: this.bVal.done(),
      bFan: this.bFan.done(),
      bStart: this.bStart.done(),
      bPtr: this.bPtr.done(),
      bRecMax: this.bRecMax.done(),
      bOrder: this.bOrder.done(),
      cbcGroup: this.cbcGroup.done(),
      cbcB0: this.cbcB0.done(),
      cbcBlock: this.cbcBlock.done(),
      poolKn: this.poolKn.done(),
      poolC0: this.poolC0.done(),
      poolSrc: this.poolSrc.done(),
      pcKind: this.pcKind.done(),
      pcArg: this.pcArg.done(),
      pcVal: this.pcVal.done(),
      pcDelay: this.pcDelay.done(),
    };
  }

  /** The columns as they stand (the buffers change as they grow: take a fresh view each time). */
  view(): PlanArrays {
    return {
      pDur: this.pDur.a,
      pBlock0: this.pBlock0.a,
      pRec: this.pRec.a,
      pCbc0: this.pCbc0.a,
      bKind: this.bKind.a,
      bArg: this.bArg.a,
      bVal: this.bVal.a,
      bFan: this.bFan.a,
      bStart: this.bStart.a,
      bPtr: this.bPtr.a,
      bRecMax: this.bRecMax.a,
      bOrder: this.bOrder.a,
      cbcGroup: this.cbcGroup.a,
      cbcB0: this.cbcB0.a,
      cbcBlock: this.cbcBlock.a,
      poolKn: this.poolKn.a,
      poolC0: this.poolC0.a,
      poolSrc: this.poolSrc.a,
      pcKind: this.pcKind.a,
      pcArg: this.pcArg.a,
      pcVal: this.pcVal.a,
      pcDelay: this.pcDelay.a,
    };
  }
}

/**
 * One request's nodes as local arrays (index i: node a + i), filled by request/plan/plan.ts: the
 * children CSR in recorded start order and what the target edge made of each node.
 */
export interface LocalRequest {
  a: number;
  kStart: Int32Array;
  kList: Int32Array;
  /** Global block (LeafCalls fan-out) and group of a target call, else -1. */
  blockOf: Int32Array;
  groupOf: Int32Array;
  /** 1: the call is in a target parallel group replayed as one fan-out. */
  whole: Uint8Array;
  /** Lone target call: its lone index (value from the policy), else -1. */
  lone: Int32Array;
  /**
   * Planned parent: its index; STATIC: a parent evaluated once (its time in cval); else -1
   * (its recorded time).
   */
  slot: Int32Array;
  cval: Float64Array;
}

/** Per-parent scratch, sized to the widest parent seen. */
export class ParentScratch {
  used = new Uint8Array(64);
  bEnd = new Float64Array(64);
  bGrp = new Int32Array(64);
  order = new Int32Array(64);
  recFree = new Float64Array(64);
  /** A constant pool's calls' dispatch delays and times (request/plan/shape-run.ts). */
  poolDelay = new Float64Array(64);
  poolVal = new Float64Array(64);
  st = new PlanState(0, 0, 64, 64);
  fan = new Float64Array(0);
  fit(n: number): void {
    if (n <= this.used.length) return;
    const m = 2 * n;
    this.used = new Uint8Array(m);
    this.bEnd = new Float64Array(m);
    this.bGrp = new Int32Array(m);
    this.order = new Int32Array(m);
    this.recFree = new Float64Array(m);
    this.poolDelay = new Float64Array(m);
    this.poolVal = new Float64Array(m);
    this.st = new PlanState(0, 0, m, m);
  }
}
