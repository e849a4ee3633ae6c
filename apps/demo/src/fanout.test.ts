import { describe, expect, it } from 'vitest';
import { DEFAULT_HEDGE, DEFAULT_PROBATION } from './cluster';
import { FanoutRunner } from './fanout';
import type { LeafEndpoint, Policy, RootConfig } from './messages';
import { fakeClient } from './testing/fake-leaf-client';

// Two shards on three replicas each; `s0-a` answers in 30 ms, every other host in 1 ms.
const LEAVES: LeafEndpoint[] = ['s0-a', 's0-b', 's0-c', 's1-a', 's1-b', 's1-c'].map((host) => ({
  host,
  port: 1,
  process: 'p',
  role: 'plain',
  shard: host.startsWith('s0') ? 0 : 1,
}));

function runner(
  policy: Policy,
  controlFraction: number,
  leaves = LEAVES,
  behaviour: Record<string, number> = { 's0-a': 30 },
) {
  const fake = fakeClient(behaviour);
  const config: RootConfig = {
    kind: 'root',
    otlpUrl: 'unused',
    width: Math.max(...leaves.map((l) => l.shard)) + 1,
    leaves,
    policy,
    hedge: { ...DEFAULT_HEDGE, delayMs: 5 },
    probation: { ...DEFAULT_PROBATION, shadowFraction: 0.5 },
    callTimeoutMs: 5000,
    controlFraction,
    recording: true,
    metricsIntervalMs: 0,
  };
  return { ...fake, runner: new FanoutRunner(fake.client, config) };
}

async function fanouts(r: FanoutRunner, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, q) => r.run(q)));
}

describe('FanoutRunner control group (a randomized A/B in one run)', () => {
  it('serves the control share without hedging and marks every call with its arm', async () => {
    const { runner: r, calls } = runner('hedge', 0.5);
    await fanouts(r, 400);
    const control = calls.filter((c) => c.marks.arm === 'control');
    const treatment = calls.filter((c) => c.marks.arm === 'treatment');
    expect(control.length + treatment.length).toBe(calls.length);
    // 400 fan-outs at 1/2: the count is binomial (sd 10); +-50 is 5 sd.
    expect(r.stats.controlFanouts).toBeGreaterThan(150);
    expect(r.stats.controlFanouts).toBeLessThan(250);
    expect(control.length).toBe(2 * r.stats.controlFanouts);
    expect(control.every((c) => c.marks.hedge === undefined)).toBe(true);
    // The slow replica is the primary of about 1 in 3 treatment calls to shard 0: each gets a
    // backup after 5 ms, and only treatment calls do.
    const backups = treatment.filter((c) => c.marks.hedge === 'backup');
    expect(backups.length).toBeGreaterThan(20);
    expect(backups.length).toBe(r.stats.hedgesSent);
    expect(control.filter((c) => c.host === 's0-a').length).toBeGreaterThan(20);
  });

  it('keeps the control group on a host on probation and out of the tracker', async () => {
    const { runner: r, calls } = runner('probation', 0.5);
    await fanouts(r, 200);
    r.tick(Date.now());
    expect(r.stats.excluded).toEqual(['s0-a']);
    const before = calls.length;
    await fanouts(r, 400);
    const after = calls.slice(before);
    const toSlow = after.filter((c) => c.host === 's0-a');
    // Treatment calls reach the host on probation only as shadows; control calls as recorded.
    expect(toSlow.filter((c) => c.marks.arm === 'treatment').every((c) => c.marks.shadow)).toBe(
      true,
    );
    expect(toSlow.some((c) => c.marks.arm === 'treatment')).toBe(true);
    expect(toSlow.filter((c) => c.marks.arm === 'control').length).toBeGreaterThan(30);
    expect(after.filter((c) => c.marks.arm === 'control').every((c) => !c.marks.shadow)).toBe(true);
  });

  it('lets every copy of a wide hedged fan-out hold its deadline without a leak warning', async () => {
    // 8 shards x 2 replicas, every host answering in 20 ms: each call gets a backup after 5 ms,
    // so 16 copies hold the fan-out's deadline signal at once (Node warns above 10 by default).
    const leaves: LeafEndpoint[] = Array.from({ length: 16 }, (_, i) => ({
      host: `h${String(i)}`,
      port: 1,
      process: 'p',
      role: 'plain',
      shard: i % 8,
    }));
    const slow = Object.fromEntries(leaves.map((l) => [l.host, 20]));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const { runner: r, calls } = runner('hedge', 0, leaves, slow);
      await fanouts(r, 1);
      expect(calls.filter((c) => c.marks.hedge === 'backup')).toHaveLength(8);
      // Warnings are emitted on the next tick.
      await new Promise((res) => setTimeout(res, 20));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('marks nothing without a control share', async () => {
    const { runner: r, calls } = runner('hedge', 0);
    await fanouts(r, 50);
    expect(calls.every((c) => c.marks.arm === undefined)).toBe(true);
    expect(r.stats.controlFanouts).toBe(0);
  });
});
