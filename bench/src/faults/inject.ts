import { availableParallelism } from 'node:os';
import type { Cluster } from './cluster';
import type { FaultKind, Service } from './schedule';
import { injectDelay, injectLoss } from './inject-net';
import type { Injected } from './injected';
import { BURN } from './scripts';

/**
 * Real faults on the cluster's processes and links (docs/incidents.md): each injection returns
 * its undo, and every undo is safe to call twice. Burners run inside the target's namespace, so
 * deleting the namespaces (the cluster's stop, also on a signal) kills any left behind.
 */

export type { Injected } from './injected';

export interface InjectOptions {
  /** CPU burners pinned beside the target (default 1). */
  burners?: number;
  delayMs?: number;
  lossPercent?: number;
}

const cpus = (): string => `0-${String(Math.max(0, availableParallelism() - 1))}`;

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

export function inject(
  c: Cluster,
  fault: FaultKind,
  target: Service,
  o: InjectOptions = {},
): Promise<Injected> {
  switch (fault) {
    case 'cpu':
      return cpuContention(c, target, o.burners ?? 1);
    case 'delay':
      return injectDelay(c, target, o.delayMs ?? 100);
    case 'loss':
      return injectLoss(c, target, o.lossPercent ?? 10);
    case 'pool':
      // The frontend's worker pool for route calls, from HotROD's 3 down to 1.
      return restartWith(c, target, ['-W', '1']);
    case 'lock':
      // customer's MySQL queries take 3x longer while holding its one connection's mutex.
      return restartWith(c, target, ['-D', '900ms']);
  }
}
