import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { probeNetFaults, type NetFaults } from './inject-net';
import { CONTROL_ADDRESS, Topology, type NsProcess } from './topology';
import { SERVICES, type Service } from './schedule';
import { FETCH_MANY, FORWARD, LOAD, PROBE, PROC_METRICS } from './scripts';

/**
 * HotROD split into its services, one process per service in its own namespace (topology.ts),
 * the real `tailscope serve` in the control namespace receiving their OTLP, and an open-loop load
 * on the frontend. A service can be restarted with other flags (the pool and lock faults).
 */

const CLI = resolve(import.meta.dirname, '../../../apps/cli/bin/tailscope.js');
/** HotROD's default ports. */
export const PORTS: Record<Service, number> = {
  frontend: 8080,
  customer: 8081,
  driver: 8082,
  route: 8083,
};
const API_PORT = 7070;
const OTLP_HTTP = 4318;
/** Warm-up dispatches are unsampled (flags 00): HotROD records no spans for them. */
const WARMUP_TRACEPARENT = '00-7a11c0de000000000000000000000002-7a11c0de00000002-00';
const CUSTOMERS = [123, 392, 731, 567];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `chrt -r 50` where it works (root), as apps/api/test/hotrod does: HotROD's services only sleep,
 * so on a shared 2-core machine their recorded times are mostly the wait for a core. At
 * real-time priority they are served first, as on machines of their own, and CPU contention is
 * what the cpu fault injects (inject.ts), not what the neighbours happen to do.
 */
export function realtimePrefix(): string[] {
  if (process.env.HOTROD_REALTIME === '0') return [];
  return spawnSync('chrt', ['-r', '50', 'true'], { stdio: 'ignore' }).status === 0
    ? ['chrt', '-r', '50']
    : [];
}

export interface Cluster {
  topo: Topology;
  /** The prefix services run under (`chrt -r 50`, or none). */
  realtime: string[];
  /** The running process of a service (its pid is HotROD's: `ip netns exec` execs it). */
  process: (s: Service) => NsProcess;
  /** How network faults are made here (inject-net.ts): netem, the kernel queues, or the relay. */
  netFaults: NetFaults;
  /** The one-way delay the frontend's link relay adds to a service's answers (0: none). */
  setLinkDelay: (s: Service, ms: number) => void;
  /** Stops a service and starts it again with extra HotROD flags; resolves once it listens. */
  restart: (s: Service, flags: string[]) => Promise<void>;
  /** GETs a Tailscope API path (from the control namespace); throws unless 200. */
  api: <T>(path: string) => Promise<T>;
  /** Starts the open-loop load at `rate` requests/s; resolves once a dispatch has succeeded. */
  startLoad: (rate: number) => Promise<NsProcess>;
  stop: () => Promise<void>;
}

