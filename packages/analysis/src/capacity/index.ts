/**
 * Capacity (issue 29): how each service's latency grows with its load, fitted from the
 * recording (fit.ts), and the load and machine-count what-ifs replayed through whole requests
 * (predict.ts, retime.ts, answer.ts). docs/capacity.md says how and when not to trust it.
 */
export {
  capacityTrees,
  capacityWhatIf,
  prepareCapacity,
  simulateCapacityWhatIf,
  type CapacityOptions,
  type CapacityWhatIf,
  type PreparedCapacity,
} from './answer';
export { fitCapacity, type FitOptions } from './fit';
export { calibrateCpu, type CpuCalibration, type CpuProcess, type CpuReading } from './cpu';
export { PREVIEW_REQUESTS, sampleCapacity } from './sample';
export { MAX_MACHINE_STEPS, machinesForSlo, type MachinesForSlo } from './machines';
export { CapacityChangeError, checkChanges, type Scenario, type ServiceOutlook } from './predict';
export {
  MAX_CAPACITY_CHANGES,
  MAX_LOAD_FACTOR,
  MAX_MACHINES,
  type CapacityChange,
  type CapacityFit,
  type LoadChange,
  type MachinesChange,
} from './types';
// Recordings drawn from a known queue (the ground-truth test and the benchmark).
export { exponential, logNormal, queueTrees, runQueue, type QueueModel } from './synthetic';
