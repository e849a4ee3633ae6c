import type { SharingMode } from '@tailscope/collectors';
import type { HedgeOptions, LeafEndpoint, Policy, ProbationOptions, RootStats } from './messages';
import type { ProbeBaseline } from './probe-judge';
import type { ClusterPlan } from './topology';

/** What `startCluster` takes and gives back (cluster.ts), and the policies' defaults. */

export interface SlowHostOption {
  host: string;
  /** Seconds after the cluster is ready. */
  fromS: number;
  forS: number;
  delayMs: number;
}

export interface ClusterOptions {
  /** OTLP/HTTP traces endpoint (…/v1/traces), protobuf. */
  otlpUrl: string;
  width?: number;
  leafProcesses?: number;
  hostsPerProcess?: number;
  hogs?: number;
  contendedNice?: number;
  policy?: Policy;
  hedge?: Partial<HedgeOptions>;
  probation?: Partial<ProbationOptions>;
  /** Measure each leaf process's sharing mode at startup (default), or use the role's mode. */
  probe?: boolean;
  probeSamples?: number;
  /** The probe starts this long after a leaf's first request, to measure it under load. */
  probeDelayMs?: number;
  slow?: SlowHostOption | null;
  compactionEveryMs?: number;
  compactionEntries?: number;
  gcAllocPerRequest?: number;
  gcRetained?: number;
  callTimeoutMs?: number;
  /** Share of fan-outs served without the policy and marked as the control group (0 to 1). */
  controlFraction?: number;
  /** The hogs stop themselves after this long whatever happens (default 6 h). */
  hogLifetimeMs?: number;
  /** Hog duty cycle (default 30 ms busy, 6 ms idle: ~83% busy). */
  hogBusyMs?: number;
  hogIdleMs?: number;
  /**
   * Warm up before recording: children start with their recording gate closed and trace
   * nothing until `startRecording()` (recording-gate.ts). Default false: record from the start.
   */
  warmup?: boolean;
  /**
   * Runtime metrics of the root and the leaves (runtime-metrics.ts: CPU of each host's cores,
   * V8 GC pauses, event-loop delay, memory, network), exported every this many ms to the OTLP
   * endpoint's /v1/metrics. Default 10000; 0: none.
   */
  metricsIntervalMs?: number;
  /** The probe's calm baseline (measureProbeBaseline, before anything started); null: none. */
  probeBaseline?: ProbeBaseline | null;
  log?: (line: string) => void;
}

export interface Cluster {
  rootUrl: string;
  plan: ClusterPlan;
  hosts: LeafEndpoint[];
  /** The root's latest counters (hedges, shadows, probation). */
  stats(): RootStats | null;
  /** Sharing mode per leaf process, once measured. */
  sharingModes(): Map<string, SharingMode | 'unknown'>;
  /** Process ids of every child (hogs, leaves, root). */
  pids(): number[];
  /** Every leaf's probe has its ruling (or probing is off). */
  probesSettled(): boolean;
  /** Ends probing: leaves still without a ruling get `unknown`. */
  settleProbes(): void;
  /** Opens every child's recording gate (after the warm-up). */
  startRecording(): void;
  stop(): Promise<void>;
}

export const DEFAULT_HEDGE: HedgeOptions = { delayMs: 10, percentile: null, cancel: 'discard' };
export const DEFAULT_PROBATION: ProbationOptions = {
  windowMs: 5000,
  factor: 3,
  minLatencyMs: 10,
  holdMs: 5000,
  shadowFraction: 0.2,
  maxExcludedFraction: 0.4,
};
