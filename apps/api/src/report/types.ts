/**
 * The report document and the API answers it is made of: the REST contract's schemas and
 * types (@tailscope/contracts), so a report validates what it reads with the schemas the
 * routes answer with.
 */
export {
  Fanout as FanoutSummary,
  REPORT_SCHEMA_VERSION,
  StatsResponse as StoreStats,
  StragglersResponse as Stragglers,
  WhatIfResponse as WhatIfResult,
  type CapacityRun,
  type OperationReport,
  type PolicyRun,
  type Report,
  type StragglerRow,
} from '@tailscope/contracts';
