/**
 * Append-only typed arrays that double when full: the plan's columns.
 */

import type { Arena } from '../arena';

/**
 * Append-only typed arrays that double when full: the replay plan's columns, whose lengths are
 * known only once every request is planned. One class per element type keeps each push
 * monomorphic (V8 inlines it).
 */
export class GrowF64 {
  a: Float64Array;
  n = 0;
  constructor(capacity: number) {
    this.a = new Float64Array(Math.max(16, capacity));
  }
  /** Moves the values into `capacity` slots taken from `arena` (one buffer for many columns). */
  moveTo(arena: Arena, capacity: number): void {
    const b = arena.f64(Math.max(capacity, this.n));
    b.set(this.a.subarray(0, this.n));
    this.a = b;
  }
  /**
   * Room for `extra` more values: a loop that knows its count then writes `a` directly (no
   * call and capacity check per value; push was a tenth of the plan's build).
   */
  ensure(extra: number): Float64Array {
    if (this.n + extra > this.a.length) {
      const b = new Float64Array(Math.max(this.a.length * 2, this.n + extra));
      b.set(this.a.subarray(0, this.n));
      this.a = b;
    }
    return this.a;
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  /** The values pushed (a view: copying hundreds of MB would cost more than the slack). */
  done(): Float64Array {
    return this.a.subarray(0, this.n);
  }
}

export class GrowI32 {
  a: Int32Array;
  n = 0;
  constructor(capacity: number) {
    this.a = new Int32Array(Math.max(16, capacity));
  }
  moveTo(arena: Arena, capacity: number): void {
    const b = arena.i32(Math.max(capacity, this.n));
    b.set(this.a.subarray(0, this.n));
    this.a = b;
  }
  /**
   * Room for `extra` more values: a loop that knows its count then writes `a` directly (no
   * call and capacity check per value; push was a tenth of the plan's build).
   */
  ensure(extra: number): Int32Array {
    if (this.n + extra > this.a.length) {
      const b = new Int32Array(Math.max(this.a.length * 2, this.n + extra));
      b.set(this.a.subarray(0, this.n));
      this.a = b;
    }
    return this.a;
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): Int32Array {
    return this.a.subarray(0, this.n);
  }
}
