import { Type, type Static } from 'typebox';
import { ErrorBody, Name, RangeQuery } from './bounds';
import { SamplingInfo } from './sampling';

/**
 * GET /api/v1/episodes: windows in which calls into a service (per host) or along an edge were
 * slower than the same series' own baseline (DESIGN.md "Definitions": Episode;
 * docs/analysis.md "Episodes").
 */

export const EpisodesQuery = Type.Object({
  ...RangeQuery,
  service: Type.Optional(Name('Only episodes of calls into this service')),
});
export type EpisodesQuery = Static<typeof EpisodesQuery>;

export const EpisodeEvidence = Type.Object({
  signal: Type.String({
    description:
      'Evidence kind (docs/metrics.md): cpu-saturation, throttling, neighbour-pressure, gc-pause, network, memory-pressure',
  }),
  host: Type.String({ description: 'The host (resource key value) the metric was joined on' }),
  metric: Type.Optional(
    Type.String({ description: 'The metric read, e.g. process.cpu.utilization' }),
  ),
  value: Type.Number({ description: "The signal's mean over the episode's windows" }),
  baseline: Type.Number({ description: "The signal's mean over the windows just before it" }),
  ratio: Type.Number({ description: 'value / baseline (Number.MAX_VALUE when baseline is 0)' }),
  series: Type.Optional(
    Type.Object(
      {
        fromMs: Type.Number({ description: 'Start of the first window (the baseline), epoch ms' }),
        windowMs: Type.Number({ description: 'Window length, ms' }),
        values: Type.Array(Type.Union([Type.Number(), Type.Null()]), {
          description:
            "The signal per window from the baseline's start to the episode's end; null: no point",
        }),
      },
      { description: "The signal's series over the baseline and the episode" },
    ),
  ),
});
export type EpisodeEvidence = Static<typeof EpisodeEvidence>;

export const EpisodeSpanEvidence = Type.Object(
  {
    calls: Type.Number({ description: 'Calls with a server span inside the episode' }),
    baselineCalls: Type.Number({ description: 'Such calls in the windows just before it' }),
    clientMs: Type.Number({ description: 'Mean client-span ms (the call as its caller saw it)' }),
    baselineClientMs: Type.Number(),
    serverMs: Type.Number({ description: "Mean ms of the callee's server span" }),
    baselineServerMs: Type.Number(),
    outsideMs: Type.Number({
      description: "Mean ms of the client's time outside its server span (network, queueing)",
    }),
    baselineOutsideMs: Type.Number(),
  },
  {
    description:
      "Evidence from spans, with no metrics: calls into the episode's (service, host) inside it against the windows just before it",
  },
);
export type EpisodeSpanEvidence = Static<typeof EpisodeSpanEvidence>;

export const ServiceEpisode = Type.Object({
  service: Type.String({ description: 'Callee service' }),
  host: Type.String({
    description: "Callee host ('*' for an edge series, which spans the callee's hosts)",
  }),
  parentService: Type.Optional(Type.String({ description: 'Caller service (edge series)' })),
  parentOperation: Type.Optional(Type.String({ description: 'Caller operation (edge series)' })),
  operation: Type.Optional(Type.String({ description: 'Callee operation (edge series)' })),
  kind: Type.Optional(
    Type.Union([Type.Literal('callee'), Type.Literal('edge')], {
      description: 'callee: calls into (service, host); edge: caller -> callee operation',
    }),
  ),
  fromMs: Type.Number({ description: 'Start of the first slow window, epoch ms' }),
  toMs: Type.Number({ description: 'End of the last slow window (exclusive), epoch ms' }),
  p99Ms: Type.Number({ description: "The worst window's call latency p99, ms" }),
  baselineP99Ms: Type.Number({
    description: "Median p99 of the series' baseline windows (its own history), ms",
  }),
  ratio: Type.Number({ description: 'p99Ms / baselineP99Ms' }),
  calls: Type.Number({ description: 'Calls in the episode (weighted by sampling)' }),
  qValue: Type.Number({
    description: "Smallest Benjamini-Hochberg q-value of the episode's windows",
  }),
  evidence: Type.Optional(
    Type.Array(EpisodeEvidence, {
      description: "Metrics of the episode's host inside the episode against just before it",
    }),
  ),
  evidenceNote: Type.Optional(
    Type.String({ description: 'Why there is no metric evidence (no metrics, no join)' }),
  ),
  spanEvidence: Type.Optional(EpisodeSpanEvidence),
  cause: Type.Optional(
    Type.String({
      description: 'The cause in words, from the evidence (docs/metrics.md "Causes")',
    }),
  ),
  causeSignal: Type.Optional(
    Type.String({
      description:
        'What the cause names: cpu-saturation, throttling, neighbour-pressure, gc-pause, network, memory-pressure, network-or-queueing, server-time, unexplained',
    }),
  ),
});
export type ServiceEpisode = Static<typeof ServiceEpisode>;

export const EpisodesResponse = Type.Object({
  windowSeconds: Type.Number({ description: 'Window length the range was judged in, seconds' }),
  episodes: Type.Array(ServiceEpisode, { description: 'Worst (largest ratio) first' }),
  from: Type.Optional(Type.Number()),
  to: Type.Optional(Type.Number()),
  windowsTested: Type.Optional(
    Type.Integer({ description: 'Windows tested over all series (the BH family)' }),
  ),
  sampling: Type.Optional(SamplingInfo),
});
export type EpisodesResponse = Static<typeof EpisodesResponse>;

export const EpisodesRoute = {
  summary: 'Windows where calls into a service or along an edge were slower than their own history',
  querystring: EpisodesQuery,
  response: { 200: EpisodesResponse, 400: ErrorBody },
};
