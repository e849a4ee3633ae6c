import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelLoss, queueDelay, type Net } from './inject-net';
import { parseQdiscStats } from './netfault';
import { Topology, type NsProcess } from './topology';

/**
 * The kernel network faults (netfault.ts, inject-net.ts) on a real link, without HotROD: one
 * namespace with a TCP echo service behind the bridge, a client in the control namespace on one
 * kept connection (as HotROD's callers keep theirs). The fault benchmark's fast sibling in
 * `npm test` (its short run on HotROD, faults.int.test.ts, is in the long tier). What is checked
 * is the kernel's own counters, not the clock: the delay fault's tbf holds a standing backlog of
 * its window; the loss fault drops a random 10% of the packets into the service (400+ packets:
 * the dropped share lies in [5%, 15%] unless the kernel's random number is off by 3.3 standard
 * deviations, p < 0.001), and every request is still answered (TCP retransmits).
 */

const ECHO = `
import { createServer } from 'node:net';
createServer((s) => { s.on('error', () => {}); s.on('data', () => s.write(Buffer.alloc(300, 120))); })
  .listen(9000, '0.0.0.0', () => console.log('ready'));
`;

/** Sends argv[2] requests 10 ms apart on one connection; prints how many were answered. */
const CLIENT = `
import { connect } from 'node:net';
const [host, n] = [process.argv[1], Number(process.argv[2])];
const s = connect(9000, host);
s.setNoDelay(true);
await new Promise((r) => s.once('connect', r));
let answered = 0;
for (let i = 0; i < n; i++) {
  await new Promise((res) => {
    const to = setTimeout(res, 5000);
    s.once('data', () => { clearTimeout(to); answered++; res(); });
    s.write('x'.repeat(100));
  });
  await new Promise((r) => setTimeout(r, 10));
}
s.destroy();
console.log(JSON.stringify({ answered }));
`;

function skipReason(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  if (spawnSync('ip', ['netns', 'list']).status !== 0) return '`ip netns` does not work here';
  if (spawnSync('tc', ['-V']).status !== 0) return '`tc` is not installed';
  return undefined;
}
const skip = skipReason();
if (skip) console.warn(`netfault.kernel.test.ts skipped: ${skip}`);

let topo: Topology;
let echo: NsProcess;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function client(n: number): Promise<{ answered: number }> {
  const out = await topo.exec(
    topo.control,
    process.execPath,
    ['--input-type=module', '-e', CLIENT, topo.member('svc').address, String(n)],
    120_000,
  );
  return JSON.parse(out) as { answered: number };
}

describe.skipIf(skip !== undefined)('kernel network faults on a real link', () => {
  beforeAll(async () => {
    topo = await Topology.create('nfk', ['svc']);
    echo = topo.spawn(topo.member('svc').ns, process.execPath, ['--input-type=module', '-e', ECHO]);
    for (const end = Date.now() + 10_000; !echo.output().includes('ready'); await sleep(50))
      if (Date.now() > end) throw new Error(`echo did not start: ${echo.output()}`);
  });
  afterAll(async () => {
    await topo.destroy();
  });
  const net = (): Net => ({ topo, realtime: [] });

  it('keeps a standing queue of the window on the link into the service', async () => {
    const fault = await queueDelay(net(), 'svc', 100);
    const port = topo.member('svc').port;
    const backlogs: number[] = [];
    try {
      const answered = client(20);
      for (let i = 0; i < 6; i++) {
        await sleep(500);
        const s = parseQdiscStats(
          await topo.exec(topo.control, 'tc', ['-s', 'qdisc', 'show', 'dev', port]),
        );
        backlogs.push(s?.backlogBytes ?? 0);
      }
      expect((await answered).answered).toBe(20);
    } finally {
      await fault.undo();
    }
    // 100 ms at 1 Mbit/s is 12.5 kB; the flow refills its window on each acknowledgement.
    const mean = backlogs.reduce((a, b) => a + b, 0) / backlogs.length;
    expect(mean).toBeGreaterThan(0.6 * 12_500);
    expect(fault.measured?.()).toMatch(/ms queued$/);
    // Undone: no qdisc left on the port.
    const after = await topo.exec(topo.control, 'tc', ['-s', 'qdisc', 'show', 'dev', port]);
    expect(parseQdiscStats(after)?.backlogBytes ?? 0).toBe(0);
    expect(after).not.toMatch(/tbf/);
  });

  it('drops a random tenth of the packets into the service; TCP still answers all', async () => {
    const fault = await kernelLoss(net(), 'svc', 10);
    let answered = 0;
    try {
      answered = (await client(400)).answered;
    } finally {
      await fault.undo();
    }
    expect(answered).toBe(400);
    const m = /(\d+) of (\d+) packets dropped/.exec(fault.measured?.() ?? '');
    const dropped = Number(m?.[1]);
    const all = Number(m?.[2]);
    expect(all).toBeGreaterThanOrEqual(400);
    expect(dropped / all).toBeGreaterThan(0.05);
    expect(dropped / all).toBeLessThan(0.15);
  });
});
