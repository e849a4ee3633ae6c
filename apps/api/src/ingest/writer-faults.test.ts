import { describe, expect, it } from 'vitest';
import { failureOf, WriterFaults, type WriterFailure } from './writer-faults';

describe('failureOf', () => {
  it('tells a full disk and an I/O error from the store, by code or by the message', () => {
    const cases: [unknown, WriterFailure][] = [
      [Object.assign(new Error('write'), { code: 'ENOSPC' }), 'no_space'],
      [Object.assign(new Error('write'), { code: 'EDQUOT' }), 'no_space'],
      [
        new Error('Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space.'),
        'no_space',
      ],
      [
        new Error('Cannot write to file x, errno: 28, strerror: No space left on device'),
        'no_space',
      ],
      [new Error('ENOSPC: short write to /data/t-1.native'), 'no_space'],
      [Object.assign(new Error('read'), { code: 'EIO' }), 'io_error'],
      [new Error('Cannot open file: Read-only file system'), 'io_error'],
      [
        new Error('Code: 60. DB::Exception: Table default.otel_traces does not exist'),
        'store_error',
      ],
      [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'store_error'],
    ];
    for (const [err, want] of cases)
      expect([String(err), failureOf(err)]).toEqual([String(err), want]);
  });
});

describe('WriterFaults', () => {
  it('is stuck after two failures in a row, backs off, and clears on success', () => {
    const seen: WriterFailure[] = [];
    const faults = new WriterFaults(1000, (f) => seen.push(f));
    expect(faults.failed('batch log', Object.assign(new Error('w'), { code: 'ENOSPC' }))).toBe(100);
    expect(faults.stuck()).toBeUndefined();
    expect(faults.failed('insert', new Error('No space left on device'))).toBe(200);
    const stuck = faults.stuck();
    expect(stuck).toMatchObject({ stuck: true, failure: 'no_space', retryAfterSeconds: 1 });
    expect(stuck?.reason).toMatch(/^no_space: 2 attempts failed, retrying: insert: /);
    for (let i = 0; i < 10; i++) faults.failed('insert', new Error('x'));
    expect(faults.stuck()).toMatchObject({ failure: 'store_error', retryAfterSeconds: 1 });
    expect(faults.failed('insert', new Error('x'))).toBe(1000);
    expect(seen.slice(0, 2)).toEqual(['no_space', 'no_space']);
    faults.succeeded();
    expect(faults.stuck()).toBeUndefined();
  });
});
