import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';
import { ErrorBody, MAX_DURATION_MS, MAX_LIST_LENGTH, MAX_SEED, Name, RangeQuery } from './bounds';

/** GET /api/v1/stragglers: attribution of tail stragglers to hosts, modes and attributes. */

export const DEFAULT_DIMENSIONS = 'host,sharing_mode,background';
/**
 * Attribution reads every call of the fan-outs it analyses; past 20,000 fan-outs a uniform
 * sample keeps the answer near a second (10M spans, 2 cores: 1.5 s sampled vs 3.3 s for all
 * 50,000) while 1% tail fan-outs still number 200. Ask for more with maxFanouts.
 */
export const DEFAULT_STRAGGLER_FANOUTS = 20_000;
/** Fan-outs a query may ask to analyse or load at most. */
export const MAX_FANOUTS = 1_000_000;

export const StragglersQuery = Type.Object({
  ...RangeQuery,
  leafService: Name('Leaf service (required)', 1),
  leafOperation: Name('Leaf operation (required)', 1),
  by: Type.Optional(
    Type.String({
      maxLength: MAX_LIST_LENGTH,
      description: `Comma-separated dimensions: host, sharing_mode, background, attr:KEY (default ${DEFAULT_DIMENSIONS})`,
    }),
  ),
  thresholdMs: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_DURATION_MS,
      description: 'Tail threshold on the all-leaves time, ms (overrides tailQuantile)',
    }),
  ),
  tailQuantile: Type.Optional(
    Type.Number({
      minimum: 0.5,
      maximum: 0.9999,
      description: 'Tail threshold as a quantile of the all-leaves time (default 0.99)',
    }),
  ),
  seed: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_SEED,
      description: 'Seed of the p99-drop re-draws (default 1)',
    }),
  ),
  maxFanouts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_FANOUTS,
      description: `Fan-outs analysed at most (default ${DEFAULT_STRAGGLER_FANOUTS}; above, a deterministic uniform sample and sampled: true)`,
    }),
  ),
});
export type StragglersQuery = Static<typeof StragglersQuery>;

/** A host's series of per-window means: the measured modes' and the host causes' evidence. */
const hostSeries = (values: string, description: string) =>
  Type.Object(
    {
      fromMs: Type.Number({ description: 'Start of the first point, epoch ms' }),
      windowMs: Type.Number({ description: "A point's length, ms" }),
      values: Type.Array(Type.Union([Type.Number(), Type.Null()]), { description: values }),
    },
    { description },
  );

export const MeasuredHostEvidence = Type.Object({
  host: Type.String({ description: 'A host judged so from its metrics (a resource key value)' }),
  signal: Type.String({
    description:
      "The signal the rule read that was the host's worst in the most windows: neighbour-pressure (CPU steal, or others' share of the host), throttling or gc-pause",
  }),
  metric: Type.String({ description: 'The metric it was read from, e.g. system.cpu.time' }),
  value: Type.Number({
    description:
      "A sharing mode: the host's mean per window of the worse of its steal and throttling, s/s (what the rule reads); gc: its mean GC pause s/s over its gc windows",
  }),
  baseline: Type.Union([Type.Number(), Type.Null()], {
    description:
      "A sharing mode: the same mean over the measured hosts judged otherwise (each host weighs the same); gc: the host's mean over its other windows; null: none",
  }),
  level: Type.Number({ description: "The rule's level, s/s (or a steal share)" }),
  windowsAbove: Type.Integer({ description: "The host's windows at or above the level" }),
  windows: Type.Integer({ description: "The host's windows with a value" }),
  series: hostSeries(
    "The value per point from the host's first window with a value to its last (a mean over windowMs); null: none",
    'The series the rule read, at most 400 points',
  ),
});
export type MeasuredHostEvidence = Static<typeof MeasuredHostEvidence>;

export const MeasuredCause = Type.Object(
  {
    rule: Type.String({ description: 'The rule that judged the hosts so, in words' }),
    hosts: Type.Integer({
      description: 'Hosts judged so from their metrics (their calls carried no such value)',
    }),
    evidence: Type.Array(MeasuredHostEvidence, {
      description: 'The hosts with the most telling readings, at most 5',
    }),
  },
  {
    description:
      'For a sharing mode or background=gc measured from metrics (docs/metrics.md "Sharing mode measured"): which hosts were judged so, and on what',
  },
);
export type MeasuredCause = Static<typeof MeasuredCause>;

