/// <reference lib="webworker" />
// The what-if worker: fetches an operation's leaf calls once, keeps them, and answers
// simulations, distribution curves and example traces from them, off the page's thread.
import { simulateWhatIf, unpackLeafCalls, WhatIfPolicyError } from '@tailscope/analysis';
import { exampleTrace, leafCurves, prepareDataset, type Dataset } from './dataset';
import { quantileCurve } from '@tailscope/charts';
import type { WorkerAnswer, WorkerRequest } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

// A few operations' data at most: 100,000 fan-outs of width 100 are ~300 MB of columns.
const KEEP = 2;
const datasets = new Map<string, Promise<Dataset>>();

async function load(
  url: string,
): Promise<{ ds: Dataset; sampled: boolean; fetchMs: number; prepareMs: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { error?: unknown };
      if (typeof body.error === 'string') message = body.error;
    } catch {
      // keep the status line
    }
    throw new Error(`leaf data: ${message}`);
  }
  // The packed columnar format (docs/analysis.md): numbers never go through JSON.
  const bytes = await res.arrayBuffer();
  const t1 = performance.now();
  const { calls, meta } = unpackLeafCalls(bytes);
  const ds = prepareDataset(calls);
  return {
    ds,
    sampled: meta.sampled === true,
    fetchMs: t1 - t0,
    prepareMs: performance.now() - t1,
  };
}

function dataset(key: string): Promise<Dataset> {
  const d = datasets.get(key);
  if (!d) return Promise.reject(new Error(`leaf data ${key} is not loaded`));
  return d;
}

async function handle(m: WorkerRequest): Promise<WorkerAnswer> {
  switch (m.type) {
    case 'load': {
      const pending = load(m.url);
      datasets.delete(m.key);
      datasets.set(
        m.key,
        pending.then((p) => p.ds),
      );
      while (datasets.size > KEEP) {
        const first = datasets.keys().next();
        if (first.done === true) break;
        datasets.delete(first.value);
      }
      try {
        const { ds, sampled, fetchMs, prepareMs } = await pending;
        return {
          id: m.id,
          ok: true,
          type: 'load',
          info: {
            fanouts: ds.allLeavesMs.length,
            calls: ds.calls.durationMs.length,
            hosts: ds.calls.hosts.length,
            sampled,
            fetchMs,
            prepareMs,
          },
        };
      } catch (e) {
        datasets.delete(m.key);
        throw e;
      }
    }
    case 'curves':
      return { id: m.id, ok: true, type: 'curves', curves: leafCurves(await dataset(m.key)) };
    case 'simulate': {
      const ds = await dataset(m.key);
      const t0 = performance.now();
      // The replayed samples stay here: the page gets their curve, not 100,000 numbers.
      const calls = m.preview && ds.preview ? ds.preview : ds.calls;
      // While a slider moves, one replay (today's cost); at rest, pooled replays (at most 8:
      // an answer within a second in the browser at 100,000 requests; the server's API pools
      // more) so the answer hardly moves with the seed (docs/whatif.md, "No replay noise").
      const { allLeavesMs, ...result } = simulateWhatIf(calls, m.policy, {
        seed: m.seed,
        bootstrapSamples: m.bootstrapSamples,
        ...(m.preview ? { replays: 1 } : { maxReplays: MAX_REST_REPLAYS }),
      });
      const whatIfCurve = quantileCurve(allLeavesMs.sort());
      const simulateMs = performance.now() - t0;
      const replayed = calls.fanoutOffsets.length - 1;
      return {
        id: m.id,
        ok: true,
        type: 'simulate',
        answer: { result, whatIfCurve, simulateMs, replayed },
      };
    }
    case 'example':
      return {
        id: m.id,
        ok: true,
        type: 'example',
        traceId: exampleTrace(await dataset(m.key), m.query) ?? null,
      };
  }
}

/** Replays pooled at rest in the browser (see the simulate case). */
const MAX_REST_REPLAYS = 8;

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const m = e.data;
  handle(m).then(
    (answer) => {
      self.postMessage(answer);
    },
    (err: unknown) => {
      const answer: WorkerAnswer = {
        id: m.id,
        ok: false,
        message: err instanceof Error ? err.message : String(err),
      };
      if (err instanceof WhatIfPolicyError) answer.field = err.field;
      self.postMessage(answer);
    },
  );
};
