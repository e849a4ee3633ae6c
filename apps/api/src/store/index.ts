export { openStore, type Store, type StoreOptions } from './engine/client';
export { sql, param, ident, raw, join, type Sql } from './sql/template';
export {
  migrate,
  schemaVersion,
  SCHEMA_VERSION,
  TRACES_TABLE,
  MIGRATIONS,
} from './schema/migrations';
export {
  selectTrace,
  countTraceSpans,
  selectStats,
  selectStoredBounds,
  type SpanRow,
  type StoreStats,
  type StoredBounds,
  type TraceReadLimits,
} from './traces/spans';
export { selectEngineMemoryBytes } from './engine/metrics';
export { selectSamplingInfo, type SamplingInfo } from './traces/sampling';
export { fanoutsStoredThroughNs } from './fanouts/open';
export { callBucketsStoredThroughNs } from './call-buckets/open';