export const HostCauseEvidence = Type.Object({
  signal: Type.String({
    description:
      'cpu-saturation, throttling, neighbour-pressure, gc-pause, memory-pressure or network (docs/metrics.md)',
  }),
  host: Type.String({ description: "The cause host (the row's value)" }),
  metric: Type.String({ description: 'The metric it was read from, e.g. system.cpu.time' }),
  value: Type.Number({
    description: "The host's mean over the range's windows, in the signal's unit",
  }),
  baseline: Type.Union([Type.Number(), Type.Null()], {
    description:
      "The mean of the same series (signal and metric) on the leaf's other hosts over the range, each host weighing the same; null: no other host sends it",
  }),
  ratio: Type.Union([Type.Number(), Type.Null()], {
    description:
      'value / baseline (1.7976931348623157e308 when the baseline is 0 and the value not); null: no baseline',
  }),
  peers: Type.Integer({ description: 'The other hosts the baseline was read from' }),
  windows: Type.Integer({ description: "The host's windows with a value" }),
  series: hostSeries(
    "The host's value per point from its first window with a value to its last (a mean over windowMs); null: none",
    'The series over the range, at most 400 points',
  ),
});
export type HostCauseEvidence = Static<typeof HostCauseEvidence>;

export const StragglerRow = Type.Object({
  dimension: Type.String({ description: 'host, sharing_mode, background or attr:KEY' }),
  value: Type.String(),
  calls: Type.Integer(),
  stragglers: Type.Integer({ description: 'Tail fan-outs whose straggler has this value' }),
  trafficShare: Type.Number(),
  stragglerShare: Type.Number(),
  riskRatio: Type.Union([Type.Number(), Type.Null()]),
  riskRatioLow: Type.Union([Type.Number(), Type.Null()]),
  riskRatioHigh: Type.Union([Type.Number(), Type.Null()]),
  pValue: Type.Number({ description: 'Fisher exact, two-sided' }),
  qValue: Type.Number({
    description: 'Benjamini-Hochberg over every value of every dimension asked',
  }),
  cause: Type.Boolean({
    description: 'qValue < 0.05, riskRatio > 1, stragglers > 0 and p99DropMs > 0: it explains time',
  }),
  p99DropMs: Type.Union([Type.Number(), Type.Null()]),
  explainedBy: Type.Union([Type.String(), Type.Null()], {
    description:
      'For a cause: a stronger cause of another dimension that explains it (dimension=value)',
  }),
  measured: Type.Optional(MeasuredCause),
  evidence: Type.Optional(
    Type.Array(HostCauseEvidence, {
      description:
        'For a host cause: its metric evidence over the range against the same metrics on the other hosts, worst ratio first, at most 5 (docs/metrics.md "Evidence beside straggler causes")',
    }),
  ),
  evidenceNote: Type.Optional(
    Type.String({
      description:
        'For a cause with neither `evidence` nor `measured`: why there is none (no metrics, spans and metrics cannot be joined, a value from span attributes, ...)',
    }),
  ),
});
export type StragglerRow = Static<typeof StragglerRow>;

export const StragglersResponse = Type.Object({
  from: Type.Number(),
  to: Type.Number(),
  tailThresholdMs: Type.Union([Type.Number(), Type.Null()]),
  tailFanouts: Type.Integer(),
  fanouts: Type.Integer(),
  calls: Type.Integer(),
  sampled: Type.Boolean(),
  omittedRows: Type.Integer(),
  rows: Type.Array(StragglerRow),
  sampling: Type.Optional(SamplingInfo),
});
export type StragglersResponse = Static<typeof StragglersResponse>;

export const StragglersRoute = {
  summary:
    'Attribution of tail stragglers to hosts, sharing modes, background activity and attributes',
  querystring: StragglersQuery,
  response: { 200: StragglersResponse, 400: ErrorBody },
};
