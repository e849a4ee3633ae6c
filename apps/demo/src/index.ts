// @tailscope/demo: a real fan-out service cluster (root + leaf processes answering as virtual
// hosts, CPU hogs, GC pressure, compaction), instrumented with OpenTelemetry JS. The supervisor
// API below runs in the caller's process and imports no OpenTelemetry; children do.
export {
  startCluster,
  DEFAULT_HEDGE,
  DEFAULT_PROBATION,
  type Cluster,
  type ClusterOptions,
  type SlowHostOption,
} from './cluster';
export { LoadGenerator, type LoadSnapshot } from './load';
export { planCluster, type ClusterPlan } from './topology';
export type {
  HedgeCancel,
  HedgeOptions,
  LeafEndpoint,
  Policy,
  ProbationOptions,
  RootStats,
} from './messages';
