import { describe, expect, it } from 'vitest';
import { SharedScratch } from './shared-scratch';

describe('SharedScratch', () => {
  it('gives the next answer the k-th buffer of the last one when it is big enough', () => {
    const scratch = new SharedScratch();
    const a = scratch.take();
    const a0 = a.f64(100);
    const a1 = a.u32(50);
    const a2 = a.copy(Float64Array.of(1, 2, 3));
    expect(a0.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([...a2]).toEqual([1, 2, 3]);
    a.done(true);
    const b = scratch.take();
    const b0 = b.f64(80); // fits in a0's buffer
    const b1 = b.u32(60); // does not fit in a1's: fresh memory
    const b2 = b.f64(3);
    expect(b0.buffer).toBe(a0.buffer);
    expect(b0.length).toBe(80);
    expect(b1.buffer).not.toBe(a1.buffer);
    expect(b2.buffer).toBe(a2.buffer);
    b.done(true);
  });

  it('gives an answer running beside another fresh memory, and keeps nothing of it', () => {
    const scratch = new SharedScratch();
    const first = scratch.take();
    const f0 = first.f64(10);
    first.done(true);
    const a = scratch.take();
    const b = scratch.take(); // a is still running
    expect(a.f64(10).buffer).toBe(f0.buffer);
    const b0 = b.f64(10);
    expect(b0.buffer).not.toBe(f0.buffer);
    b.done(true);
    a.done(true);
    expect(scratch.take().f64(10).buffer).toBe(f0.buffer);
  });

  it('reuses nothing after a failed answer (a thread may still write into its buffers)', () => {
    const scratch = new SharedScratch();
    const a = scratch.take();
    const a0 = a.f64(10);
    a.done(true);
    const b = scratch.take();
    expect(b.f64(10).buffer).toBe(a0.buffer);
    b.done(false);
    expect(scratch.take().f64(10).buffer).not.toBe(a0.buffer);
  });
});
