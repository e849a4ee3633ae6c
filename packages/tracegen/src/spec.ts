/** A scenario as plain JSON: what presets build, what `--spec FILE` reads. */
import type { LatencySpec } from './distributions';

export type SharingMode = 'dedicated' | 'shared' | 'contended';
export const sharingModes: readonly SharingMode[] = ['dedicated', 'shared', 'contended'];
export type Shape = 'client-server' | 'server-only';
export type Correlation = 'independent' | 'request';

export type WidthSpec =
  | { kind: 'fixed'; n: number }
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'choice'; values: number[]; weights?: number[] }
  | { kind: 'all' };

/** A call's latency L becomes L * factor + a draw of addMs. */
export interface Slowdown {
  factor: number;
  addMs: LatencySpec | null;
}

export interface OversleepSpec {
  mode: SharingMode;
  probability: number;
  minMs: number;
  maxMs: number;
}

export interface EpisodeSpec {
  /** Leaf host index (shard-major: shard * replicas + replica). */
  host: number;
  /** Fractions of the run's duration. */
  startFraction: number;
  endFraction: number;
  slowdown: Slowdown;
}

export interface BackgroundSpec {
  activity: string;
  everyMs: number;
  durationMs: number;
  /** Each period is everyMs * (1 + jitter * U(-1, 1)). */
  jitter: number;
  /** Share of leaf hosts that run it (a seeded choice). */
  hostFraction: number;
  /** null: the activity happens and is reported, but slows nothing (a decoy). */
  slowdown: Slowdown | null;
}

export interface ScenarioSpec {
  name: string;
  description: string;
  defaultRequests: number;
  ratePerSecond: number;
  root: { service: string; operation: string; hostPrefix: string; hosts: number };
  leaf: {
    service: string;
    operation: string;
    hostPrefix: string;
    shards: number;
    replicas: number;
  };
  shape: Shape;
  width: WidthSpec;
  /** A healthy call's latency; a mixture's `tail` components are the planted outliers. */
  latency: LatencySpec;
  correlation: Correlation;
  /** Fractions of leaf hosts in each non-dedicated mode (the rest are dedicated). */
  sharing: { shared: number; contended: number };
  oversleep: OversleepSpec[];
  episodes: EpisodeSpec[];
  background: BackgroundSpec[];
  decoys: { zones: string[]; buildIds: string[] };
  /** Microseconds: root work before the first call, gap between dispatches, network, after. */
  timing: { preUs: number; dispatchGapUs: number; rttUs: number; postUs: number };
  /**
   * A built-in multi-service application instead of the root -> leaf fan-out (docs/tracegen.md,
   * preset `microservices`); `root`, `leaf`, `width` and `latency` then describe its pool edge.
   */
  app?: AppSpec;
}

/** The `microservices` application's knobs; its services and operations are fixed. */
export interface AppSpec {
  kind: 'microservices';
  /** Worker-pool fan-out: calls per request and the workers they go through. */
  poolCalls: number;
  poolWorkers: number;
  /** True parallel fan-out: one call to each of this many hosts of one service. */
  parallelHosts: number;
  /** Sequential loop: calls per request, one after another. */
  loopCalls: number;
  /** The one skewed host pair: the server's clock runs this far ahead. */
  skewMs: number;
  /** Requests i with i % duplicateEvery in the planted offsets send some spans twice. */
  duplicateEvery: number;
  /** Calls into the faulty single-replica service are factor U(min, max) slower. */
  fault: { startFraction: number; endFraction: number; factorMin: number; factorMax: number };
}

/** Overrides of a preset's defaults. */
export interface PresetParams {
  /** Fan-out width (for `paper-fanout`, also the number of servers N). */
  width?: number;
  /** Leaf hosts (for `bigtable-multiget`, shards; each has 3 replicas). */
  hosts?: number;
  ratePerSecond?: number;
  shape?: Shape;
  correlation?: Correlation;
  /** The default request count carried in the spec. */
  requests?: number;
}

export class TracegenError extends Error {
  override name = 'TracegenError';
}
