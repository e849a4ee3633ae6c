// @tailscope/collectors: what runs beside users' services. The host sharing probe, the
// background-activity reporter, and a small OTLP tracer for either. The OpenTelemetry Collector
// configurations live in otelcol/ (see README.md).
export {
  classifySharing,
  probeSharing,
  probeSharingInWorker,
  parseSharingMode,
  sharingResourceAttributes,
  DEFAULT_SHARING_THRESHOLDS,
  type ProbeOptions,
  type SharingMode,
  type SharingThresholds,
  type SharingVerdict,
} from './sharing-probe';
export {
  BACKGROUND_ACTIVITY,
  recordActivity,
  reportGcPauses,
  runReported,
  type GcReporter,
  type GcReporterOptions,
  type WrappedCommand,
  type WrappedResult,
} from './background-activity';
export {
  hostTelemetry,
  tracesEndpoint,
  type HostTelemetry,
  type HostTelemetryOptions,
} from './telemetry';
