import { describe, expect, it } from 'vitest';
import { at } from './at';

describe('at', () => {
  it('reads in bounds, zeros and falsy values included', () => {
    expect(at(new Float64Array([0, 2.5]), 0)).toBe(0);
    expect(at(['', 'b'], 0)).toBe('');
    expect(at(new Uint32Array([7, 8]), 1)).toBe(8);
  });
  it('throws naming the index and the length out of bounds', () => {
    expect(() => at(new Uint32Array(3), 3)).toThrow('index 3 out of bounds (length 3)');
    expect(() => at([1], -1)).toThrow(RangeError);
  });
});
