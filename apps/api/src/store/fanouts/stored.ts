import { CHUNK_NS, FANOUTS_TABLE } from './tables';
import { JOIN_SETTINGS, liveNamedFanoutCtes, ns, withCtes, type FanoutScope } from './sql';
import { join, param, raw, sql, type Sql } from '../sql/template';

/**
 * SQL over `tailscope_fanouts` (pure builders): writing detected fan-outs of closed chunks, and
 * reading them back in the shape of each use. fanouts-cache.ts decides which chunks to use.
 */

/** Which stored chunks serve a query: the covered prefix of its range. */
export interface Coverage {
  /** Fan-outs starting before this (ns) come from the table; from it on, live. */
  splitNs: bigint;
  /** (chunk, version) of the stored chunks used (and of the open chunk's buckets used). */
  chunks: [string, string][];
  /**
   * Where the stored buckets of the open chunk (open.ts) take over from whole chunks, and the
   * extra span copies among the spans starting from there to splitNs (absent: the range starts
   * inside that first bucket, so its copies are counted live).
   */
  open?: { fromNs: bigint; duplicates?: bigint };
}

/** Nothing stored used: the whole scope is detected live. */
export const uncovered = (scope: Pick<FanoutScope, 'fromNs'>): Coverage => ({
  splitNs: scope.fromNs,
  chunks: [],
});

/**
 * Detects the fan-outs of [from, to) live, with their parents' names, host and mode, and stores
 * them under `version`, one row per fan-out (call starts as offsets from its first start).
 */
export function storeFanoutsSql(scope: FanoutScope, version: bigint): Sql {
  const ctes = liveNamedFanoutCtes(scope, { attributeKeys: [] });
  return sql`
INSERT INTO ${raw(FANOUTS_TABLE)} (chunk, version, s0, leafService, leafOperation, parentService, parentOperation,
  fk, traceId, parentSpanId, n, startOffsetNs, durationNs, hosts, modes, concurrency, structure)
${withCtes(
  ctes,
  sql`SELECT
  intDiv(fanoutStartNs, ${ns(CHUNK_NS)}) AS chunk,
  ${param(version.toString(), 'UInt64')} AS version,
  fanoutStartNs AS s0,
  leafService, leafOperation, parentService, parentOperation,
  fanoutKey AS fk, traceId, parentSpanId, toUInt32(width) AS n,
  arrayMap(call -> call.1 - fanoutStartNs, keptCalls) AS startOffsetNs,
  arrayMap(call -> call.2, keptCalls) AS durationNs,
  arrayMap(call -> call.3, keptCalls) AS hosts,
  arrayMap(call -> call.4, keptCalls) AS modes,
  concurrency, structure
FROM live_named_fanouts
SETTINGS ${JOIN_SETTINGS}`,
)}`;
}

/** Stored rows of the covered chunks' current versions, in [from, split), of the leaf. */
function storedRows(scope: FanoutScope, cov: Coverage, columns: Sql): Sql {
  const chunkIds = cov.chunks.map((c) => c[0]);
  const versions = cov.chunks.map((c) => c[1]);
  const filters = [
    sql`s0 >= ${ns(scope.fromNs)} AND s0 < ${ns(cov.splitNs)}`,
    sql`has(arrayZip(arrayMap(x -> toInt64(x), ${chunkIds}), arrayMap(x -> toUInt64(x), ${versions})), (chunk, version))`,
    ...(scope.leafService !== undefined ? [sql`leafService = ${scope.leafService}`] : []),
    ...(scope.leafOperation !== undefined ? [sql`leafOperation = ${scope.leafOperation}`] : []),
  ];
  return sql`
  SELECT
    ${columns}
  FROM ${raw(FANOUTS_TABLE)}
  WHERE ${join(filters, '\n    AND ')}`;
}

/** The call tuples (startNs, durationNs[, host, mode]) as the live path builds them. */
const storedCalls = (placement: boolean): Sql =>
  placement
    ? raw(
        'arrayZip(arrayMap(offset -> offset + s0, startOffsetNs), durationNs, arrayMap(h -> toString(h), hosts), arrayMap(m -> toString(m), modes))',
      )
    : raw('arrayZip(arrayMap(offset -> offset + s0, startOffsetNs), durationNs)');

/**
 * For the operations table: leafService, leafOperation, parentService, parentOperation,
 * traceId, parentSpanId, width, fanoutStartNs, keptCalls (startNs, durationNs), concurrency,
 * structure.
 */
export function storedNamedFanouts(scope: FanoutScope, cov: Coverage): Sql {
  return storedRows(
    scope,
    cov,
    sql`toString(leafService) AS leafService, toString(leafOperation) AS leafOperation,
    toString(parentService) AS parentService, toString(parentOperation) AS parentOperation,
    traceId, parentSpanId, n AS width, s0 AS fanoutStartNs, ${storedCalls(false)} AS keptCalls,
    concurrency, toString(structure) AS structure`,
  );
}

/** For host windows: fanoutStartNs, keptCalls (startNs, durationNs, host, mode). */
export function storedPlacedFanouts(scope: FanoutScope, cov: Coverage, ids = false): Sql {
  const id = ids ? raw('traceId, parentSpanId, ') : raw('');
  return storedRows(scope, cov, sql`${id}s0 AS fanoutStartNs, ${storedCalls(true)} AS keptCalls`);
}

/**
 * For leaf calls, columns as arrays (no tuples): fanoutKey, traceId, parentSpanId, width,
 * fanoutStartNs, callStartNs (absolute), callDurationNs, callHosts, callModes.
 */
export function storedFanoutArrays(scope: FanoutScope, cov: Coverage): Sql {
  return storedRows(
    scope,
    cov,
    sql`fk AS fanoutKey, traceId, parentSpanId, n AS width, s0 AS fanoutStartNs,
    arrayMap(offset -> offset + s0, startOffsetNs) AS callStartNs, durationNs AS callDurationNs,
    hosts AS callHosts, modes AS callModes`,
  );
}
