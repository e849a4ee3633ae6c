/**
 * Runtime metrics of a demo process, exported as OTLP metrics the way a real service sends them
 * (issue #27): the OpenTelemetry JS SDK's meter provider and OTLP/protobuf exporter, the OTel JS
 * host metrics (machine and process memory) and runtime instrumentation (V8 GC pauses as
 * `v8js.gc.duration`, event-loop delay), and the process's CPU against the CPU of its "host".
 *
 * A demo process is a machine's worth of virtual hosts pinned (taskset) to some cores, as a VM is
 * given its vCPUs; the hogs pinned beside them are its noisy neighbours. So the host's CPU here is
 * the CPUs the process may run on (`Cpus_allowed_list`), read from /proc/stat as a VM's
 * hostmetrics receiver reads its own: `system.cpu.utilization{cpu.logical_number, cpu.mode}` per
 * allowed CPU, and `process.cpu.utilization{cpu.mode}` as the process's CPU time over the elapsed
 * time times those CPUs (the semantic conventions' definition). Tailscope's neighbour-pressure
 * evidence (others' share = 1 - idle / CPUs - own; docs/metrics.md) then sees a hog on the
 * contended leaves' core and nothing on the other. Every virtual host of the process reports the
 * process's CPU and GC figures under its own resource (`host.name`), as its spans do; the first
 * also the machine's memory and network.
 */
import { readFileSync } from 'node:fs';
import { cpuUsage, hrtime } from 'node:process';
import type { Meter, ObservableResult } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { HostMetrics } from '@opentelemetry/host-metrics';
import { RuntimeNodeInstrumentation } from '@opentelemetry/instrumentation-runtime-node';
import type { DetectedResourceAttributes } from '@opentelemetry/resources';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { hostResource } from './telemetry';

/** The /proc/stat columns after `cpuN`, in order (proc(5)). */
const CPU_MODES = ['user', 'nice', 'system', 'idle', 'iowait', 'interrupt', 'softirq', 'steal'];

/** The CPUs this process may run on, from /proc/self/status (`0-1,3`); null when unreadable. */
export function allowedCpus(
  status: string | null = readText('/proc/self/status'),
): number[] | null {
  const line = status?.split('\n').find((l) => l.startsWith('Cpus_allowed_list:'));
  if (line === undefined) return null;
  const cpus: number[] = [];
  for (const part of line
    .slice(line.indexOf(':') + 1)
    .trim()
    .split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) continue;
    const end = b !== undefined && Number.isInteger(b) ? b : a;
    for (let c = a; c <= end; c++) cpus.push(c);
  }
  return cpus.length > 0 ? cpus : null;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Per CPU, its /proc/stat jiffies by mode. */
export function cpuJiffies(stat: string, cpus: readonly number[]): Map<number, number[]> {
  const want = new Set(cpus);
  const out = new Map<number, number[]>();
  for (const line of stat.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m || !want.has(Number(m[1]))) continue;
    out.set(Number(m[1]), (m[2] ?? '').trim().split(/\s+/).slice(0, CPU_MODES.length).map(Number));
  }
  return out;
}

/**
 * The CPU gauges of one host: each collection reports the shares since the previous one (the
 * first collection only takes its starting point).
 */
class HostCpu {
  private jiffies: Map<number, number[]> | null = null;
  private own: { at: bigint; usage: NodeJS.CpuUsage } | null = null;

  constructor(
    meter: Meter,
    private readonly cpus: readonly number[],
  ) {
    meter
      .createObservableGauge('system.cpu.utilization', {
        description: 'Share of each of the host CPUs time spent in each mode',
        unit: '1',
      })
      .addCallback((r) => {
        this.observeHost(r);
      });
    meter
      .createObservableGauge('process.cpu.utilization', {
        description: 'CPU time of the process over the elapsed time times the host CPUs',
        unit: '1',
      })
      .addCallback((r) => {
        this.observeProcess(r);
      });
  }

