import { describe, expect, it } from 'vitest';
import { SeededRandom } from './random';

describe('SeededRandom.clone', () => {
  it('goes on with the same stream, drawn apart from the original', () => {
    const a = new SeededRandom(17);
    a.uint32();
    a.beta(3, 5);
    const b = a.clone();
    const fromClone = [b.uint32(), b.float(), b.beta(2, 9)];
    expect([a.uint32(), a.float(), a.beta(2, 9)]).toEqual(fromClone);
    expect(fromClone[0]).not.toBe(new SeededRandom(0).uint32());
  });
});
