import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';

/** GET /api/v1/stats, /healthz, /readyz. */

export const StatsResponse = Type.Object({
  spans: Type.Number(),
  traces: Type.Number(),
  services: Type.Number(),
  oldestUnixNano: Type.Union([Type.String(), Type.Null()]),
  newestUnixNano: Type.Union([Type.String(), Type.Null()]),
  ingestSpansPerSecond: Type.Number(),
  storeFiguresAgeMs: Type.Optional(
    Type.Number({
      minimum: 0,
      description:
        'How old spans, traces, services, oldest/newest and sampling are, ms: they are kept and refreshed in the background (after ingest commits, at most every 10 s; by a reader after 2 s) so this answers at once while analyses run',
    }),
  ),
  settledUnixNano: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'How far the stored fan-outs and episode series reach (ns): analyses of a range ending before it read stored rows only, and each newer second is detected live by every answer. Trails the newest span by 10-35 s under steady ingest; null when nothing is stored (a read-only store, or before the first materializer pass)',
    }),
  ),
  sampling: Type.Optional(SamplingInfo),
  warmedUnixMs: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description:
        "When the server last answered the dashboard's first questions over all data in the background (TAILSCOPE_WARM_S), epoch ms; null before its first pass. Absent when that is off",
    }),
  ),
  // Ingest's own state (docs/ingest.md): absent on a server without ingest.
  replayBacklogSpans: Type.Optional(
    Type.Number({ description: 'Spans in the write-ahead log still being replayed' }),
  ),
  walDamage: Type.Optional(
    Type.Object(
      { damagedRecords: Type.Number(), damagedBytes: Type.Number(), tornBytes: Type.Number() },
      { description: 'What log replay skipped: damaged records and a torn tail' },
    ),
  ),
  readOnly: Type.Optional(
    Type.Boolean({
      description:
        'TAILSCOPE_READ_ONLY: reading a table something else writes; no ingest, no writes',
    }),
  ),
  accelerators: Type.Optional(
    Type.Object(
      {
        traceIdTs: Type.Boolean(),
        traceSpans: Type.Optional(Type.Boolean()),
        fanouts: Type.Boolean(),
        typedAttributes: Type.Boolean(),
        callBuckets: Type.Optional(Type.Boolean()),
        openCallBuckets: Type.Optional(Type.Boolean()),
        openFanouts: Type.Optional(Type.Boolean()),
        metricWindows: Type.Optional(Type.Boolean()),
        spanCounts: Type.Optional(
          Type.Boolean({ description: 'The spans table projection tailscope_span_counts' }),
        ),
      },
      {
        description:
          'Which optional tables the store has (read-only stores may lack them; reads fall back)',
      },
    ),
  ),
  retentionDays: Type.Optional(
    Type.Object(
      {
        traces: Type.Union([Type.Number(), Type.Null()]),
        typedAttributes: Type.Union([Type.Number(), Type.Null()]),
        fanouts: Type.Union([Type.Number(), Type.Null()]),
      },
      {
        description:
          'TAILSCOPE_RETENTION_DAYS* per table (null: not set, the table keeps its own TTL; 0: none). oldestUnixNano is the oldest span kept.',
      },
    ),
  ),
  deadLetter: Type.Optional(
    Type.Object(
      {
        batches: Type.Number(),
        spans: Type.Number(),
        lastReason: Type.Union([Type.String(), Type.Null()]),
      },
      { description: 'Requests the engine refused for good, quarantined under the data dir' },
    ),
  ),
  listen: Type.Optional(
    Type.Object(
      {
        api: Type.String({ description: 'API and UI, e.g. http://127.0.0.1:8080' }),
        otlpHttp: Type.String({ description: 'OTLP/HTTP base URL (POST {otlpHttp}/v1/traces)' }),
        otlpGrpc: Type.String({ description: 'OTLP/gRPC host:port' }),
      },
      { description: 'The addresses this server is bound to (ports resolved when 0 was asked)' },
    ),
  ),
});
export type StatsResponse = Static<typeof StatsResponse>;

export const StatsRoute = {
  summary: 'What the store holds',
  response: { 200: StatsResponse },
};

export const HealthRoute = {
  summary: 'The process is alive',
  response: { 200: Type.Object({ status: Type.Literal('ok') }) },
};

export const ReadyRoute = {
  summary:
    'The store answers, the schema is in place and ingest can store what it accepts (503 otherwise)',
  response: {
    200: Type.Object({
      status: Type.Literal('ready'),
      store: Type.String(),
      readOnly: Type.Optional(Type.Boolean()),
    }),
    503: Type.Object({
      status: Type.Union([Type.Literal('starting'), Type.Literal('stuck')]),
      store: Type.String(),
      reason: Type.Optional(Type.String()),
    }),
  },
};
