import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { SharingMode } from '@tailscope/collectors';
import { DemoChild } from './child';
import {
  DEFAULT_HEDGE,
  DEFAULT_PROBATION,
  type Cluster,
  type ClusterOptions,
  type SlowHostOption,
} from './cluster-options';
import type { ChildConfig, LeafEndpoint, LeafRole, RootStats } from './messages';
import { ProbeCoordinator } from './probe-coordinator';
import { placementPrefix, planCluster, type ClusterPlan, type LeafProcessPlan } from './topology';

export {
  DEFAULT_HEDGE,
  DEFAULT_PROBATION,
  type Cluster,
  type ClusterOptions,
  type SlowHostOption,
} from './cluster-options';

/** The mode a role stands for when probing is off (`--no-probe`). */
const CONFIGURED_MODE: Record<LeafRole, SharingMode> = {
  contended: 'contended',
  shared: 'shared',
  gc: 'dedicated',
  compaction: 'dedicated',
  plain: 'dedicated',
};

function tasksetWorks(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true']).status === 0;
}

/** `nice -n -5 nice` prints -5 only where raising priority is allowed (root, CAP_SYS_NICE). */
function canRaisePriority(): boolean {
  const r = spawnSync('nice', ['-n', '-5', 'nice'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === '-5';
}

/** How often the root and leaves export runtime metrics by default, ms. */
const DEFAULT_METRICS_INTERVAL_MS = 10_000;

function hogConfig(opts: ClusterOptions): ChildConfig {
  return {
    kind: 'hog',
    maxLifetimeMs: opts.hogLifetimeMs ?? 6 * 3600_000,
    busyMs: opts.hogBusyMs ?? 30,
    idleMs: opts.hogIdleMs ?? 6,
  };
}

function leafConfig(opts: ClusterOptions, p: LeafProcessPlan): ChildConfig {
  return {
    kind: 'leaf',
    processName: p.name,
    role: p.role,
    hosts: p.hosts,
    otlpUrl: opts.otlpUrl,
    sharingMode: opts.probe === false ? CONFIGURED_MODE[p.role] : 'probe',
    probeSamples: opts.probeSamples ?? 2000,
    probeDelayMs: opts.probeDelayMs ?? 3000,
    compactionEveryMs: opts.compactionEveryMs ?? 5000,
    compactionEntries: opts.compactionEntries ?? 250_000,
    gcAllocPerRequest: opts.gcAllocPerRequest ?? 2000,
    gcRetained: opts.gcRetained ?? 300_000,
    recording: !(opts.warmup ?? false),
    metricsIntervalMs: opts.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS,
  };
}

/** Stops in dependency order: root (no new calls), leaves (they flush spans), then hogs. */
async function stopAll(children: readonly DemoChild[]): Promise<void> {
  for (const c of children.filter((c) => c.name === 'root')) await c.stop(5000);
  await Promise.all(children.filter((c) => c.name.startsWith('leaf')).map((c) => c.stop(5000)));
  await Promise.all(children.filter((c) => c.name.startsWith('hog')).map((c) => c.stop(1000)));
  for (const c of children) if (c.groupAlive()) c.signalGroup('SIGKILL');
}

interface StartedLeaf {
  plan: LeafProcessPlan;
  child: DemoChild;
}

/** Starts the leaves, logs their measured sharing modes as they come, returns their endpoints. */
async function startLeaves(
  opts: ClusterOptions,
  plan: ClusterPlan,
  children: DemoChild[],
  modes: Map<string, SharingMode | 'unknown'>,
  log: (line: string) => void,
): Promise<{ leaves: StartedLeaf[]; endpoints: LeafEndpoint[]; probes: ProbeCoordinator }> {
  const leaves = plan.leaves.map((p) => {
    const prefix = placementPrefix(p.cpuList, p.nice);
    const config = leafConfig(opts, p);
    const child = new DemoChild({ name: p.name, entry: 'leaf-main.ts', config, prefix });
    children.push(child);
    child.onMessage((m) => {
      if (m.type !== 'sharing-mode') return;
      modes.set(p.name, m.sharingMode);
      const probe = m.probe
        ? ` (probed under load: p99 ${m.probe.p99Ms.toFixed(1)} ms, ${(m.probe.longFraction * 100).toFixed(2)}% of sleeps late by > 10 ms)`
        : '';
      log(`${p.name}: host.sharing_mode=${m.sharingMode}${probe}`);
    });
    return { plan: p, child };
  });
  // Leaves on the hogs' core may read contended; one elsewhere means the machine is saturated.
  const hogCpu = plan.hogs[0]?.cpuList ?? (plan.leaves.some((p) => p.cpuList === '0') ? '0' : null);
  const probes = new ProbeCoordinator(
    opts.probe === false
      ? []
      : leaves.map((l) => ({
          name: l.plan.name,
          onHogCore: hogCpu !== null && l.plan.cpuList === hogCpu,
          child: l.child,
        })),
    opts.probeBaseline ?? null,
    hogCpu !== null,
    log,
  );
  const readies = await Promise.all(leaves.map((l) => l.child.waitFor('ready', 60_000)));
  const endpoints: LeafEndpoint[] = [];
  for (const [i, r] of readies.entries()) {
    const p = leaves[i]?.plan;
    if (!p) continue;
    const place = `${p.cpuList === null ? 'any cpu' : `cpu ${p.cpuList}`}, nice ${String(p.nice)}`;
    log(`${p.name}: ${p.hosts[0] ?? ''}..${p.hosts.at(-1) ?? ''}, ${place}`);
    for (const h of r.hosts) {
      const shard = plan.hosts.find((x) => x.host === h.host)?.shard ?? 0;
      endpoints.push({ ...h, process: p.name, role: p.role, shard });
    }
  }
  return { leaves, endpoints, probes };
}

function rootChild(opts: ClusterOptions, plan: ClusterPlan, endpoints: LeafEndpoint[]): DemoChild {
  return new DemoChild({
    name: 'root',
    entry: 'root-main.ts',
    prefix: placementPrefix(plan.rootCpuList, plan.rootNice),
    config: {
      kind: 'root',
      otlpUrl: opts.otlpUrl,
      width: opts.width ?? 8,
      leaves: endpoints,
      policy: opts.policy ?? 'none',
      hedge: { ...DEFAULT_HEDGE, ...opts.hedge },
      probation: { ...DEFAULT_PROBATION, ...opts.probation },
      callTimeoutMs: opts.callTimeoutMs ?? 5000,
      controlFraction: opts.controlFraction ?? 0,
      recording: !(opts.warmup ?? false),
      metricsIntervalMs: opts.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS,
    },
  });
}

/** Tells the slow host's leaf its window, which counts from now (when the load starts). */
function scheduleSlowHost(slow: SlowHostOption, leaves: StartedLeaf[]): void {
  const now = Date.now();
  const plan = {
    host: slow.host,
    fromEpochMs: now + slow.fromS * 1000,
    toEpochMs: now + (slow.fromS + slow.forS) * 1000,
    delayMs: slow.delayMs,
  };
  for (const l of leaves)
    if (l.plan.hosts.includes(slow.host)) l.child.send({ type: 'slow', plan });
}

function planFor(opts: ClusterOptions): ClusterPlan {
  const plan = planCluster({
    leafProcesses: opts.leafProcesses ?? 5,
    hostsPerProcess: opts.hostsPerProcess ?? 8,
    width: opts.width ?? 8,
    hogs: opts.hogs ?? 1,
    contendedNice: opts.contendedNice ?? 5,
    cpus: availableParallelism(),
    canPin: tasksetWorks(),
    canRaisePriority: canRaisePriority(),
  });
  const control = opts.controlFraction ?? 0;
  if (!(control >= 0 && control <= 1)) {
    throw new Error(`--control-fraction must be a number from 0 to 1, got ${String(control)}`);
  }
  const slow = opts.slow;
  if (slow && !plan.hosts.some((h) => h.host === slow.host)) {
    const last = plan.hosts.at(-1)?.host ?? '';
    throw new Error(`--slow-host ${slow.host} is not a host of this cluster (host-01 to ${last})`);
  }
  return plan;
}

/**
 * Starts hogs, then leaves, then the root (which needs the leaves' ports). Rejects, after
 * stopping whatever had started, if any child fails to come up in time.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const plan = planFor(opts);
  const children: DemoChild[] = [];
  const modes = new Map<string, SharingMode | 'unknown'>();
  let stopping = false;
  try {
    for (const hog of plan.hogs) {
      const prefix = placementPrefix(hog.cpuList, 0);
      const config = hogConfig(opts);
      children.push(new DemoChild({ name: hog.name, entry: 'hog-main.ts', config, prefix }));
    }
    const { leaves, endpoints, probes } = await startLeaves(opts, plan, children, modes, log);
    const root = rootChild(opts, plan, endpoints);
    children.push(root);
    let latest: RootStats | null = null;
    root.onMessage((m) => {
      if (m.type === 'stats') latest = m.stats;
    });
    const { port } = await root.waitFor('root-ready', 60_000);
    if (opts.slow) scheduleSlowHost(opts.slow, leaves);
    for (const c of children) {
      void c.exited.then((info) => {
        if (!stopping) log(`${c.name} exited unexpectedly (${String(info.code ?? info.signal)})`);
      });
    }
    return {
      rootUrl: `http://127.0.0.1:${String(port)}`,
      plan,
      hosts: endpoints,
      stats: () => latest,
      sharingModes: () => new Map(modes),
      pids: () => children.map((c) => c.pid),
      probesSettled: () => probes.done,
      settleProbes: () => {
        probes.giveUp();
      },
      startRecording: () => {
        for (const c of children) if (!c.name.startsWith('hog')) c.send({ type: 'record' });
      },
      stop: async () => {
        stopping = true;
        await stopAll(children);
      },
    };
  } catch (err) {
    stopping = true;
    await stopAll(children);
    throw err;
  }
}
