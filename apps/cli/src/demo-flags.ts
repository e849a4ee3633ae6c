import {
  planCluster,
  type ClusterOptions,
  type HedgeCancel,
  type LoadSnapshot,
  type Policy,
  type RootStats,
} from '@tailscope/demo';
import { availableParallelism } from 'node:os';
import type { ServerFlags } from './index';

/** `tailscope demo` flags to cluster options (every bad flag named), and its status line. */

export interface DemoFlags extends ServerFlags {
  duration?: string;
  policy: Policy;
  rate: string;
  width: string;
  leafProcesses: string;
  hostsPerProcess: string;
  hogs: string;
  contendedNice: string;
  probe: boolean;
  hedgeDelayMs: string;
  hedgePercentile?: string;
  hedgeCancel?: string;
  probationWindowS: string;
  probationFactor: string;
  probationMinMs: string;
  probationHoldS: string;
  probationShadow: string;
  controlFraction: string;
  slowHost?: string;
  slowFrom: string;
  slowFor: string;
  slowMs: string;
  compactionEveryMs: string;
  /** Runtime metrics export period, s (0: none); absent: the cluster's default. */
  metricsEveryS?: string;
  statusEveryS: string;
  warmupMaxS: string;
  otlp?: string;
}

/**
 * `--hogs auto` and `--rate auto`, sized to the machine's cores (os.availableParallelism()).
 * The hogs share core 0 with the contended leaf whatever the machine; on 2 cores everything else
 * (root, four leaves, Tailscope) shares core 1, so one hog and 15 fan-outs/s keep the planted
 * causes the story instead of the machine itself saturating; from 3 cores up, two hogs and 25/s
 * (the rate docs/demo.md's measurements used).
 */
export function autoSize(cpus: number): { hogs: number; rate: number } {
  return cpus <= 2 ? { hogs: 1, rate: 15 } : { hogs: 2, rate: 25 };
}

/** A flag that takes `auto` or a number. */
export function numOrAuto(
  flag: string,
  raw: string,
  auto: number,
  min: number,
  max: number,
  integer = false,
): number {
  return raw === 'auto' ? auto : num(flag, raw, min, max, integer);
}

export class DemoFlagError extends Error {}

export function num(flag: string, raw: string, min: number, max: number, integer = false): number {
  const n = Number(raw);
  if (
    raw.trim() === '' ||
    !Number.isFinite(n) ||
    n < min ||
    n > max ||
    (integer && !Number.isInteger(n))
  ) {
    const kind = integer ? 'an integer' : 'a number';
    throw new DemoFlagError(
      `${flag} must be ${kind} between ${String(min)} and ${String(max)}, got '${raw}'`,
    );
  }
  return n;
}

function hedgeCancel(raw: string | undefined): HedgeCancel {
  if (raw === undefined || raw === 'discard' || raw === 'close') return raw ?? 'discard';
  throw new DemoFlagError(`--hedge-cancel must be discard or close, got '${raw}'`);
}

