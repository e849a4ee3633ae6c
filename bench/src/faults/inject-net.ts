import type { Injected } from './injected';
import {
  clearQdisc,
  delayQdisc,
  lossQdisc,
  parseQdiscStats,
  QUEUE_RATE_KBIT,
  queueDelayMs,
  queueWindowBytes,
  type TcArgs,
} from './netfault';
import type { Service } from './schedule';
import type { Topology } from './topology';
import { QUEUE_FLOW, QUEUE_SINK } from './scripts';

/**
 * Network faults on the link into a target (docs/incidents.md "Network faults"): netem where the
 * kernel has it; else the kernel queues of netfault.ts (this machine's kernel: tbf, htb and the
 * bpf classifier, no netem); else, for a delay only, the frontend's link relay (cluster.ts), the
 * documented fallback (`NET_FAULTS=relay` forces it). Each fault goes on the bridge's port into
 * the target's namespace, so every packet sent to the target crosses it and nothing else does.
 */

/** The UDP port of the delay fault's queue sink, in the target's namespace. */
const QUEUE_PORT = 9400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Which mechanism the cluster's network faults use. */
export type NetFaults = 'netem' | 'kernel' | 'relay';

/** What the kernel faults need of a cluster: its namespaces and the services' priority prefix. */
export interface Net {
  topo: Topology;
  realtime: string[];
}

/** What every network fault needs of a cluster (cluster.ts's Cluster has it). */
export interface NetCluster extends Net {
  netFaults: NetFaults;
  setLinkDelay: (s: Service, ms: number) => void;
}

const tcIn = (c: Net) => (args: TcArgs) => c.topo.exec(c.topo.control, 'tc', args);

async function until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(50))
    if (Date.now() > end) throw new Error(`${what} did not start`);
}

/** netem on the target's port (the kernel has it: a fixed delay or a random loss). */
async function netem(c: Net, target: string, args: string[]): Promise<Injected> {
  const m = c.topo.member(target);
  await tcIn(c)(['qdisc', 'add', 'dev', m.port, 'root', 'netem', ...args]);
  let done = false;
  return {
    detail: `tc qdisc add dev ${m.port} (the bridge's port into ${target}) root netem ${args.join(' ')}`,
    undo: async () => {
      if (done) return;
      done = true;
      await tcIn(c)(clearQdisc(m.port)).catch(() => '');
    },
  };
}

/**
 * A standing queue of `ms` on the link into the target: the tbf, the target's sink, then the
 * control namespace's flow. The backlog is read every second; `measured` reports its mean.
 */
export async function queueDelay(c: Net, target: string, ms: number): Promise<Injected> {
  const m = c.topo.member(target);
  const tc = tcIn(c);
  const window = queueWindowBytes(ms);
  const node = (ns: string, script: string, args: string[]) => {
    const [cmd = process.execPath, ...rest] = [
      ...c.realtime,
      process.execPath,
      ...['--input-type=module', '-e', script, ...args],
    ];
    return c.topo.spawn(ns, cmd, rest);
  };
  const sink = node(m.ns, QUEUE_SINK, [String(QUEUE_PORT)]);
  const backlog: number[] = [];
  let flow: ReturnType<typeof node> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const undo = async (): Promise<void> => {
    if (done) return;
    done = true;
    clearInterval(timer);
    await flow?.stop(500);
    await tc(clearQdisc(m.port)).catch(() => '');
    await sink.stop(500);
  };
  try {
    await until(() => sink.output().includes('ready'), 'the queue sink');
    await tc(delayQdisc(m.port, window));
    flow = node(c.topo.control, QUEUE_FLOW, [m.address, String(QUEUE_PORT), String(window)]);
    const started = flow;
    await until(() => started.output().includes('ready'), 'the queue flow');
    timer = setInterval(() => {
      void tc(['-s', 'qdisc', 'show', 'dev', m.port])
        .then((text) => {
          const s = parseQdiscStats(text);
          if (s) backlog.push(s.backlogBytes);
        })
        .catch(() => undefined);
    }, 1000);
  } catch (err) {
    await undo();
    throw err;
  }
  return {
    detail:
      `a standing queue of ${String(ms)} ms on the link into ${target}: tc qdisc add dev ${m.port} root ` +
      `tbf rate ${String(QUEUE_RATE_KBIT)}kbit, ${String(window)} bytes kept queued by a UDP flow into ${target}`,
    undo,
    measured: () => {
      if (backlog.length === 0) return 'backlog not read';
      const mean = backlog.reduce((s, b) => s + b, 0) / backlog.length;
      return `mean backlog ${(mean / 1000).toFixed(1)} kB over ${String(backlog.length)} reads: ${queueDelayMs(mean).toFixed(0)} ms queued`;
    },
  };
}

