import type { Store } from '../engine/client';
import { createTable, engine, type DdlContext } from '../schema/ddl';
import { sql, raw } from '../sql/template';

/**
 * `tailscope_typed_attributes`: our companion to `otel_traces`. The exporter's table keeps every
 * attribute value as a string; for the values that are not strings (ints, doubles, booleans,
 * arrays, kvlists, empty values) ingest writes their JSON here, one row per span that has any,
 * keyed `r:` (resource), `s:` (span), `eN:` (event N) or `lN:` (link N) + attribute key.
 * Spans that only carry strings, and spans written by a Collector, have no row: readers fall
 * back to the string. docs/ingest.md explains the choice.
 */
export const TYPED_ATTRIBUTES_TABLE = 'tailscope_typed_attributes';

/**
 * The table's DDL (a migration in schema.ts). Settings for deduplication and fsync are added by
 * prepareForIngest, as for otel_traces.
 */
export function typedAttributesDdl(ctx: DdlContext): string {
  return `${createTable(ctx, TYPED_ATTRIBUTES_TABLE)} (
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1))
  ) ENGINE = ${engine(ctx, 'MergeTree')}
  PARTITION BY toDate(Timestamp)
  ORDER BY (TraceId, SpanId)
  SETTINGS index_granularity = 8192`;
}

export interface TypedAttributesRow {
  SpanId: string;
  StartNs: string;
  Attributes: Record<string, string>;
}

/**
 * The typed values of one trace's spans, whose start times lie in [minStartNs, maxStartNs]
 * (which prunes partitions). A store without the table (a Collector's, read-only) has none:
 * readers fall back to the strings.
 */
export async function selectTypedAttributes(
  store: Store,
  traceId: string,
  range: { minStartNs: string; maxStartNs: string },
): Promise<TypedAttributesRow[]> {
  if (!store.accelerators.typedAttributes) return [];
  return store.query<TypedAttributesRow>(sql`
    SELECT SpanId, toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, Attributes
    FROM ${raw(TYPED_ATTRIBUTES_TABLE)}
    WHERE TraceId = ${traceId}
      AND Timestamp >= fromUnixTimestamp64Nano(toInt64(${range.minStartNs}))
      AND Timestamp <= fromUnixTimestamp64Nano(toInt64(${range.maxStartNs}))`);
}
