/** Runs of an application scenario (spec.app): whole traces of many services, with the truth. */
import { AppModel } from './app-model';
import { spansPerRequest } from './app-topology';
import { buildAppTruth } from './app-truth';
import { SpanBatch } from './batch';
import type { TraceGenerator } from './generator-types';
import { createPlan, type GeneratorOptions, type Plan } from './plan';
import { TracegenError, type AppSpec, type ScenarioSpec } from './spec';
import { buildTruth, type ScenarioTruth } from './truth';
import { TreeSpans } from './tree';

export function createAppGenerator(
  spec: ScenarioSpec,
  app: AppSpec,
  options: GeneratorOptions,
): TraceGenerator {
  const plan = createPlan(spec, options);
  const appTruth = buildAppTruth(plan, app);
  appTruth.spansPerRequest = spansPerRequest(app);
  const { fault } = appTruth;
  const base = buildTruth(plan);
  const truth: ScenarioTruth = {
    ...base,
    effects: [{ kind: 'fault', ...fault }],
    causes: [{ dimension: 'host', value: fault.host, effect: 0 }],
    episodes: [{ host: fault.host, startMs: fault.startMs, endMs: fault.endMs }],
    app: appTruth,
  };
  return {
    truth,
    plan,
    expectedSpans: plan.requests * appTruth.spansPerRequest + appTruth.duplicates.spans,
    batches: () => batches(plan, app),
    leafCalls: () => {
      throw new TracegenError(
        `leafCalls() describes one fan-out; scenario '${spec.name}' is an application: read truth.app`,
      );
    },
  };
}

function* batches(plan: Plan, app: AppSpec): Generator<SpanBatch, void, undefined> {
  const model = new AppModel(plan, app);
  // Room for a batch that closes one request past spansPerBatch, duplicates included.
  const maxSpans = plan.spansPerBatch + spansPerRequest(app) + 4;
  let i = 0;
  for (let index = 0; i < plan.requests; index++) {
    const batch = new SpanBatch(plan, index, i, 1);
    batch.tree = new TreeSpans(maxSpans, plan.spansPerBatch + 1);
    while (i < plan.requests && batch.spanCount < plan.spansPerBatch) model.next(batch, i++);
    yield batch;
  }
}