  private observeHost(result: ObservableResult): void {
    const stat = readText('/proc/stat');
    if (stat === null) return;
    const now = cpuJiffies(stat, this.cpus);
    const before = this.jiffies;
    this.jiffies = now;
    if (!before) return;
    for (const [cpu, values] of now) {
      const prev = before.get(cpu);
      if (!prev) continue;
      const delta = values.map((v, i) => Math.max(0, v - (prev[i] ?? v)));
      const total = delta.reduce((s, d) => s + d, 0);
      if (total <= 0) continue;
      delta.forEach((d, i) => {
        result.observe(d / total, {
          'cpu.logical_number': cpu,
          'cpu.mode': CPU_MODES[i] ?? 'other',
        });
      });
    }
  }

  private observeProcess(result: ObservableResult): void {
    const at = hrtime.bigint();
    const usage = cpuUsage();
    const before = this.own;
    this.own = { at, usage };
    if (!before) return;
    const elapsedUs = Number(at - before.at) / 1000;
    if (elapsedUs <= 0) return;
    const capacity = elapsedUs * this.cpus.length;
    result.observe(Math.max(0, usage.user - before.usage.user) / capacity, { 'cpu.mode': 'user' });
    result.observe(Math.max(0, usage.system - before.usage.system) / capacity, {
      'cpu.mode': 'system',
    });
  }
}

export interface RuntimeMetricsOptions {
  /** The OTLP traces URL the process exports to; metrics go to its `/v1/metrics`. */
  otlpUrl: string;
  serviceName: string;
  processAttributes: DetectedResourceAttributes;
  /** The virtual hosts; each gets a resource of its own, as its spans do. */
  hosts: readonly string[];
  /** How often each host exports, ms. */
  intervalMs: number;
}

/** The metrics endpoint beside a traces endpoint (`.../v1/traces` -> `.../v1/metrics`). */
export function metricsUrl(otlpTracesUrl: string): string {
  const u = new URL(otlpTracesUrl);
  u.pathname = u.pathname.replace(/\/v1\/traces\/?$/, '') + '/v1/metrics';
  return u.toString();
}

/**
 * The runtime instrumentation's metrics other than GC pauses: the process's, reported by its
 * first host only (the others would repeat them, and collecting them eight times a period cost
 * the demo's p99).
 */
const PROCESS_ONLY: ViewOptions[] = ['nodejs.*', 'v8js.memory.*', 'v8js.resource.*'].map(
  (instrumentName) => ({ instrumentName, aggregation: { type: AggregationType.DROP } }),
);

/**
 * Starts the process's runtime metrics; `stop` flushes and shuts them down. The hosts' export
 * timers are spread over the period, so a process never collects all its hosts at once.
 */
export function startRuntimeMetrics(opts: RuntimeMetricsOptions): { stop: () => Promise<void> } {
  const cpus = allowedCpus() ?? [0];
  const url = metricsUrl(opts.otlpUrl);
  const providers: MeterProvider[] = [];
  const runtimes: RuntimeNodeInstrumentation[] = [];
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const start = (host: string, first: boolean): void => {
    const provider = new MeterProvider({
      resource: hostResource(opts.serviceName, host, opts.processAttributes),
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url }),
          exportIntervalMillis: opts.intervalMs,
          exportTimeoutMillis: Math.min(opts.intervalMs, 10_000),
        }),
      ],
      views: first ? [] : PROCESS_ONLY,
    });
    providers.push(provider);
    new HostCpu(provider.getMeter('@tailscope/demo/host-cpu'), cpus);
    // Memory is the machine's, the same for every virtual host: the first reports it. Left out:
    // the library's CPU groups (they count every CPU of the machine; the host's are above) and
    // its network group (it runs `cat` through a shell per collection, which cost the demo's
    // p99, for loopback counters that never see an error).
    if (first)
      new HostMetrics({
        meterProvider: provider,
        name: '@tailscope/demo/host-metrics',
        metricGroups: ['system.memory', 'process.memory'],
      }).start();
    const runtime = new RuntimeNodeInstrumentation({ monitoringPrecision: 100 });
    runtime.setMeterProvider(provider);
    runtime.enable();
    runtimes.push(runtime);
  };
  opts.hosts.forEach((host, i) => {
    const delay = (opts.intervalMs * i) / opts.hosts.length;
    if (i === 0) start(host, true);
    else
      timers.push(
        setTimeout(() => {
          if (!stopped) start(host, false);
        }, delay).unref(),
      );
  });
  return {
    stop: async () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      for (const r of runtimes) r.disable();
      await Promise.allSettled(providers.map((p) => p.shutdown()));
    },
  };
}
