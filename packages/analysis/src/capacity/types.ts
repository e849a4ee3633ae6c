/** The capacity model's fitted state (fit.ts) and its scenarios (predict.ts). */

import type { RequestTrees } from '../whatif';
import type { CallIndex } from './calls';
import type { WaitCurve } from './curve';
import type { WaitHistogram } from './histogram';
import type { Chains } from './queue';

/** A window's sums before its simulation. */
export interface WindowSums {
  index: number;
  startMs: number;
  calls: number;
  sumDuration: number;
  sumWait: number;
  sumHold: number;
  sumWork: number;
  /** The load the model uses (shrunk, shrinkLoads) and the one observed, calls per ms. */
  rate: number;
  rawRate: number;
}

/** One window of one instance, fitted. */
export interface WindowFit extends WindowSums {
  /** The simulation's seed and arrivals (replayed at other loads with the same draws). */
  seed: number;
  nSim: number;
  /** Simulated waits at the window's own load (the model's 1x), ms. */
  waits1: WaitHistogram;
  /** Load x mean hold / servers at the recorded load. */
  utilisation: number;
}

/** One instance (service, host): its servers and reconstructed service times. */
export interface InstanceFit {
  service: number;
  host: string;
  /** Servers (k of M/G/k) and where k came from. */
  k: number;
  kSource: 'observed' | 'pool-size';
  /** Reconstructed holds (service times), ms, in arrival order. */
  holds: Float64Array;
  /**
   * Visits (fit.ts visitsOf): a request's calls to the instance that follow one another (each
   * sent after the previous answered) are one visit of the queue, served as one job; calls
   * that overlap are visits of their own. Their service times (the calls' holds summed), and
   * visits per call (the simulated arrival rate is the call rate times this).
   */
  visitHolds: Float64Array;
  visitShare: number;
  /** The visits' calls, when some visit is a chain of several (simulated call by call). */
  chains?: Chains;
  /**
   * Inter-arrival gaps of the visits in units of their window's mean gap (fit.ts arrivalGaps):
   * the arrival pattern the queue is simulated with (Poisson when empty).
   */
  gaps: Float64Array;
  windows: WindowFit[];
}

export interface ServiceFit {
  service: string;
  instances: InstanceFit[];
  windowMs: number;
  /** The model used: M/G/k per window, or the empirical wait-against-load curve. */
  model: 'mgk' | 'curve';
  /** Call-weighted mean relative error of the windows' mean latency, of each model and the chosen. */
  mgkError: number;
  curveError?: number;
  fitError: number;
  curve?: WaitCurve;
  /** The highest observed per-instance window load, calls per ms. */
  maxRatePerMs: number;
}

/** Per instance, its calls in arrival order (CapacityFit.arrival). */
export interface ArrivalColumns {
  /** The call's reconstructed queue wait, ms. */
  waitMs: Float64Array[];
  /** The call's window (into the instance's windows). */
  windowOf: Int32Array[];
  /** 1 when the call opens its visit (the one whose wait the queue re-draws). */
  visitFirst: Uint8Array[];
  /** On a visit's first call, the visit's recorded wait (its calls' waits summed), ms. */
  visitWaitMs: Float64Array[];
}

/** The same columns per node (-1 / 0 for roots): a preview's sample takes its nodes' (sample.ts). */
export interface NodeColumns {
  waitMs: Float64Array;
  windowOf: Int32Array;
  visitFirst: Uint8Array;
  visitWaitMs: Float64Array;
}

export interface CapacityFit {
  trees: RequestTrees;
  index: CallIndex;
  instances: InstanceFit[];
  services: ServiceFit[];
  /** Simulated waits per (instance, seed, factor), reused by later predictions (bounded). */
  sims: Map<string, { from: WaitHistogram; to: WaitHistogram }>;
  /**
   * Per instance, its calls in arrival order (index.instances[j].nodes): each call's recorded
   * wait, window, whether it opens its visit and the visit's wait. Kept per instance only (a
   * prediction reads each instance's calls in that order; per-node copies cost a pass and
   * 21 bytes a call, and reading them per instance read every cache line once per instance).
   */
  arrival: ArrivalColumns;
  /** A preview's fit (sample.ts): a sample of the requests, shorter simulations. */
  preview?: { of: number };
  /** Per service index, its processes' CPU calibration from runtime metrics (cpu.ts). */
  cpu?: Map<number, CpuCalibration>;
  /** Per service index, its calls' recorded p99, ms (answer.ts: computed at the first answer). */
  recordedP99?: number[];
  /** Per node: the rank of its hold among its process's calls (cpu.ts), 0 when uncalibrated. */
  cpuRank?: Float64Array;
}

/** A load change: every request's traffic, or only one root operation's, times `factor`. */
export interface LoadChange {
  kind: 'load';
  factor: number;
  rootService?: string;
  rootOperation?: string;
}

/** A machine-count change of one service: a new instance count, or a change of it. */
export interface MachinesChange {
  kind: 'machines';
  service: string;
  count?: number;
  delta?: number;
}

export type CapacityChange = LoadChange | MachinesChange;

/** Bounds of the changes (the API's 400s name them). */
export const MAX_LOAD_FACTOR = 16;
export const MAX_MACHINES = 10_000;
export const MAX_CAPACITY_CHANGES = 8;

/** One instance's CPU over the range, as the metrics tables give it. */
export interface CpuReading {
  service: string;
  host: string;
  /** The process the instance runs in (`process.pid`), '' when not given (its own process). */
  process: string;
  /** Mean `process.cpu.utilization` summed over its modes: a share of `cpus` CPUs. */
  own: number;
  /** Mean idle share of the host's CPUs (`system.cpu.utilization`, mode idle), if exported. */
  idle?: number;
  /** CPUs the utilisation is a share of (distinct `cpu.logical_number`), if exported. */
  cpus?: number;
}

/** One process's calibration: which instances, its CPU figures. */
export interface CpuProcess {
  service: number;
  process: string;
  /** Instance indexes (into fit.instances) of its hosts. */
  instances: number[];
  cpus: number;
  /** Calls per ms over the service's recorded span, CPU ms per call, and utilisation. */
  ratePerMs: number;
  cpuMsPerCall: number;
  utilisation: number;
  /** Service times of its CPU queue (exponential of mean CPU per call), ms. */
  serviceMs: Float64Array;

  seed: number;
}

/** Per service, what the calibration says (absent for a service without metrics). */
export interface CpuCalibration {
  processes: CpuProcess[];
}
