import { API_PATHS, endpointUrl } from '@tailscope/contracts';
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema, type Static } from 'typebox';
import { Value } from 'typebox/value';
import {
  FanoutSummary,
  REPORT_SCHEMA_VERSION,
  StoreStats,
  Stragglers,
  WhatIfResult,
  type CapacityRun,
  type OperationReport,
  type PolicyRun,
  type Report,
} from './types';
import { summarizeReport } from './summary';

/**
 * A report is built from the REST API itself, so its numbers are the dashboard's numbers: either
 * in-process (`inject`, no network) on a store this process opened, or over HTTP from a running
 * server (`--url`).
 */
export type ApiCall = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<unknown>;

async function checked(
  status: number,
  text: string,
  method: string,
  path: string,
): Promise<unknown> {
  await Promise.resolve();
  if (status < 200 || status >= 300) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: keep the text
    }
    throw new Error(`${method} ${path} answered ${status}: ${message}`);
  }
  return JSON.parse(text) as unknown;
}

export function injectCaller(app: FastifyInstance): ApiCall {
  return async (method, path, body) => {
    const res = await app.inject({
      method,
      url: path,
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return checked(res.statusCode, res.body, method, path);
  };
}

export function httpCaller(baseUrl: string, apiToken?: string): ApiCall {
  const base = baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = apiToken ? { authorization: `Bearer ${apiToken}` } : {};
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return checked(res.status, await res.text(), method, path);
  };
}

/** Validates a response at the edge, naming the route whose answer did not fit. */
function parse<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  if (!Value.Check(schema, value)) {
    const first = Value.Errors(schema, value)[0];
    throw new Error(
      `unexpected ${what} response${first ? ` at ${first.instancePath || '/'}: ${first.message}` : ''}`,
    );
  }
  return value;
}

export interface ReportOptions {
  fromMs: number;
  toMs: number;
  leafService?: string | undefined;
  leafOperation?: string | undefined;
  /** At most this many operations, worst tail amplification first. */
  maxOperations: number;
  seed: number;
  /** Root p99 objective of the capacity section, ms; default: today's p99 of each operation. */
  sloMs?: number | undefined;
  now: Date;
  version: string;
  onProgress?: (done: number, total: number, label: string) => void;
}

/** The policies every report replays: the two a capacity review asks about first. */
export const REPORT_POLICIES: readonly { label: string; policy: Record<string, unknown> }[] = [
  { label: 'hedge at the call p95', policy: { kind: 'hedge', delayPercentile: 95 } },
  { label: 'probation (defaults)', policy: { kind: 'probation' } },
];

/** The traffic factors of the report's capacity section (issue 29). */
export const CAPACITY_FACTORS: readonly number[] = [1, 1.5, 2];

/**
 * Load what-ifs of one operation's requests at each factor, the machines searched for the
 * objective (default: today's root p99, from the 1x answer). Undefined when the API cannot
 * answer them (no whole request holds the operation, or over the query budget): the report
 * goes on without.
 */
async function capacityRuns(
  call: ApiCall,
  body: Record<string, unknown>,
  opts: ReportOptions,
  step: (label: string) => void,
): Promise<CapacityRun[] | undefined> {
  const runs: CapacityRun[] = [];
  let sloMs = opts.sloMs;
  try {
    for (const factor of CAPACITY_FACTORS) {
      step(`capacity at ${factor}x`);
      const result = parse(
        WhatIfResult,
        await call(API_PATHS.whatif.method, API_PATHS.whatif.path, {
          ...body,
          policy: { kind: 'load', factor },
          seed: opts.seed,
          ...(sloMs !== undefined ? { sloMs } : {}),
        }),
        API_PATHS.whatif.path,
      );
      sloMs ??= result.capacity?.request.baseline.p99 ?? result.baseline.p99;
      runs.push({ factor, sloMs, result });
    }
  } catch {
    // No whole request holds the operation (404), or the budget ran out on a large range (503):
    // the rest of the report stands without this operation's capacity section.
    return undefined;
  }
  return runs;
}

/** Operations worst first: how much more often the request is slow than one call is. */
function severity(f: FanoutSummary): number {
  return f.amplification.observedTailProbability;
}

export async function collectReport(call: ApiCall, opts: ReportOptions): Promise<Report> {
  const range = { from: opts.fromMs, to: opts.toMs };
  const { stats, fanouts: fanoutsPath, stragglers: stragglersPath, whatif } = API_PATHS;
  const store = parse(StoreStats, await call(stats.method, endpointUrl('stats', {})), stats.path);
  const fanoutsBody = parse(
    Type.Object({ fanouts: Type.Array(FanoutSummary) }),
    await call(
      fanoutsPath.method,
      endpointUrl('fanouts', {
        query: { ...range, leafService: opts.leafService, leafOperation: opts.leafOperation },
      }),
    ),
    fanoutsPath.path,
  );
  const fanouts = [...fanoutsBody.fanouts]
    .sort((a, b) => severity(b) - severity(a))
    .slice(0, opts.maxOperations);
  const operations: OperationReport[] = [];
  const steps = fanouts.length * (1 + REPORT_POLICIES.length + CAPACITY_FACTORS.length);
  let done = 0;
  for (const fanout of fanouts) {
    const op = { leafService: fanout.leafService, leafOperation: fanout.leafOperation };
    opts.onProgress?.(done, steps, `${op.leafService} ${op.leafOperation}: stragglers`);
    const stragglers = parse(
      Stragglers,
      await call(
        stragglersPath.method,
        endpointUrl('stragglers', {
          query: { ...range, ...op, by: 'host,sharing_mode,background' },
        }),
      ),
      stragglersPath.path,
    );
    done++;
    const whatIf: PolicyRun[] = [];
    for (const p of REPORT_POLICIES) {
      opts.onProgress?.(done, steps, `${op.leafService} ${op.leafOperation}: ${p.label}`);
      const result = parse(
        WhatIfResult,
        await call(whatif.method, whatif.path, {
          ...op,
          ...range,
          policy: p.policy,
          seed: opts.seed,
        }),
        whatif.path,
      );
      whatIf.push({ label: p.label, policy: p.policy, result });
      done++;
    }
    const capacity = await capacityRuns(call, { ...op, ...range }, opts, (label) => {
      opts.onProgress?.(done++, steps, `${op.leafService} ${op.leafOperation}: ${label}`);
    });
    operations.push({ fanout, stragglers, whatIf, ...(capacity ? { capacity } : {}) });
  }
  opts.onProgress?.(steps, steps, 'done');
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: opts.now.toISOString(),
    tool: { name: 'tailscope', version: opts.version },
    range: { fromMs: opts.fromMs, toMs: opts.toMs },
    store,
    operations,
    summary: summarizeReport({ operations }),
  };
}