/** Flags to cluster options, with an error naming the bad flag. */
export function clusterOptionsFromFlags(f: DemoFlags, otlpUrl: string): ClusterOptions {
  const hedgePercentile =
    f.hedgePercentile === undefined ? null : num('--hedge-percentile', f.hedgePercentile, 1, 99.99);
  const options: ClusterOptions = {
    otlpUrl,
    policy: f.policy,
    width: num('--width', f.width, 2, 64, true),
    leafProcesses: num('--leaf-processes', f.leafProcesses, 1, 32, true),
    hostsPerProcess: num('--hosts-per-process', f.hostsPerProcess, 1, 64, true),
    hogs: numOrAuto('--hogs', f.hogs, autoSize(availableParallelism()).hogs, 0, 8, true),
    contendedNice: num('--contended-nice', f.contendedNice, 0, 19, true),
    probe: f.probe,
    compactionEveryMs: num('--compaction-every-ms', f.compactionEveryMs, 100, 3_600_000),
    ...(f.metricsEveryS === undefined
      ? {}
      : { metricsIntervalMs: num('--metrics-every-s', f.metricsEveryS, 0, 3600) * 1000 }),
    hedge: {
      delayMs: num('--hedge-delay-ms', f.hedgeDelayMs, 0.1, 60_000),
      percentile: hedgePercentile,
      cancel: hedgeCancel(f.hedgeCancel),
    },
    probation: {
      windowMs: num('--probation-window-s', f.probationWindowS, 0.5, 3600) * 1000,
      factor: num('--probation-factor', f.probationFactor, 1, 1000),
      minLatencyMs: num('--probation-min-ms', f.probationMinMs, 0, 60_000),
      holdMs: num('--probation-hold-s', f.probationHoldS, 0, 3600) * 1000,
      shadowFraction: num('--probation-shadow', f.probationShadow, 0, 1),
    },
    controlFraction: num('--control-fraction', f.controlFraction, 0, 1),
    slow:
      f.slowHost === undefined
        ? null
        : {
            host: f.slowHost,
            fromS: num('--slow-from', f.slowFrom, 0, 86_400),
            forS: num('--slow-for', f.slowFor, 0, 86_400),
            delayMs: num('--slow-ms', f.slowMs, 0, 60_000),
          },
  };
  // The cluster's shape checks (enough replicas per shard, a known slow host), before any start.
  let hosts: string[];
  try {
    hosts = planCluster({
      leafProcesses: options.leafProcesses ?? 5,
      hostsPerProcess: options.hostsPerProcess ?? 8,
      width: options.width ?? 8,
      hogs: options.hogs ?? 1,
      contendedNice: options.contendedNice ?? 5,
      cpus: 2,
      canPin: false,
      canRaisePriority: false,
    }).hosts.map((h) => h.host);
  } catch (err) {
    throw new DemoFlagError(err instanceof Error ? err.message : String(err));
  }
  if (f.slowHost !== undefined && !hosts.includes(f.slowHost)) {
    throw new DemoFlagError(
      `--slow-host must name a host of the cluster (${hosts[0] ?? ''} to ${hosts.at(-1) ?? ''}), got '${f.slowHost}'`,
    );
  }
  return options;
}

function ms(x: number): string {
  return Number.isNaN(x) ? '-' : `${x.toFixed(1)} ms`;
}

/** One status line: load as the client saw it, the root's policy counters, the ingest rate. */
export function statusLine(
  elapsedS: number,
  periodS: number,
  load: LoadSnapshot,
  root: RootStats | null,
  spansPerSecond: number | null,
): string {
  const parts = [
    `demo ${String(Math.round(elapsedS)).padStart(4)}s`,
    `${(load.answers / periodS).toFixed(1)} fan-outs/s`,
    `p50 ${ms(load.p50Ms)}`,
    `p99 ${ms(load.p99Ms)}`,
    `max ${ms(load.maxMs)}`,
    `failed ${String(load.failed)}`,
  ];
  if (load.dropped > 0) parts.push(`dropped ${String(load.dropped)}`);
  if (root?.hedgeDelayMs != null) {
    parts.push(
      `hedges ${String(root.hedgesSent)} (won ${String(root.hedgesWon)}, delay ${String(root.hedgeDelayMs)} ms)`,
    );
  }
  if (root && root.controlFanouts > 0) {
    parts.push(`control ${String(root.controlFanouts)} of ${String(root.fanouts)}`);
  }
  if (root && (root.exclusions > 0 || root.shadowsSent > 0)) {
    const now = root.excluded.length === 0 ? 'none' : root.excluded.join(',');
    parts.push(
      `probation: ${now} (${String(root.exclusions)} so far, ${String(root.shadowsSent)} shadows)`,
    );
  }
  if (spansPerSecond !== null) parts.push(`ingest ${spansPerSecond.toFixed(0)} spans/s`);
  return parts.join('  ');
}
