import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { quoteBigIntegers } from './json-bigint';

describe('quoteBigIntegers', () => {
  it('quotes bare integers of 16 digits or more and nothing else', () => {
    expect(
      quoteBigIntegers('{"a":1544712660123456789,"b":[-9007199254740993, 12],"c":1.5e300}'),
    ).toBe('{"a":"1544712660123456789","b":["-9007199254740993", 12],"c":1.5e300}');
    expect(quoteBigIntegers('{"a":12345678901234567.5}')).toBe('{"a":12345678901234567.5}');
  });

  test.prop([fc.dictionary(fc.string(), fc.string())], { seed: 15, numRuns: 300 })(
    'leaves strings alone, digits and escapes included',
    (obj) => {
      const text = JSON.stringify({ ...obj, n: ':1234567890123456789,' });
      expect(JSON.parse(quoteBigIntegers(text))).toEqual(JSON.parse(text));
    },
  );
});
