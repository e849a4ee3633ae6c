/** A run: the truth up front, then batches of whole traces streamed one at a time. */
export type { PlantedCalls, TraceGenerator } from './generator-types';
import { createAppGenerator } from './app-generator';
import { SpanBatch } from './batch';
import { hex } from './hex';
import { maxWidth, RequestModel } from './model';
import type { PlantedCalls, TraceGenerator } from './generator-types';
import { createPlan, type GeneratorOptions, type Plan } from './plan';
import { sharingModes, type ScenarioSpec } from './spec';
import { epochMs } from './time';
import { buildTruth } from './truth';

export function createGenerator(spec: ScenarioSpec, options: GeneratorOptions): TraceGenerator {
  if (spec.app) return createAppGenerator(spec, spec.app, options);
  const plan = createPlan(spec, options);
  const truth = buildTruth(plan);
  const spansPerCall = spec.shape === 'client-server' ? 2 : 1;
  const expectedSpans = Math.round(
    plan.requests * (1 + truth.width.mean * spansPerCall) + plan.windowSpans.length,
  );
  const gen: TraceGenerator = {
    truth,
    plan,
    expectedSpans,
    batches: () => batches(plan),
    leafCalls: () => leafCalls(gen),
  };
  return gen;
}

function* batches(plan: Plan): Generator<SpanBatch, void, undefined> {
  const model = new RequestModel(plan);
  const width = maxWidth(plan.spec.width, plan.spec.leaf.shards);
  const windows = plan.windowSpans;
  let w = 0;
  let i = 0;
  for (let index = 0; i < plan.requests; index++) {
    const batch = new SpanBatch(plan, index, i, width);
    while (i < plan.requests && batch.spanCount < plan.spansPerBatch) model.next(batch, i++);
    // A background span goes out once it has ended, as an exporter would send it.
    const until = i >= plan.requests ? Infinity : (batch.reqStartNs[batch.requestCount - 1] ?? 0);
    for (let win = windows[w]; win && win.endNs <= until; win = windows[++w]) batch.addWindow(win);
    yield batch;
  }
}

function leafCalls(gen: TraceGenerator): PlantedCalls {
  const { plan } = gen;
  const total = Math.ceil(plan.requests * maxWidth(plan.spec.width, plan.spec.leaf.shards));
  const fanoutOffsets = new Uint32Array(plan.requests + 1);
  const fanoutStartMs = new Float64Array(plan.requests);
  const traceIds: string[] = [];
  const startMs = new Float64Array(total);
  const durationMs = new Float64Array(total);
  const host = new Uint32Array(total);
  const mode = new Uint32Array(total);
  const background = new Uint32Array(total);
  const effects = new Uint8Array(total);
  const modeOf = plan.hosts.map((h) => sharingModes.indexOf(h.sharingMode));
  let f = 0;
  let c = 0;
  for (const b of gen.batches()) {
    for (let r = 0; r < b.requestCount; r++, f++) {
      const from = b.callOffset[r] ?? 0;
      const to = b.callOffset[r + 1] ?? 0;
      const first = b.callStartNs[from] ?? 0;
      fanoutStartMs[f] = epochMs(plan.start, first);
      traceIds.push(hex(b.traceIds, 16 * r, 16));
      for (let k = from; k < to; k++, c++) {
        const s = b.callStartNs[k] ?? 0;
        startMs[c] = (s - first) / 1e6;
        durationMs[c] = ((b.callEndNs[k] ?? 0) - s) / 1e6;
        const h = b.callHost[k] ?? 0;
        host[c] = h;
        mode[c] = modeOf[h] ?? 0;
        background[c] = b.callBackground[k] ?? 0;
        effects[c] = b.callEffects[k] ?? 0;
      }
      fanoutOffsets[f + 1] = c;
    }
  }
  return {
    calls: {
      fanoutOffsets,
      fanoutStartMs,
      traceIds,
      startMs: startMs.slice(0, c),
      durationMs: durationMs.slice(0, c),
      host: host.slice(0, c),
      mode: mode.slice(0, c),
      background: background.slice(0, c),
      hosts: plan.hosts.map((h) => h.name),
      modes: [...sharingModes],
      backgrounds: ['none', ...plan.activities.map((a) => a.name)],
    },
    effects: effects.slice(0, c),
  };
}
