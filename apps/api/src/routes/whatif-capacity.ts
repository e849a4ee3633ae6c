import {
  CAPACITY_KINDS,
  type CapacityAnswer,
  type CapacityPolicy,
  type WhatIfBody,
  type WhatIfResponse,
} from '@tailscope/contracts';
import type { CapacityWhatIf, WhatIfPolicy } from '@tailscope/analysis';
import type { ApiContext } from './context';
import { badRequest, notFound } from '../foundation';
import { selectCpuReadings } from '../store/capacity/cpu';
import { loadRequestColumns } from '../store/requests/columns';
import { capWideParents, MAX_FANOUT_CALLS, WIDE_FANOUT_SEED } from '../store/fanouts/wide';
import type { AnalysisPool } from '../whatif-worker/pool';
import {
  cacheBytes,
  MAX_REQUEST_SPANS,
  MAX_REQUEST_TREES,
  rangeCache,
  treesKey,
} from './whatif-request';

/**
 * Where a capacity answer's time went, ms: all of it in the handler (`answerMs`), in the
 * analysis pool (its queue and the thread: `poolMs`), and the thread's own work (`computeMs`).
 */
export interface CapacityTiming {
  answerMs: number;
  poolMs: number;
  computeMs: number;
}

/** Whether a policy is a load or machines change (issue 29) rather than a replay policy. */
export function isCapacityPolicy(p: WhatIfBody['policy']): p is CapacityPolicy {
  return (CAPACITY_KINDS as readonly string[]).includes(p.kind);
}

/** The changes of a body and its replay policy, checked for what needs no data. */
function changesOf(body: WhatIfBody): { changes: CapacityPolicy[]; policy?: WhatIfPolicy } {
  const own = isCapacityPolicy(body.policy) ? [body.policy] : [];
  const changes = [...own, ...(body.capacity ?? [])];
  if (changes.filter((c) => c.kind === 'load').length > 1)
    throw badRequest('capacity: give at most one load change (policy and capacity together)');
  changes.forEach((c, i) => {
    const at = i < own.length ? 'policy' : `capacity.${i - own.length}`;
    if (c.kind === 'machines' && (c.count === undefined) === (c.delta === undefined))
      throw badRequest(`${at}.count and ${at}.delta exclude each other: give one`);
  });
  return isCapacityPolicy(body.policy) ? { changes } : { changes, policy: body.policy };
}

/**
 * POST /api/v1/whatif with a load or machines change (issue 29): the requests holding the leaf
 * operation, read whole, the capacity model fitted on them, the change predicted; with a replay
 * policy, that policy replayed on the requests re-timed at the new load.
 */
