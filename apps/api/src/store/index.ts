export { openStore, type Store, type StoreOptions } from './client';
export { sql, param, ident, raw, join, type Sql } from './sql';
export { migrate, schemaVersion, SCHEMA_VERSION, TRACES_TABLE, MIGRATIONS } from './schema';
export {
  selectTrace,
  countTraceSpans,
  selectStats,
  selectStoredBounds,
  type SpanRow,
  type StoreStats,
  type StoredBounds,
  type TraceReadLimits,
} from './traces';
export { selectEngineMemoryBytes } from './engine-metrics';
export { selectSamplingInfo, type SamplingInfo } from './sampling';
