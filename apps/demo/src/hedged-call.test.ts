import { describe, expect, it } from 'vitest';
import { hedgedCall } from './hedged-call';
import type { LeafClient } from './leaf-client';
import type { LeafEndpoint } from './messages';
import { fakeClient } from './testing/fake-leaf-client';

const ep = (host: string): LeafEndpoint => ({
  host,
  port: 1,
  process: 'p',
  role: 'plain',
  shard: 0,
});

function run(
  client: LeafClient,
  delayMs: number,
  backup = ep('b'),
  cancel: 'close' | 'discard' = 'close',
  loserTimeoutMs = 5000,
) {
  let sent = 0;
  const out = hedgedCall(client, {
    primary: ep('a'),
    backup: () => backup,
    shard: 3,
    query: 1,
    delayMs,
    deadline: new AbortController().signal,
    onBackupSent: () => sent++,
    cancel,
    loserTimeoutMs,
  });
  return { out, sent: () => sent };
}

describe('hedgedCall', () => {
  it('sends no backup when the primary answers before the delay', async () => {
    const { client, calls } = fakeClient({ a: 1 });
    const r = run(client, 200);
    expect(await r.out).toMatchObject({ backupSent: false, backupWon: false });
    expect(calls.map((c) => c.marks)).toEqual([{ shard: 3, hedge: 'primary' }]);
    expect(r.sent()).toBe(0);
  });

  it('sends a backup after the delay; the first answer wins and the loser is cancelled', async () => {
    const { client, calls } = fakeClient({ a: 500, b: 1 });
    const r = run(client, 5);
    expect(await r.out).toMatchObject({ backupSent: true, backupWon: true });
    expect(calls.map((c) => [c.host, c.marks.hedge, c.aborted])).toEqual([
      ['a', 'primary', true],
      ['b', 'backup', false],
    ]);
    expect(r.sent()).toBe(1);
  });

  it("with cancel 'discard', leaves the loser running (its connection stays open)", async () => {
    const { client, calls } = fakeClient({ a: 60, b: 1 });
    const r = run(client, 5, ep('b'), 'discard');
    expect(await r.out).toMatchObject({ backupSent: true, backupWon: true });
    await new Promise((res) => setTimeout(res, 100)); // the primary finishes on its own
    expect(calls.map((c) => [c.host, c.aborted])).toEqual([
      ['a', false],
      ['b', false],
    ]);
  });

  it("with cancel 'discard', aborts a loser still running after loserTimeoutMs", async () => {
    const { client, calls } = fakeClient({ a: 10_000, b: 1 });
    const r = run(client, 5, ep('b'), 'discard', 30);
    expect(await r.out).toMatchObject({ backupWon: true });
    expect(calls[0]?.aborted).toBe(false);
    await new Promise((res) => setTimeout(res, 80));
    expect(calls[0]?.aborted).toBe(true);
  });

  it('sends the backup at once when the primary fails, and fails only when both did', async () => {
    const { client, calls } = fakeClient({ a: 'fail', b: 1 });
    expect(await run(client, 10_000).out).toMatchObject({ backupWon: true });
    expect(calls).toHaveLength(2);
    const both = fakeClient({ a: 'fail', b: 'fail' });
    await expect(run(both.client, 10_000).out).rejects.toThrow(/b failed/);
  });
});