/** Random loss of `percent` of the packets into the target (htb + bpf classifier, netfault.ts). */
export async function kernelLoss(c: Net, target: string, percent: number): Promise<Injected> {
  const m = c.topo.member(target);
  const tc = tcIn(c);
  let done = false;
  let stats = '';
  const undo = async (): Promise<void> => {
    if (done) return;
    done = true;
    stats = await tc(['-s', 'qdisc', 'show', 'dev', m.port]).catch(() => '');
    await tc(clearQdisc(m.port)).catch(() => '');
  };
  try {
    for (const args of lossQdisc(m.port, percent)) await tc(args);
  } catch (err) {
    await undo();
    throw err;
  }
  return {
    detail: `random loss of ${String(percent)}% of the packets into ${target}: tc htb on ${m.port} with a bpf filter sending them to an empty pfifo`,
    undo,
    measured: () => {
      const s = parseQdiscStats(stats);
      if (!s) return 'drops not read';
      const all = s.sentPackets + s.dropped;
      return `${String(s.dropped)} of ${String(all)} packets dropped (${all > 0 ? ((100 * s.dropped) / all).toFixed(1) : '0'}%)`;
    },
  };
}

/** The frontend's link relay delays the target's answers (cluster.ts): the fallback. */
async function relayDelay(c: NetCluster, target: Service, ms: number): Promise<Injected> {
  c.setLinkDelay(target, ms);
  // The relay polls its control file every 100 ms.
  await sleep(150);
  let done = false;
  return {
    detail: `${String(ms)} ms one-way delay on ${target}'s answers in the frontend's link relay (no kernel queue used)`,
    undo: async () => {
      if (done) return;
      done = true;
      c.setLinkDelay(target, 0);
      await sleep(150);
    },
  };
}

export function injectDelay(c: NetCluster, target: Service, ms: number): Promise<Injected> {
  switch (c.netFaults) {
    case 'netem':
      return netem(c, target, ['delay', `${String(ms)}ms`]);
    case 'kernel':
      return queueDelay(c, target, ms);
    case 'relay':
      return relayDelay(c, target, ms);
  }
}

export function injectLoss(c: NetCluster, target: Service, percent: number): Promise<Injected> {
  switch (c.netFaults) {
    case 'netem':
      return netem(c, target, ['loss', `${String(percent)}%`]);
    case 'kernel':
      return kernelLoss(c, target, percent);
    case 'relay':
      return Promise.reject(new Error('loss needs netem or the kernel queues (NET_FAULTS=relay)'));
  }
}

/**
 * Which mechanism works here (run in the control namespace on its loopback): `NET_FAULTS`
 * (netem, kernel, relay) if set, else netem when the kernel has it, else the kernel queues when
 * tbf, htb and the bpf classifier all work, else the relay.
 */
export async function probeNetFaults(c: Pick<Net, 'topo'>): Promise<NetFaults> {
  const asked = process.env.NET_FAULTS;
  if (asked === 'netem' || asked === 'kernel' || asked === 'relay') return asked;
  const tc = (args: TcArgs) => c.topo.exec(c.topo.control, 'tc', args);
  const works = async (steps: TcArgs[]): Promise<boolean> => {
    try {
      for (const s of steps) await tc(s);
      return true;
    } catch {
      return false;
    } finally {
      await tc(clearQdisc('lo')).catch(() => '');
    }
  };
  if (await works([['qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '0ms']])) return 'netem';
  const kernel = (await works([delayQdisc('lo', 10_000)])) && (await works(lossQdisc('lo', 10)));
  return kernel ? 'kernel' : 'relay';
}
