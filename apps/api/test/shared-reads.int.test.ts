import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Store } from '../src/store';
import { sharedReadsOf } from '../src/store/engine/shared-reads';
import { noteStoreWrite } from '../src/store/writes/notes';
import { openTempStore } from './analysis-support';

// Identical reads in flight share one engine turn (store/engine/shared-reads.ts), on the real
// embedded engine: the joiner gets the same rows, and no read asked after a noted write joins
// one asked before it.

let store: Store;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ store, close } = await openTempStore('shared-reads'));
  await store.command(sql`CREATE TABLE sr (n UInt64) ENGINE = MergeTree ORDER BY n`);
  await store.command(sql`INSERT INTO sr SELECT number FROM numbers(100000)`);
});

afterAll(async () => {
  await close();
});

const total = sql`SELECT toString(sum(n)) AS s, toString(count()) AS c FROM sr`;

describe('shared reads on the embedded engine', () => {
  it('answers identical reads in flight with one turn and equal rows', async () => {
    const reads = sharedReadsOf(store);
    if (!reads) throw new Error('openStore made no shared reads');
    const before = reads.joined;
    const [a, b, c] = await Promise.all([
      store.query(total),
      store.query(total),
      store.query(sql`SELECT toString(count()) AS c FROM sr WHERE n < ${10}`),
    ]);
    expect(reads.joined - before).toBe(1);
    expect(a).toEqual([{ s: '4999950000', c: '100000' }]);
    expect(b).toEqual(a);
    expect(c).toEqual([{ c: '10' }]);
  });

  it('does not join a read asked before a noted write', async () => {
    const reads = sharedReadsOf(store);
    if (!reads) throw new Error('openStore made no shared reads');
    const before = reads.joined;
    await store.command(sql`INSERT INTO sr VALUES (100000)`);
    // `old` may have been asked before the insert became visible; after the note, `fresh` is
    // asked anew and sees it.
    const old = store.query(total);
    noteStoreWrite(store);
    const fresh = store.query(total);
    const [o, f] = await Promise.all([old, fresh]);
    expect(reads.joined - before).toBe(0);
    expect(f).toEqual([{ s: '5000050000', c: '100001' }]);
    expect(o).toEqual(f);
  });
});
