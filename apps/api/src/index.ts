// @tailscope/api: the Tailscope server as a library. apps/cli composes it with the demo cluster
// and the trace generator; bench/ measures it through this entry. Nothing imports its files.

// The server: settings, the Fastify app, and every listener started together.
export { loadSettings, MiB, type Env, type Settings } from './config';
export { buildApi, buildStoreApi, type Api } from './server/app';
export { serve, type Running, type ServeOptions } from './server/serve';
export { serveReadOnly, type ReadOnlyRunning } from './server/serve-read-only';
// How the server yields to the machine's other work: apps/cli's demo starts it in a session of
// its own so that the autogroup it lowers is the server's alone.
export { engineNiceFromEnv } from './store/engine/nice';
export { sessionOfStat } from './store/engine/session-nice';

// The store: one ClickHouse client, bound SQL, migrations and the queries others run directly.
export * from './store';
export { insertNative, prepareForIngest, type NativeInsert } from './store/writes/insert';
export { TYPED_ATTRIBUTES_TABLE } from './store/traces/typed-attributes';
export { loadLeafCalls, materializeFanouts, type LoadedLeafCalls } from './store/fanouts';
export { materializeCallBuckets } from './store/call-buckets/cache';
export { materializeOpenBuckets } from './store/call-buckets/open';
export { materializeOpenFanouts } from './store/fanouts/open';
export { startTraceSpansBackfill } from './store/traces/trace-spans-backfill';
export { selectHostEvidence, type HostEvidence } from './store/metrics/evidence';

// Ingest: OTLP protobuf decoding and the columns a decoded request becomes.
export { decodeTraceRequest, type DecodedRequest } from './ingest/decode-protobuf';
export { jsonToProtobuf } from './ingest/decode-json';
export { ProtoReader } from './ingest/proto-reader';
export { TRACE_COLUMNS, TYPED_COLUMNS } from './ingest/span-columns';

// The whole-request what-if answer split over worker threads (issue #14's performance part).
export { RequestReplayThreads, shareTrees } from './whatif-worker/request-threads';

// Reports for capacity reviews.
export {
  formatFromName,
  renderReport,
  runReport,
  type ReportFormat,
  type ReportRun,
} from './report/run';
export { parseTime } from './report/time';
export * from './report';

// Seeded OTLP requests as the OpenTelemetry JS SDK exports them, for tests and benchmarks.
export * as otlpFixtures from './testing/otlp-fixtures';
