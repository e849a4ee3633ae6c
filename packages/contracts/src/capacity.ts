import { Type, type Static } from 'typebox';
import { MAX_CAPACITY_CHANGES, MAX_LOAD_FACTOR, MAX_MACHINES } from '@tailscope/analysis';
import { MAX_DURATION_MS, MAX_NAME_LENGTH } from './bounds';

/**
 * Issue 29: the load and machine-count what-ifs of POST /api/v1/whatif, as a `policy` of their
 * own or in `capacity` beside another policy (hedging at 1.5x traffic), and the fitted model
 * the answer shows (docs/capacity.md).
 */

const name = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description });

export const LoadPolicy = Type.Object(
  {
    kind: Type.Literal('load'),
    factor: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_LOAD_FACTOR,
      description: `Traffic multiplier, in (0, ${MAX_LOAD_FACTOR}]: 1.5 is 50% more requests.`,
    }),
    rootService: Type.Optional(name('Only the traffic of requests whose root is this service.')),
    rootOperation: Type.Optional(
      name('Only the traffic of requests whose root is this operation.'),
    ),
  },
  {
    additionalProperties: false,
    title: 'load',
    description: 'All traffic (or one root operation’s) times `factor`.',
  },
);

export const MachinesPolicy = Type.Object(
  {
    kind: Type.Literal('machines'),
    service: name('The service whose instance count changes.'),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_MACHINES, description: 'New instance count.' }),
    ),
    delta: Type.Optional(
      Type.Integer({
        minimum: -MAX_MACHINES,
        maximum: MAX_MACHINES,
        description: 'Instances added (negative: removed); the result must stay >= 1.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'machines',
    description:
      'One service’s instance count: `count` or `delta` (one of them). Its load spreads evenly over the instances.',
  },
);

export const CapacityPolicy = Type.Union([LoadPolicy, MachinesPolicy]);
export type CapacityPolicy = Static<typeof CapacityPolicy>;
export const CAPACITY_KINDS = ['load', 'machines'] as const;

export const CapacityField = Type.Optional(
  Type.Array(CapacityPolicy, {
    maxItems: MAX_CAPACITY_CHANGES,
    description: `Load and machine-count changes applied before \`policy\` (at most ${MAX_CAPACITY_CHANGES}; one load change at most): the policy is replayed on the requests re-timed at the new load.`,
  }),
);

export const SloField = Type.Optional(
  Type.Number({
    exclusiveMinimum: 0,
    maximum: MAX_DURATION_MS,
    description:
      'Root p99 objective, ms: with a load or machines change, the answer adds the machines per service needed at the new load to keep the predicted root p99 under it (capacity.machinesForSlo).',
  }),
);

export const CapacityService = Type.Object({
  service: Type.String(),
  model: Type.Union([Type.Literal('mgk'), Type.Literal('curve')], {
    description:
      "'mgk': an M/G/k FIFO queue per instance; 'curve': the empirical wait-against-load curve across windows.",
  }),
  k: Type.Integer({ description: 'Servers per instance (observed concurrency limit).' }),
  instances: Type.Integer(),
  instancesAfter: Type.Integer(),
  utilisation: Type.Number({ description: 'Busiest window: load x mean hold / k, recorded.' }),
  utilisationAfter: Type.Number({ description: 'The same at the new load and machine count.' }),
  throughputPerS: Type.Number({ description: 'Calls per second per instance (mean).' }),
  inFlight: Type.Number({ description: "Calls in flight per instance (Little's law)." }),
  workMs: Type.Number({ description: 'Mean work per call (own time less queue wait), ms.' }),
  waitMs: Type.Number({ description: 'Mean queue wait per call (FIFO reconstruction), ms.' }),
  fitError: Type.Number({
    description:
      "Call-weighted mean relative error of the chosen model on the windows' mean latency.",
  }),
  extrapolated: Type.Boolean({ description: 'The new load is above the highest load observed.' }),
  saturated: Type.Boolean({ description: 'Utilisation >= 1: no finite latency is predicted.' }),
  loadOverObserved: Type.Number({ description: 'Highest new load over the highest observed.' }),
  cpu: Type.Optional(
    Type.Object(
      {
        processes: Type.Integer({ description: 'Processes its instances run in (process.pid).' }),
        utilisation: Type.Number({
          description:
            "Busiest process's CPU utilisation, recorded: its own share of its CPUs (process.cpu.utilization summed over modes).",
        }),
        utilisationAfter: Type.Number({ description: 'The same at the new load.' }),
        cpuMsPerCall: Type.Number({ description: 'CPU busy / completions, ms per call.' }),
        spanUtilisation: Type.Number({
          description: "The span model's utilisation (utilisation above), to compare.",
        }),
      },
      {
        description:
          'The CPU calibration from runtime metrics (absent without them): a CPU queue per process beside the span model; saturation and saturatesFirst take the larger utilisation.',
      },
    ),
  ),
  p99Ms: Type.Optional(Type.Number({ description: "The service's call p99, recorded, ms." })),
  p99After: Type.Optional(
    Type.Object(
      { value: Type.Number(), low: Type.Number(), high: Type.Number() },
      { description: "The service's call p99 after the change, ms (absent when saturated)." },
    ),
  ),
});

const Est = Type.Object({ value: Type.Number(), low: Type.Number(), high: Type.Number() });

export const MachinesForSlo = Type.Object(
  {
    sloMs: Type.Number(),
    // A map written with additionalProperties (as the OpenAPI document shows it), not
    // Type.Record's patternProperties.
    counts: Type.Optional(
      Type.Unsafe<Record<string, number>>(
        Type.Object(
          {},
          {
            additionalProperties: Type.Integer(),
            description:
              'Instances per service; absent when the search did not reach the objective.',
          },
        ),
      ),
    ),
    p99Ms: Type.Optional(Type.Number({ description: 'Predicted root p99 with those counts.' })),
    steps: Type.Integer({ description: 'Predictions the greedy search made (bounded).' }),
  },
  {
    description:
      'Machines per service to keep the root p99 under sloMs at the new load: from today’s counts, never fewer, the most utilised service given machines first.',
  },
);

export const CapacityAnswer = Type.Object(
  {
    changes: Type.Array(CapacityPolicy),
    services: Type.Array(CapacityService),
    saturatesFirst: Type.Optional(
      Type.String({ description: 'The service with the highest utilisation after the changes.' }),
    ),
    saturated: Type.Array(Type.String()),
    extrapolated: Type.Boolean(),
    machinesForSlo: Type.Optional(MachinesForSlo),
    request: Type.Object(
      {
        baseline: Type.Object({
          p50: Type.Number(),
          p90: Type.Number(),
          p99: Type.Number(),
          p999: Type.Number(),
        }),
        whatIf: Type.Optional(Type.Object({ p50: Est, p90: Est, p99: Est, p999: Est })),
      },
      {
        description:
          'Root request percentiles, ms: recorded, and at the new load without the policy (absent when a service saturates).',
      },
    ),
  },
  { description: 'The load and machine-count what-if and its fitted model (issue 29).' },
);
export type CapacityAnswer = Static<typeof CapacityAnswer>;
