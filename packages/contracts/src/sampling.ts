import { Type, type Static } from 'typebox';

/**
 * Whether an answer's counts and quantiles were weighted by OpenTelemetry probability sampling's
 * adjusted count (TraceState `ot=th:<hex>`; docs/analysis.md "Sampling").
 */
export const SamplingInfo = Type.Object(
  {
    weighted: Type.Boolean({
      description: 'Some spans carried a sampling threshold, and counts and quantiles use it',
    }),
    spansWithoutSamplingInfo: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Share (0..1) of spans with no valid ot=th threshold (each counted as 1)',
    }),
  },
  { description: 'Sampling: what weighting the statistics used' },
);
export type SamplingInfo = Static<typeof SamplingInfo>;
