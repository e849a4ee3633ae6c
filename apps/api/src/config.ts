import { checkIdent } from './store/schema/ddl';
import { accessSettings } from './foundation';
import { ANALYSIS_ENV, analysisLimitsFromEnv } from './store/engine/budget';

/**
 * Every setting Tailscope reads, by flag and by environment variable (flags win). The README's
 * settings table is generated from the same names; keep the two in step.
 */
export interface Settings {
  dataDir: string;
  host: string;
  port: number;
  otlpHttpPort: number;
  otlpGrpcPort: number;
  otlpMaxBytes: number;
  /** Bytes of OTLP bodies being read or decoded at once, over all requests (HTTP and gRPC). */
  otlpMaxInflightBytes: number;
  /** A request body that sends nothing for this long is dropped (408). */
  otlpBodyIdleTimeoutMs: number;
  /** Per span, resource, event and link; more are dropped (docs/ingest.md, "Limits"). */
  otlpMaxAttributes: number;
  otlpMaxEvents: number;
  otlpMaxLinks: number;
  /** Encoded bytes of one attribute value; longer strings are truncated. */
  otlpMaxValueBytes: number;
  clickhouseUrl: string | undefined;
  clickhouseUser: string | undefined;
  clickhousePassword: string | undefined;
  clickhouseDatabase: string | undefined;
  clickhouseCluster: string | undefined;
  /** Bounded write queue, in spans; a full queue answers 429 / RESOURCE_EXHAUSTED. */
  queueMaxSpans: number;
  /**
   * Analyses running at once: worker threads and ClickHouse `max_threads` for their queries
   * (default: every core but one, left to ingest). docs/operations.md, "Analysis admission".
   */
  analysisThreads: number;
  /** Analyses waiting for a slot at most; the next is answered 503 with Retry-After. */
  analysisQueue: number;
  /** Send Tailscope's own traces (API and ingest) to its own OTLP endpoint. */
  selfTrace: boolean;
  logLevel: string;
  /**
   * Read an existing spans table only (docs/storage.md, "Read-only"): no migrations, no
   * writes, no ingest listeners, no write-ahead log.
   */
  readOnly: boolean;
  /** The spans table (the clickhouseexporter's `traces_table_name`); default `otel_traces`. */
  tracesTable: string;
  /**
   * Days to keep, as a TTL on each table (docs/storage.md, "Retention"); unset: the tables' TTL
   * is left as it is, 0: removed. The per-table settings override `retentionDays`.
   */
  retentionDays: number | undefined;
  retentionDaysTraces: number | undefined;
  retentionDaysTypedAttributes: number | undefined;
  retentionDaysFanouts: number | undefined;
  /** The five otel_metrics_* tables (TAILSCOPE_RETENTION_DAYS_METRICS). */
  retentionDaysMetrics: number | undefined;
  /** Bearer tokens OTLP clients must send (empty: ingest is open). docs/operations.md. */
  ingestTokens: readonly string[];
  /** Bearer tokens (or the dashboard's session cookie) for /api and /metrics (empty: open). */
  apiTokens: readonly string[];
  /** Allow binding a non-loopback address without tokens. */
  insecure: boolean;
  /** Host header names accepted besides loopback names and IP literals (DNS rebinding check). */
  allowedHosts: readonly string[];
  /** Origins allowed to call the REST API from a browser (empty: CORS off). */
  corsOrigins: readonly string[];
  /** PEM certificate and key files: every listener speaks TLS when both are set. */
  tlsCert: string | undefined;
  tlsKey: string | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

function int(
  name: string,
  raw: string | undefined,
  fallback: number,
  min = 0,
  max = 2 ** 31,
): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(
      `${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** A table name that passes the DDL identifier check (store/ddl.ts). */
function identifier(name: string, raw: string): string {
  try {
    return checkIdent(raw);
  } catch {
    throw new Error(`${name} must be a plain ClickHouse identifier, got ${JSON.stringify(raw)}`);
  }
}

function bool(raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(raw.toLowerCase());
}

export const MiB = 1024 * 1024;

/** An optional day count: undefined when unset. */
function days(name: string, raw: string | undefined): number | undefined {
  return raw === undefined || raw === '' ? undefined : int(name, raw, 0, 0, 100_000);
}

/** TAILSCOPE_ANALYSIS_THREADS and _QUEUE (store/budget.ts checks them; the error names one). */
function analysisSettings(
  pick: (key: keyof Settings, envName: string) => string | undefined,
): Pick<Settings, 'analysisThreads' | 'analysisQueue'> {
  const limits = analysisLimitsFromEnv({
    [ANALYSIS_ENV.threads]: pick('analysisThreads', ANALYSIS_ENV.threads),
    [ANALYSIS_ENV.maxQueue]: pick('analysisQueue', ANALYSIS_ENV.maxQueue),
  });
  return { analysisThreads: limits.threads, analysisQueue: limits.maxQueue };
}

/** Settings from the environment, with `overrides` (from flags) taking precedence. */
export function loadSettings(
  env: Env,
  overrides: Partial<Record<keyof Settings, string | undefined>> = {},
): Settings {
  const pick = (key: keyof Settings, envName: string): string | undefined =>
    overrides[key] ?? env[envName];
  return {
    dataDir: pick('dataDir', 'TAILSCOPE_DATA_DIR') ?? './data',
    host: pick('host', 'TAILSCOPE_HOST') ?? '127.0.0.1',
    port: int('TAILSCOPE_PORT', pick('port', 'TAILSCOPE_PORT'), 8080, 0, 65535),
    otlpHttpPort: int(
      'TAILSCOPE_OTLP_HTTP_PORT',
      pick('otlpHttpPort', 'TAILSCOPE_OTLP_HTTP_PORT'),
      4318,
      0,
      65535,
    ),
    otlpGrpcPort: int(
      'TAILSCOPE_OTLP_GRPC_PORT',
      pick('otlpGrpcPort', 'TAILSCOPE_OTLP_GRPC_PORT'),
      4317,
      0,
      65535,
    ),
    otlpMaxBytes: int(
      'TAILSCOPE_OTLP_MAX_BYTES',
      pick('otlpMaxBytes', 'TAILSCOPE_OTLP_MAX_BYTES'),
      64 * MiB,
      1024,
    ),
    otlpMaxInflightBytes: int(
      'TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES',
      pick('otlpMaxInflightBytes', 'TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES'),
      256 * MiB,
      1024,
      2 ** 50,
    ),
    otlpBodyIdleTimeoutMs: int(
      'TAILSCOPE_OTLP_BODY_IDLE_TIMEOUT_MS',
      pick('otlpBodyIdleTimeoutMs', 'TAILSCOPE_OTLP_BODY_IDLE_TIMEOUT_MS'),
      10_000,
      100,
      600_000,
    ),
    otlpMaxAttributes: int(
      'TAILSCOPE_OTLP_MAX_ATTRIBUTES',
      pick('otlpMaxAttributes', 'TAILSCOPE_OTLP_MAX_ATTRIBUTES'),
      128,
      1,
      1_000_000,
    ),
    otlpMaxEvents: int(
      'TAILSCOPE_OTLP_MAX_EVENTS',
      pick('otlpMaxEvents', 'TAILSCOPE_OTLP_MAX_EVENTS'),
      128,
      0,
      1_000_000,
    ),
    otlpMaxLinks: int(
      'TAILSCOPE_OTLP_MAX_LINKS',
      pick('otlpMaxLinks', 'TAILSCOPE_OTLP_MAX_LINKS'),
      128,
      0,
      1_000_000,
    ),
    otlpMaxValueBytes: int(
      'TAILSCOPE_OTLP_MAX_VALUE_BYTES',
      pick('otlpMaxValueBytes', 'TAILSCOPE_OTLP_MAX_VALUE_BYTES'),
      64 * 1024,
      16,
    ),
    clickhouseUrl: pick('clickhouseUrl', 'CLICKHOUSE_URL') || undefined,
    clickhouseUser: pick('clickhouseUser', 'CLICKHOUSE_USER'),
    clickhousePassword: pick('clickhousePassword', 'CLICKHOUSE_PASSWORD'),
    clickhouseDatabase: pick('clickhouseDatabase', 'CLICKHOUSE_DATABASE'),
    clickhouseCluster: pick('clickhouseCluster', 'CLICKHOUSE_CLUSTER'),
    queueMaxSpans: int(
      'TAILSCOPE_QUEUE_MAX_SPANS',
      pick('queueMaxSpans', 'TAILSCOPE_QUEUE_MAX_SPANS'),
      500_000,
      1000,
    ),
    ...analysisSettings(pick),
    selfTrace: bool(pick('selfTrace', 'TAILSCOPE_SELF_TRACE'), false),
    logLevel: pick('logLevel', 'TAILSCOPE_LOG_LEVEL') ?? 'info',
    readOnly: bool(pick('readOnly', 'TAILSCOPE_READ_ONLY'), false),
    tracesTable: identifier(
      'TAILSCOPE_TRACES_TABLE',
      pick('tracesTable', 'TAILSCOPE_TRACES_TABLE') || 'otel_traces',
    ),
    retentionDays: days(
      'TAILSCOPE_RETENTION_DAYS',
      pick('retentionDays', 'TAILSCOPE_RETENTION_DAYS'),
    ),
    retentionDaysTraces: days(
      'TAILSCOPE_RETENTION_DAYS_TRACES',
      pick('retentionDaysTraces', 'TAILSCOPE_RETENTION_DAYS_TRACES'),
    ),
    retentionDaysTypedAttributes: days(
      'TAILSCOPE_RETENTION_DAYS_TYPED_ATTRIBUTES',
      pick('retentionDaysTypedAttributes', 'TAILSCOPE_RETENTION_DAYS_TYPED_ATTRIBUTES'),
    ),
    retentionDaysFanouts: days(
      'TAILSCOPE_RETENTION_DAYS_FANOUTS',
      pick('retentionDaysFanouts', 'TAILSCOPE_RETENTION_DAYS_FANOUTS'),
    ),
    retentionDaysMetrics: days(
      'TAILSCOPE_RETENTION_DAYS_METRICS',
      pick('retentionDaysMetrics', 'TAILSCOPE_RETENTION_DAYS_METRICS'),
    ),
    ...accessSettings(pick),
  };
}
