import type { LeafRole } from './messages';

/**
 * Where each leaf process runs and which virtual hosts it answers as. Pure: the supervisor turns
 * this plan into `taskset`/`nice` command lines.
 *
 * Roles, in order of process index (repeating `plain` past the fifth):
 *   contended  - pinned to the hogs' core at a low priority (nice 19 by default): its timers and
 *                requests wait behind the CPU-bound neighbour's bursts
 *   gc         - allocation-heavy request handling over a large retained heap
 *   compaction - a periodic synchronous merge of sorted runs blocks its event loop
 *   plain      - request handling only, away from the hogs
 *   shared     - on the hogs' core at nice 0: Bobtail's "sharing is not always bad" case
 */
const ROLE_ORDER: readonly LeafRole[] = ['contended', 'gc', 'compaction', 'plain', 'shared'];

export interface PlacementInput {
  leafProcesses: number;
  hostsPerProcess: number;
  width: number;
  hogs: number;
  /** Niceness of the contended leaves (their weight against the hogs sets how late they run). */
  contendedNice: number;
  /** CPUs this machine offers, whether `taskset` works here, and whether we may raise priority. */
  cpus: number;
  canPin: boolean;
  canRaisePriority: boolean;
}

export interface LeafProcessPlan {
  name: string;
  role: LeafRole;
  hosts: string[];
  /** `taskset -c` list, or null to leave placement to the scheduler. */
  cpuList: string | null;
  nice: number;
}

export interface HogPlan {
  name: string;
  cpuList: string | null;
}

export interface ClusterPlan {
  /**
   * The root runs away from the hogs and, when allowed, at a higher priority: it is where call
   * latency is measured, and its own scheduling delays would blur every host's latency alike.
   */
  rootCpuList: string | null;
  rootNice: number;
  leaves: LeafProcessPlan[];
  hogs: HogPlan[];
  hosts: { host: string; shard: number; process: string; role: LeafRole }[];
}

export function hostName(index: number, total: number): string {
  const digits = Math.max(2, String(total).length);
  return `host-${String(index + 1).padStart(digits, '0')}`;
}

/** Checks the shape: every shard needs at least two replicas so hedges and probation can move. */
export function validatePlacement(p: PlacementInput): void {
  const total = p.leafProcesses * p.hostsPerProcess;
  const intIn = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi) {
      throw new Error(`${name} must be an integer between ${lo} and ${hi}, got ${String(v)}`);
    }
  };
  intIn('--leaf-processes', p.leafProcesses, 1, 32);
  intIn('--hosts-per-process', p.hostsPerProcess, 1, 64);
  intIn('--hogs', p.hogs, 0, 8);
  intIn('--contended-nice', p.contendedNice, 0, 19);
  intIn('--width', p.width, 2, Math.max(2, Math.floor(total / 2)));
}

/** The plan: hosts numbered process by process, shard = host index mod width. */
export function planCluster(p: PlacementInput): ClusterPlan {
  validatePlacement(p);
  const total = p.leafProcesses * p.hostsPerProcess;
  const pin = p.canPin && p.cpus >= 2;
  const hogCpu = pin ? '0' : null;
  const restCpus = pin ? (p.cpus === 2 ? '1' : `1-${String(p.cpus - 1)}`) : null;
  const leaves: LeafProcessPlan[] = [];
  const hosts: ClusterPlan['hosts'] = [];
  for (let i = 0; i < p.leafProcesses; i++) {
    const role = ROLE_ORDER[i] ?? 'plain';
    const onHogCore = role === 'contended' || role === 'shared';
    const name = `leaf-${String(i + 1)}-${role}`;
    const names: string[] = [];
    for (let j = 0; j < p.hostsPerProcess; j++) {
      const index = i * p.hostsPerProcess + j;
      const host = hostName(index, total);
      names.push(host);
      hosts.push({ host, shard: index % p.width, process: name, role });
    }
    leaves.push({
      name,
      role,
      hosts: names,
      cpuList: onHogCore ? hogCpu : restCpus,
      nice: role === 'contended' ? p.contendedNice : 0,
    });
  }
  const hogs: HogPlan[] = [];
  for (let i = 0; i < p.hogs; i++) hogs.push({ name: `hog-${String(i + 1)}`, cpuList: hogCpu });
  return { rootCpuList: restCpus, rootNice: p.canRaisePriority ? -5 : 0, leaves, hogs, hosts };
}

/** The command line that places a child: `taskset -c L nice -n N node ...` (each execs the next). */
export function placementPrefix(cpuList: string | null, nice: number): string[] {
  const prefix: string[] = [];
  if (cpuList !== null) prefix.push('taskset', '-c', cpuList);
  if (nice !== 0) prefix.push('nice', '-n', String(nice));
  return prefix;
}