export interface ClusterOptions {
  hotrod: string;
  /** Namespace tag (`ts-<tag>-<pid>-...`). */
  tag: string;
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const topo = await Topology.create(opts.tag, SERVICES);
  const dataDir = mkdtempSync(join(tmpdir(), `tailscope-${opts.tag}-`));
  const procs = new Map<Service, NsProcess>();
  const stop = async (): Promise<void> => {
    await topo.destroy();
    // KEEP_DATA=1 keeps the store (its spans and metrics) to look into after the run.
    if (process.env.KEEP_DATA === '1') console.log(`store kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const realtime = realtimePrefix();
    const node = (ns: string, script: string, args: string[], prefix: string[] = []) => {
      const [cmd = process.execPath, ...rest] = [
        ...prefix,
        process.execPath,
        ...['--input-type=module', '-e', script, ...args],
      ];
      return topo.spawn(ns, cmd, rest);
    };
    const fetchMany = async (urls: string[]) =>
      JSON.parse(
        await topo.exec(
          topo.control,
          process.execPath,
          ['--input-type=module', '-e', FETCH_MANY, JSON.stringify(urls)],
          180_000,
        ),
      ) as { status: number; body: string }[];
    const base = `http://${CONTROL_ADDRESS}:${String(API_PORT)}`;
    const tailscope = topo.spawn(
      topo.control,
      process.execPath,
      [
        CLI,
        'serve',
        ...['--host', CONTROL_ADDRESS, '--insecure', '--data-dir', dataDir],
        ...['--port', String(API_PORT), '--otlp-http-port', String(OTLP_HTTP)],
        ...['--otlp-grpc-port', '4317'],
      ],
      // The machine may be shared and busy: analyses wait for a slot longer than the default.
      { TAILSCOPE_LOG_LEVEL: 'warn', TAILSCOPE_QUERY_TIMEOUT_SECONDS: '120' },
    );
    for (const until = Date.now() + 90_000; ;) {
      const [res] = await fetchMany([`${base}/api/v1/stats`]);
      if (res?.status === 200) break;
      if (tailscope.child.exitCode !== null || Date.now() > until)
        throw new Error(`tailscope did not come up: ${tailscope.output()}`);
      await sleep(300);
    }
    // The services' pids, for the host-metrics reporter (rewritten on each start).
    const pidFile = join(dataDir, 'pids.json');
    const pids: Record<string, number> = {};
    const start = (s: Service, flags: string[]): NsProcess => {
      const m = topo.member(s);
      const [cmd = opts.hotrod, ...args] = [...realtime, opts.hotrod, s, '-x', 'otlp', ...flags];
      const p = topo.spawn(m.ns, cmd, args, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://${CONTROL_ADDRESS}:${String(OTLP_HTTP)}`,
        OTEL_BSP_SCHEDULE_DELAY: '500',
        OTEL_RESOURCE_ATTRIBUTES: `host.name=${s}`,
      });
      procs.set(s, p);
      pids[s] = p.child.pid ?? 0;
      writeFileSync(pidFile, JSON.stringify(pids));
      return p;
    };
    const listening = async (s: Service): Promise<void> => {
      const m = topo.member(s);
      for (const until = Date.now() + 30_000; ;) {
        const args = ['--input-type=module', '-e', PROBE, m.address, String(PORTS[s])];
        if ((await topo.exec(topo.control, process.execPath, args)) === 'open') return;
        if (procs.get(s)?.child.exitCode != null || Date.now() > until)
          throw new Error(`${s} did not come up: ${procs.get(s)?.output() ?? ''}`);
        await sleep(200);
      }
    };
    for (const s of SERVICES) start(s, []);
    // HotROD sends no metrics: their host metrics from the kernel (scripts.ts PROC_METRICS).
    if (process.env.PROC_METRICS !== '0')
      node(topo.control, PROC_METRICS, [
        `http://${CONTROL_ADDRESS}:${String(OTLP_HTTP)}/v1/metrics`,
        pidFile,
        '1000',
      ]);
    // The frontend's own namespace forwards 0.0.0.0:PORT to each service (scripts.ts FORWARD).
    const routes = SERVICES.filter((s) => s !== 'frontend').map((s) => [
      PORTS[s],
      topo.member(s).address,
    ]);
    const control = join(dataDir, 'link-delays.json');
    const delays: Record<string, number> = {};
    writeFileSync(control, '{}');
    // The relay is on every call's path: it runs as HotROD does.
    node(topo.member('frontend').ns, FORWARD, [JSON.stringify(routes), control], realtime);
    const netFaults = await probeNetFaults({ topo });
    for (const s of SERVICES) await listening(s);
    return {
      topo,
      realtime,
      netFaults,
      setLinkDelay: (s, ms) => {
        delays[String(PORTS[s])] = ms;
        writeFileSync(control, JSON.stringify(delays));
      },
      process: (s) => {
        const p = procs.get(s);
        if (!p) throw new Error(`${s} is not running`);
        return p;
      },
      restart: async (s, flags) => {
        await procs.get(s)?.stop();
        start(s, flags);
        await listening(s);
      },
      api: async <T>(path: string): Promise<T> => {
        const [res] = await fetchMany([base + path]);
        if (res?.status !== 200) throw new Error(`${path}: ${String(res?.status)} ${res?.body}`);
        return JSON.parse(res.body) as T;
      },
      startLoad: async (rate) => {
        const frontend = `http://${topo.member('frontend').address}:${String(PORTS.frontend)}`;
        const load = node(topo.control, LOAD, [
          frontend,
          String(rate),
          JSON.stringify(CUSTOMERS),
          WARMUP_TRACEPARENT,
        ]);
        for (const until = Date.now() + 70_000; !load.output().includes('"ready"');) {
          if (load.child.exitCode !== null || Date.now() > until)
            throw new Error(`load did not start: ${load.output()}`);
          await sleep(200);
        }
        return load;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
