import { Type, type Static } from 'typebox';

/** GET /api/v1/stats, /healthz, /readyz. */

export const StatsResponse = Type.Object({
  spans: Type.Number(),
  traces: Type.Number(),
  services: Type.Number(),
  oldestUnixNano: Type.Union([Type.String(), Type.Null()]),
  newestUnixNano: Type.Union([Type.String(), Type.Null()]),
  ingestSpansPerSecond: Type.Number(),
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
  summary: 'The store answers and the schema is in place (503 until then)',
  response: {
    200: Type.Object({ status: Type.Literal('ready'), store: Type.String() }),
    503: Type.Object({ status: Type.Literal('starting'), store: Type.String() }),
  },
};
