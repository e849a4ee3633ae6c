/**
 * What the supervisor and its child processes say to each other over the Node IPC channel, and
 * the configuration each child gets (as JSON in TAILSCOPE_DEMO_CHILD).
 */
import type { SharingMode } from '@tailscope/collectors';

export type LeafRole = 'contended' | 'shared' | 'gc' | 'compaction' | 'plain';

/** An injected fault: one host answers late (async wait, like a degraded disk) for a while. */
export interface SlowHostPlan {
  host: string;
  fromEpochMs: number;
  toEpochMs: number;
  /** Mean extra wait per request, ms (drawn uniformly in [0.5, 1.5] x this). */
  delayMs: number;
}

export interface LeafConfig {
  kind: 'leaf';
  processName: string;
  role: LeafRole;
  hosts: string[];
  otlpUrl: string;
  /** Measure the sharing mode while serving, or use this configured one. */
  sharingMode: SharingMode | 'probe';
  probeSamples: number;
  /** Start the probe this long after the first request (ms), so that it runs under load. */
  probeDelayMs: number;
  /** Compaction: mean period and number of sorted entries merged per compaction. */
  compactionEveryMs: number;
  compactionEntries: number;
  /** GC pressure: objects allocated per request, and objects retained in the old generation. */
  gcAllocPerRequest: number;
  gcRetained: number;
  /** Record traces from the start; false: only after the supervisor's `record` (warm-up). */
  recording: boolean;
  /** Export runtime metrics (runtime-metrics.ts) this often, ms; 0: none. */
  metricsIntervalMs: number;
}

export interface LeafEndpoint {
  host: string;
  port: number;
  process: string;
  role: LeafRole;
  /** The shard this host serves (host index mod fan-out width). */
  shard: number;
}

export type Policy = 'none' | 'hedge' | 'probation';

export interface HedgeOptions {
  /** Send the backup after this long (ms) ... */
  delayMs: number;
  /** ... or, when set, after this percentile of recent call latencies (0-100). */
  percentile: number | null;
  /**
   * What happens to the copy that loses. 'discard': it finishes on its keep-alive connection and
   * its answer is dropped (like cancelling a stream on a multiplexed connection: the connection
   * survives). 'close': it is aborted, which on HTTP/1.1 closes its connection, so the next call
   * to that host opens a new one (measured: +1.1 ms median on those calls; docs/whatif.md).
   */
  cancel: HedgeCancel;
}

export type HedgeCancel = 'discard' | 'close';

export interface ProbationOptions {
  /** Sliding window of call latencies per host (ms). */
  windowMs: number;
  /** A host is excluded when its window p90 exceeds factor x the median host's p90 ... */
  factor: number;
  /** ... and this floor in ms, so that a uniformly fast cluster excludes nobody. */
  minLatencyMs: number;
  /** An excluded host returns after its shadow latencies have been healthy for this long (ms). */
  holdMs: number;
  /** Share of calls rerouted away from an excluded host that also go to it as shadows. */
  shadowFraction: number;
  /** At most this share of each shard's replicas is excluded at once. */
  maxExcludedFraction: number;
}

export interface RootConfig {
  kind: 'root';
  otlpUrl: string;
  width: number;
  leaves: LeafEndpoint[];
  policy: Policy;
  hedge: HedgeOptions;
  probation: ProbationOptions;
  /** A call (and so a fan-out) gives up after this long (ms). */
  callTimeoutMs: number;
  /**
   * Share of fan-outs (chosen at random, one by one) served without the policy, as a control
   * group: a randomized A/B within one run. With a share above 0 every leaf call is marked
   * `tailscope.arm` = `control` or `treatment`. 0: no split, no mark.
   */
  controlFraction: number;
  /** As for leaves: false holds traces back until the supervisor's `record`. */
  recording: boolean;
  /** As for leaves: runtime metrics every this many ms; 0: none. */
  metricsIntervalMs: number;
}

/** Which group of a randomized split a fan-out belongs to (`tailscope.arm`). */
export type Arm = 'control' | 'treatment';

export interface HogConfig {
  kind: 'hog';
  /** Exit on its own after this long, whatever happens to the supervisor (ms). */
  maxLifetimeMs: number;
  /** Duty cycle: spin this long (ms), then rest this long (ms). */
  busyMs: number;
  idleMs: number;
}

export type ChildConfig = LeafConfig | RootConfig | HogConfig;

export const CHILD_CONFIG_ENV = 'TAILSCOPE_DEMO_CHILD';

/** Child -> supervisor. */
export type ChildMessage =
  | { type: 'ready'; hosts: { host: string; port: number }[] }
  | {
      type: 'sharing-mode';
      sharingMode: SharingMode | 'unknown';
      probe: { p99Ms: number; longFraction: number; samples: number } | null;
    }
  | {
      type: 'probe-result';
      mode: SharingMode;
      probe: { p99Ms: number; longFraction: number; noticeableFraction: number; samples: number };
    }
  | { type: 'root-ready'; port: number }
  | { type: 'stats'; stats: RootStats };

/** Supervisor -> child. */
export type SupervisorMessage =
  | { type: 'probe' }
  | { type: 'stop' }
  | { type: 'slow'; plan: SlowHostPlan }
  | { type: 'record' }
  /** The supervisor's ruling on a probe: this mode, or measure again (machine saturated). */
  | { type: 'sharing-verdict'; mode: SharingMode | 'unknown' }
  | { type: 'reprobe' };

export interface RootStats {
  fanouts: number;
  fanoutErrors: number;
  calls: number;
  hedgesSent: number;
  hedgesWon: number;
  shadowsSent: number;
  /** Hosts on probation now. */
  excluded: string[];
  /** Exclusions started so far. */
  exclusions: number;
  /** Current hedge delay (ms), when hedging. */
  hedgeDelayMs: number | null;
  /** Fan-outs served without the policy as the control group (RootConfig.controlFraction). */
  controlFanouts: number;
}
