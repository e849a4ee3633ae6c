// @tailscope/demo: a real fan-out service cluster (root + leaf processes answering as virtual
// hosts, CPU hogs, GC pressure, compaction), instrumented with OpenTelemetry JS. The supervisor
// API below runs in the caller's process and traces nothing itself; children do.
export {
  startCluster,
  DEFAULT_HEDGE,
  DEFAULT_PROBATION,
  type Cluster,
  type ClusterOptions,
  type SlowHostOption,
} from './cluster';
export { LoadGenerator, type LoadSnapshot } from './load';
export { measureProbeBaseline } from './probe-coordinator';
export type { ProbeBaseline } from './probe-judge';
export { planCluster, type ClusterPlan } from './topology';
export type {
  HedgeCancel,
  HedgeOptions,
  LeafEndpoint,
  Policy,
  ProbationOptions,
  RootStats,
} from './messages';
