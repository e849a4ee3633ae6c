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
  sampling: Type.Optional(SamplingInfo),
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
    200: Type.Object({ status: Type.Literal('ready'), store: Type.String() }),
    503: Type.Object({
      status: Type.Union([Type.Literal('starting'), Type.Literal('stuck')]),
      store: Type.String(),
      reason: Type.Optional(Type.String()),
    }),
  },
};
