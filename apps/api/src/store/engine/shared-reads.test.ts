import { describe, expect, it } from 'vitest';
import { SharedReads, paramsKey } from './shared-reads';

/** A read whose runs resolve (or fail) when the test says, counting how often it ran. */
function gatedRead(rows: { v: number }[]) {
  const pending: { resolve: (r: { v: number }[]) => void; reject: (e: Error) => void }[] = [];
  let runs = 0;
  const read = (): Promise<{ v: number }[]> => {
    runs++;
    return new Promise((resolve, reject) => pending.push({ resolve, reject }));
  };
  const gate = {
    open: () => {
      for (const p of pending.splice(0)) p.resolve(rows);
    },
    fail: (e: Error) => {
      for (const p of pending.splice(0)) p.reject(e);
    },
  };
  return { gate, read, runs: () => runs };
}

describe('SharedReads', () => {
  it('runs an identical read in flight once, and each asker gets its own rows', async () => {
    const reads = new SharedReads();
    const r = gatedRead([{ v: 1 }]);
    const a = reads.read('k', r.read, () => false);
    const b = reads.read('k', r.read, () => false);
    r.gate.open();
    const [ra, rb] = await Promise.all([a, b]);
    expect(r.runs()).toBe(1);
    expect(reads.joined).toBe(1);
    expect(ra).toEqual([{ v: 1 }]);
    expect(rb).toEqual(ra);
    const [first] = ra;
    if (first) first.v = 2;
    expect(rb).toEqual([{ v: 1 }]);
  });

  it('runs again once the read ended, and for another key', async () => {
    const reads = new SharedReads();
    const r = gatedRead([{ v: 1 }]);
    const a = reads.read('k', r.read, () => false);
    r.gate.open();
    await a;
    const b = reads.read('k', r.read, () => false);
    const c = reads.read('other', r.read, () => false);
    r.gate.open();
    await Promise.all([b, c]);
    expect(r.runs()).toBe(3);
    expect(reads.joined).toBe(0);
  });

  it('does not join a read asked before a write', async () => {
    const reads = new SharedReads();
    const before = gatedRead([{ v: 1 }]);
    const after = gatedRead([{ v: 2 }]);
    const a = reads.read('k', before.read, () => false);
    reads.written();
    const b = reads.read('k', after.read, () => false);
    before.gate.open();
    after.gate.open();
    expect(await a).toEqual([{ v: 1 }]);
    expect(await b).toEqual([{ v: 2 }]);
    expect(reads.joined).toBe(0);
  });

  it('asks again for a joiner whose request goes on when the first asker stopped', async () => {
    const reads = new SharedReads();
    const first = gatedRead([]);
    const own = gatedRead([{ v: 3 }]);
    const a = reads.read('k', first.read, () => true);
    const b = reads.read('k', own.read, () => false);
    first.gate.fail(new Error('client gone'));
    await expect(a).rejects.toThrow('client gone');
    own.gate.open();
    expect(await b).toEqual([{ v: 3 }]);
  });

  it('passes the failure on to a joiner whose own request stopped too', async () => {
    const reads = new SharedReads();
    const first = gatedRead([]);
    const a = reads.read('k', first.read, () => true);
    const b = reads.read('k', first.read, () => true);
    first.gate.fail(new Error('deadline'));
    await expect(a).rejects.toThrow('deadline');
    await expect(b).rejects.toThrow('deadline');
    expect(first.runs()).toBe(1);
  });

  it('keys parameters with bigints apart from the same digits as a string', () => {
    expect(paramsKey({ a: 1n })).not.toBe(paramsKey({ a: '1' }));
    expect(paramsKey({ a: [1, 2] })).toBe(paramsKey({ a: [1, 2] }));
  });
});
