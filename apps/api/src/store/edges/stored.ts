import type { Coverage } from '../fanouts/stored';
import { CHUNK_NS, DUPLICATES_TABLE, EDGES_TABLE } from '../fanouts/tables';
import { TRACES } from '../traces/tables';
import { EDGE_COLUMNS, edgeColumns, liveEdgeCtes, type EdgeScope } from './sql';
import { JOIN_SETTINGS, ns, withCtes, type Cte } from '../sql/ctes';
import { join, param, raw, sql, type Sql } from '../sql/template';

/**
 * SQL over `tailscope_edges` (pure builders): storing the request edges of closed chunks (one
 * row per request and callee operation, built by the fan-out materializer with the same chunks
 * and versions as `tailscope_fanouts`), and `edges_in_scope`: stored rows of the covered chunks,
 * then live detection from where they stop, as one UNION ALL.
 */

/**
 * Counts the extra span copies of each chunk of [from, to) (whole chunks) and stores them under
 * `version`. A span's copies share its Timestamp, so they fall in one chunk and the counts add.
 */
export function storeDuplicatesSql(range: { fromNs: bigint; toNs: bigint }, version: bigint): Sql {
  return sql`
INSERT INTO ${raw(DUPLICATES_TABLE)} (chunk, version, duplicates)
SELECT intDiv(toUnixTimestamp64Nano(Timestamp), ${ns(CHUNK_NS)}) AS chunk, ${param(version.toString(), 'UInt64')} AS version,
  toUInt64(count() - uniqExact(cityHash64(TraceId, SpanId))) AS duplicates
FROM ${TRACES}
WHERE Timestamp >= fromUnixTimestamp64Nano(${ns(range.fromNs)}) AND Timestamp < fromUnixTimestamp64Nano(${ns(range.toNs)})
GROUP BY chunk`;
}

/** Stored duplicates of the given (chunk, version) pairs: how many pairs were found, their sum. */
export function storedDuplicatesSql(chunks: readonly [string, string][]): Sql {
  return sql`
SELECT toString(count()) AS found, toString(sum(duplicates)) AS duplicates
FROM ${raw(DUPLICATES_TABLE)} FINAL
WHERE has(arrayZip(arrayMap(x -> toInt64(x), ${chunks.map((c) => c[0])}), arrayMap(x -> toUInt64(x), ${chunks.map((c) => c[1])})), (chunk, version))`;
}

/** Detects the request edges of [from, to) live and stores them under `version`. */
export function storeEdgesSql(scope: EdgeScope, version: bigint): Sql {
  return sql`
INSERT INTO ${raw(EDGES_TABLE)} (chunk, version, s0, ${raw(EDGE_COLUMNS)})
${withCtes(
  liveEdgeCtes(scope),
  sql`SELECT intDiv(fanoutStartNs, ${ns(CHUNK_NS)}) AS chunk, ${param(version.toString(), 'UInt64')} AS version,
  fanoutStartNs AS s0, ${raw(EDGE_COLUMNS)}
FROM live_edges
SETTINGS ${JOIN_SETTINGS}`,
)}`;
}

function storedEdges(scope: EdgeScope, cov: Coverage): Sql {
  const filters = [
    sql`s0 >= ${ns(scope.fromNs)} AND s0 < ${ns(cov.splitNs)}`,
    sql`has(arrayZip(arrayMap(x -> toInt64(x), ${cov.chunks.map((c) => c[0])}), arrayMap(x -> toUInt64(x), ${cov.chunks.map((c) => c[1])})), (chunk, version))`,
    ...(scope.parentService !== undefined ? [sql`parentService = ${scope.parentService}`] : []),
    ...(scope.leafService !== undefined ? [sql`leafService = ${scope.leafService}`] : []),
  ];
  return sql`
  SELECT toString(parentService) AS parentService, toString(parentOperation) AS parentOperation,
    toString(leafService) AS leafService, toString(leafOperation) AS leafOperation,
    width, concurrency, toString(structure) AS structure, durationsNs, waitsNs, spanNs,
    callerDurationNs, wrappedCalls,
    arrayMap(x -> (toString(x.1), toString(x.2), x.3), skewed) AS skewed
  FROM ${raw(EDGES_TABLE)}
  WHERE ${join(filters, '\n    AND ')}`;
}

/** `edges_in_scope` (EDGE_COLUMNS): stored before cov.splitNs, live from it on. */
export function edgesInScope(scope: EdgeScope, cov: Coverage): Cte[] {
  // Stored rows carry no weight: a weighted scope is detected live (the caller passes no chunks).
  if (scope.weighted === true && cov.chunks.length > 0)
    throw new Error('edgesInScope: a weighted scope reads no stored chunks');
  const cols = raw(edgeColumns(scope.weighted));
  const stored: Cte = { name: 'stored_edges', body: storedEdges(scope, cov) };
  const fromStored = sql`\n  SELECT ${cols} FROM stored_edges`;
  const inScope = (body: Sql): Cte => ({ name: 'edges_in_scope', body });
  if (cov.chunks.length > 0 && cov.splitNs >= scope.toNs) return [stored, inScope(fromStored)];
  const live = liveEdgeCtes({ ...scope, fromNs: cov.splitNs });
  const fromLive = sql`\n  SELECT ${cols} FROM live_edges`;
  if (cov.chunks.length === 0) return [...live, inScope(fromLive)];
  return [stored, ...live, inScope(sql`${fromStored}\n  UNION ALL${fromLive}`)];
}
