import { describe, expect, it } from 'vitest';
import { checkWhatIfBody } from './whatif-schema';

/** Issue 25: a policy kind named after an Object.prototype member answered 500. */
describe('checkWhatIfBody', () => {
  const base = { leafService: 'kv', leafOperation: 'get', from: 0, to: 60_000 };

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'])(
    'refuses policy.kind %s with a 400 naming the field',
    (kind) => {
      const error = checkWhatIfBody({ ...base, policy: { kind } });
      expect(error?.statusCode).toBe(400);
      expect(error?.message).toMatch(/^policy\.kind must be one of hedge/);
      expect(error?.message).toContain(JSON.stringify(kind));
    },
  );

  it('still accepts a real kind', () => {
    expect(checkWhatIfBody({ ...base, policy: { kind: 'hedge', delayMs: 5 } })).toBeNull();
  });
});
