import { requestEdgeCtes, type CallFields } from '../edges/sql';
import { type Cte } from '../sql/ctes';
import { raw } from '../sql/template';

/**
 * Live fan-out detection over `otel_traces` as pure SQL builders (DESIGN.md "Definitions":
 * Fan-out): the calls of calls-sql.ts grouped per request and callee operation with their
 * structure (edges-sql.ts `request_edges`), keeping those whose structure is `parallel` or
 * `pool` (at least 2 calls in flight at once). The queries of fanouts-queries.ts read the last
 * CTE. `@tailscope/analysis` `detectFanouts` is the TypeScript reference these queries are
 * tested against; conventions come from the same constants.
 */

export { withCtes, ns, inWindow, hostOf, JOIN_SETTINGS, type Cte } from '../sql/ctes';

/** Which spans to read: calls whose fan-out starts in [fromNs, toNs). */
export interface FanoutScope {
  fromNs: bigint;
  toNs: bigint;
  leafService?: string | undefined;
  leafOperation?: string | undefined;
  parentService?: string | undefined;
}

/**
 * What each detected call carries in `keptCalls`: `'timing'` is the tuple (startNs, durationNs);
 * `{ attributeKeys }` is (startNs, durationNs, host, mode, attr0, ..., attrK) with one value per
 * asked attribute key (answer's span attribute, else its resource attribute, else the call
 * span's, else ABSENT_ATTRIBUTE).
 */
export type CallColumns = CallFields;

/**
 * The CTEs that detect fan-outs live, the last one `live_fanouts`: fanoutKey (the request:
 * cityHash64 of trace and caller span id), leafService, leafOperation, traceId, parentSpanId
 * (the caller span id), parentService, parentOperation (the caller's names; '' when the caller
 * span is not in the window), keptCalls (tuples as `columns` says, sorted), width (calls),
 * fanoutStartNs (first call's start), concurrency, structure ('parallel' | 'pool').
 */
export function liveFanoutCtes(s: FanoutScope, columns: CallColumns): Cte[] {
  // The parent service filters operations downstream (fanoutOperationsSql), not the leaf calls.
  return [
    ...requestEdgeCtes({ ...s, parentService: undefined }, columns),
    {
      name: 'live_fanouts',
      body: raw(`
  SELECT fanoutKey, leafService, leafOperation, traceId, parentSpanId, parentService, parentOperation,
    keptCalls, width, fanoutStartNs, concurrency, structure
  FROM request_edges
  WHERE structure IN ('parallel', 'pool')`),
    },
  ];
}

/**
 * `live_fanouts` as `live_named_fanouts` (the caller's names come with the calls now; the name
 * is kept for the queries built on it).
 */
export function liveNamedFanoutCtes(s: FanoutScope, columns: CallColumns): Cte[] {
  return [
    ...liveFanoutCtes(s, columns),
    { name: 'live_named_fanouts', body: raw('\n  SELECT * FROM live_fanouts') },
  ];
}
