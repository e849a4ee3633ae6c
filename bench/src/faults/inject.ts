import { availableParallelism } from 'node:os';
import type { Cluster } from './cluster';
import type { FaultKind, Service } from './schedule';
import { BURN } from './scripts';

/**
 * Real faults on the cluster's processes and links (docs/incidents.md): each injection returns
 * its undo, and every undo is safe to call twice. Burners run inside the target's namespace, so
 * deleting the namespaces (the cluster's stop, also on a signal) kills any left behind.
 */

export interface Injected {
  detail: string;
  undo: () => Promise<void>;
}

export interface InjectOptions {
  /** CPU burners pinned beside the target (default 1). */
  burners?: number;
  delayMs?: number;
  lossPercent?: number;
}

const cpus = (): string => `0-${String(Math.max(0, availableParallelism() - 1))}`;

async function netem(c: Cluster, target: Service, args: string[]): Promise<Injected> {
  const m = c.topo.member(target);
  await c.topo.exec(m.ns, 'tc', ['qdisc', 'add', 'dev', m.device, 'root', 'netem', ...args]);
  let done = false;
  return {
    detail: `tc qdisc add dev ${m.device} (in ${m.ns}) root netem ${args.join(' ')}`,
    undo: async () => {
      if (done) return;
      done = true;
      await c.topo.exec(m.ns, 'tc', ['qdisc', 'del', 'dev', m.device, 'root']).catch(() => '');
    },
  };
}

/**
 * Pins the target (every thread) to the last CPU and starts `n` burners pinned there too, at the
 * target's priority: under `chrt -r 50` both are round-robin, so each wake-up of the target
 * waits behind a burner's time slice, as a co-tenant's would.
 */
async function cpuContention(c: Cluster, target: Service, n: number): Promise<Injected> {
  const pid = c.process(target).child.pid;
  if (pid === undefined) throw new Error(`${target} has no pid`);
  const cpu = String(Math.max(0, availableParallelism() - 1));
  const m = c.topo.member(target);
  await c.topo.exec(m.ns, 'taskset', ['-a', '-p', '-c', cpu, String(pid)]);
  const burners = Array.from({ length: n }, () =>
    c.topo.spawn(m.ns, c.realtime[0] ?? 'taskset', [
      ...c.realtime.slice(1),
      ...(c.realtime.length > 0 ? ['taskset'] : []),
      ...['-c', cpu, process.execPath, '-e', BURN],
    ]),
  );
  let done = false;
  return {
    detail: `${String(n)} burners and ${target} (pid ${String(pid)}) pinned to CPU ${cpu}`,
    undo: async () => {
      if (done) return;
      done = true;
      await Promise.all(burners.map((b) => b.stop(500)));
      await c.topo.exec(m.ns, 'taskset', ['-a', '-p', '-c', cpus(), String(pid)]).catch(() => '');
    },
  };
}

/** Restarts the target with HotROD flags; the undo restarts it with its defaults. */
async function restartWith(c: Cluster, target: Service, flags: string[]): Promise<Injected> {
  await c.restart(target, flags);
  let done = false;
  return {
    detail: `${target} restarted with ${flags.join(' ')}`,
    undo: async () => {
      if (done) return;
      done = true;
      await c.restart(target, []);
    },
  };
}

/** The link relay's delay on the target's answers (cluster.ts), where the kernel has no netem. */
async function relayDelay(c: Cluster, target: Service, ms: number): Promise<Injected> {
  c.setLinkDelay(target, ms);
  // The relay polls its control file every 100 ms.
  await new Promise((r) => setTimeout(r, 150));
  let done = false;
  return {
    detail: `${String(ms)} ms one-way delay on ${target}'s answers in the frontend's link relay (no netem in this kernel)`,
    undo: async () => {
      if (done) return;
      done = true;
      c.setLinkDelay(target, 0);
      await new Promise((r) => setTimeout(r, 150));
    },
  };
}

/**
 * netem's loss where the kernel has it; else a token bucket with a 3 KB queue on the target's
 * link (`tbf`, which this kernel has): real drops and queueing whenever its answers and its
 * span exports burst past 1 Mbit/s.
 */
function loss(c: Cluster, target: Service, percent: number): Promise<Injected> {
  if (c.netem) return netem(c, target, ['loss', `${String(percent)}%`]);
  const m = c.topo.member(target);
  const args = ['rate', '1mbit', 'burst', '1540', 'limit', '3000'];
  return c.topo
    .exec(m.ns, 'tc', ['qdisc', 'add', 'dev', m.device, 'root', 'tbf', ...args])
    .then(() => {
      let done = false;
      return {
        detail: `tc qdisc add dev ${m.device} (in ${m.ns}) root tbf ${args.join(' ')} (no netem in this kernel)`,
        undo: async () => {
          if (done) return;
          done = true;
          await c.topo.exec(m.ns, 'tc', ['qdisc', 'del', 'dev', m.device, 'root']).catch(() => '');
        },
      };
    });
}

export function inject(
  c: Cluster,
  fault: FaultKind,
  target: Service,
  o: InjectOptions = {},
): Promise<Injected> {
  switch (fault) {
    case 'cpu':
      return cpuContention(c, target, o.burners ?? 1);
    case 'delay': {
      const ms = o.delayMs ?? 100;
      return c.netem ? netem(c, target, ['delay', `${String(ms)}ms`]) : relayDelay(c, target, ms);
    }
    case 'loss':
      return loss(c, target, o.lossPercent ?? 10);
    case 'pool':
      // The frontend's worker pool for route calls, from HotROD's 3 down to 1.
      return restartWith(c, target, ['-W', '1']);
    case 'lock':
      // customer's MySQL queries take 3x longer while holding its one connection's mutex.
      return restartWith(c, target, ['-D', '900ms']);
  }
}