export async function capacityWhatIfAnswer(
  ctx: ApiContext,
  pool: AnalysisPool,
  body: WhatIfBody,
  asked: { fromNs: bigint; toNs: bigint; toMs: number },
  cancel: AbortSignal,
  onCache?: (hit: boolean, ageMs: number) => void,
  onTiming?: (t: CapacityTiming) => void,
): Promise<WhatIfResponse> {
  const t0 = performance.now();
  const { changes, policy } = changesOf(body);
  const range = rangeCache(body, asked);
  const seed = body.seed ?? 1;
  const target = {
    leafService: body.leafService,
    leafOperation: body.leafOperation,
    ...(body.parentService !== undefined ? { parentService: body.parentService } : {}),
    ...(body.parentOperation !== undefined ? { parentOperation: body.parentOperation } : {}),
  };
  const job = {
    kind: 'capacity' as const,
    // What is read, and the seed (the fit draws with it): the fit cache's key.
    key: JSON.stringify([
      'capacity',
      range.key,
      body.leafService,
      body.leafOperation,
      MAX_REQUEST_TREES,
      MAX_REQUEST_SPANS,
      MAX_FANOUT_CALLS,
      seed,
    ]),
    changes,
    ...(policy ? { policy } : {}),
    target,
    options: {
      seed,
      preview: body.quality === 'preview',
      ...(body.sloMs !== undefined ? { sloMs: body.sloMs } : {}),
    },
    ttlMs: range.ttlMs,
    maxBytes: cacheBytes(ctx),
    // The whole-request replay's (unweighted) read of the same requests: reused when kept.
    treesKey: treesKey(body, range.key, false),
  };
  let reply = await pool.run(job, cancel);
  const poolMs = performance.now() - t0;
  const answeredFirst = !reply.miss;
  if (reply.miss && reply.treesKept) {
    // The replay keeps these requests' trees: only the CPU readings are read.
    const cpu = await selectCpuReadings(ctx.store, asked);
    reply = await pool.run(
      { ...job, fromKeptTrees: true, ...(cpu.length > 0 ? { cpu } : {}) },
      cancel,
    );
  }
  if (reply.miss) {
    const loaded = await loadRequestColumns(
      ctx.store,
      { ...asked, leafService: body.leafService, leafOperation: body.leafOperation },
      { maxTraces: MAX_REQUEST_TREES, maxSpans: MAX_REQUEST_SPANS },
    );
    if (!loaded)
      throw notFound(
        `no requests hold ${body.leafService}/${body.leafOperation} between from and to`,
      );
    const capped = capWideParents(loaded.columns, MAX_FANOUT_CALLS, WIDE_FANOUT_SEED);
    // Runtime metrics' CPU per instance over the range calibrate the model (none: spans alone).
    const cpu = await selectCpuReadings(ctx.store, asked);
    reply = await pool.run(
      {
        ...job,
        columns: capped.columns,
        ...(cpu.length > 0 ? { cpu } : {}),
        readNotes: loaded.sampled
          ? [`more than ${MAX_REQUEST_TREES} requests matched: a uniform sample was read`]
          : [],
      },
      cancel,
    );
  }
  if (reply.miss) throw new Error('capacity: the fit cache missed with the columns sent');
  onCache?.(reply.cached, reply.ageMs);
  onTiming?.({
    answerMs: performance.now() - t0,
    poolMs: answeredFirst ? poolMs : performance.now() - t0,
    computeMs: reply.computeMs,
  });
  const { capacity: cap, replay, machinesForSlo } = reply;
  const notes = [
    `capacity: fitted on the ${cap.requests} requests holding ${body.leafService}/${body.leafOperation} (their calls are the load each service is fitted on)`,
    ...reply.readNotes,
    ...cap.notes,
  ];
  const capacity = {
    ...capacityAnswer(changes, cap),
    ...(machinesForSlo ? { machinesForSlo } : {}),
  };
  const flat = flatEstimates(cap);
  const reason =
    cap.saturated.length > 0
      ? `${cap.saturated.join(', ')} saturate${cap.saturated.length === 1 ? 's' : ''} (utilisation >= 1 after the change): no finite latency is predicted`
      : undefined;
  const common = {
    ...(reason !== undefined ? { applicable: false, reason } : { applicable: true }),
    capacity,
    quality: body.quality ?? 'full',
  } as const;
  if (replay)
    return {
      requests: replay.requests,
      baseline: replay.baseline,
      whatIf: replay.whatIf,
      extraLoad: replay.extraLoad,
      ...(replay.probation ? { probation: replay.probation } : {}),
      ...(replay.completeness ? { completeness: replay.completeness } : {}),
      ...(replay.avoidHosts ? { avoidHosts: replay.avoidHosts } : {}),
      request: replay.request,
      notes: [
        'with capacity changes: baseline is the requests at the new load without the policy, whatIf with it; capacity.request compares the new load with the recording',
        ...replay.notes,
        ...notes,
      ],
      ...common,
      ...(replay.applicable ? {} : { applicable: false, reason: replay.reason ?? '' }),
    };
  return {
    requests: cap.requests,
    baseline: cap.baseline,
    whatIf: cap.whatIf ?? flat,
    extraLoad: 0,
    request: { baseline: cap.baseline, whatIf: cap.whatIf ?? flat, model: 'open' },
    notes: [
      ...(policy ? ['the policy was not replayed: a service saturates at the new load'] : []),
      'load and machines: baseline and whatIf are the root requests (recorded, and at the new load); a saturated answer repeats the baseline in whatIf, with applicable false',
      ...notes,
    ],
    ...common,
  };
}

function capacityAnswer(changes: CapacityPolicy[], cap: CapacityWhatIf): CapacityAnswer {
  return {
    changes,
    services: cap.services.map((s) => ({
      service: s.service,
      model: s.model,
      k: s.k,
      instances: s.instances,
      instancesAfter: s.instancesAfter,
      utilisation: s.utilisation,
      utilisationAfter: s.utilisationAfter,
      throughputPerS: s.throughputPerS,
      inFlight: s.inFlight,
      workMs: s.workMs,
      waitMs: s.waitMs,
      fitError: s.fitError,
      extrapolated: s.extrapolated,
      saturated: s.saturated,
      loadOverObserved: s.loadOverObserved,
      ...(s.cpu ? { cpu: s.cpu } : {}),
      ...(s.p99Ms !== undefined ? { p99Ms: s.p99Ms } : {}),
      ...(s.p99After ? { p99After: s.p99After } : {}),
    })),
    ...(cap.saturatesFirst !== undefined ? { saturatesFirst: cap.saturatesFirst } : {}),
    saturated: cap.saturated,
    extrapolated: cap.extrapolated,
    request: { baseline: cap.baseline, ...(cap.whatIf ? { whatIf: cap.whatIf } : {}) },
  };
}

/** The baseline as estimates of no width: a saturated answer's whatIf (applicable false). */
function flatEstimates(cap: CapacityWhatIf): NonNullable<CapacityWhatIf['whatIf']> {
  const e = (v: number) => ({ value: v, low: v, high: v });
  const b = cap.baseline;
  return { p50: e(b.p50), p90: e(b.p90), p99: e(b.p99), p999: e(b.p999) };
}
