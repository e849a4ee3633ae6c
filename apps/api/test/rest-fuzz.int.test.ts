import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spanWeight } from '@tailscope/analysis/testing';
import { sql } from '../src/store';
import {
  caseOf,
  PROTOTYPE_NAMES,
  type Hints,
  type Operation,
  type Schema,
} from './rest-fuzz-inputs';
import { fanoutSpans, insertSpans, startServer, T0_NS } from './query-support';
import { insertWithTraceStates, TRACE_STATES } from './sampling-support';

/**
 * Property-based fuzzing of every REST route, driven by the OpenAPI document the server
 * publishes (/api/v1/openapi.json): per route and method, parameters and bodies in range, out
 * of range, huge, negative, NaN/Infinity text, ISO extremes, wrong types and long strings,
 * against the real server on a small seeded store whose requests carry OpenTelemetry sampling
 * thresholds (valid, huge and invalid: sampling-support.ts TRACE_STATES), with Object.prototype
 * member names wherever a string is a key (issue 25). Every answer must be below 500 (a 503 of
 * the query budget or the analysis queue is the documented "busy", counted, not a failure);
 * afterwards the server still answers a normal request. Fixed seed, bounded runs.
 *
 * No time bound per answer (issue 24: the 10 s one failed on a busy machine, measuring the
 * machine rather than the server): the server's own budget bounds a request, and HANG_GUARD_MS
 * only turns a request that never answers into a failure rather than a stuck run (the run's
 * own limit is ten of those: on a machine at load 16, one analysis answer took 2-5 s).
 */

const SEED = 20_261_124;
const HANG_GUARD_MS = 180_000;
const REQUESTS = 300; // 20 ms apart: 6 s of fan-outs of kv/get under frontend/search
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 1000;
const TRACE_ID = (1).toString(16).padStart(32, '0');

/** In-range values for parameters whose meaning the schema does not carry. */
const HINTS: Hints = {
  from: fc.oneof(
    fc.integer({ min: FROM_MS - 5000, max: TO_MS }),
    fc.constant(new Date(FROM_MS).toISOString()),
  ),
  to: fc.oneof(
    fc.integer({ min: FROM_MS, max: TO_MS + 5000 }),
    fc.constant(new Date(TO_MS).toISOString()),
  ),
  leafService: fc.constantFrom('kv', 'frontend'),
  leafOperation: fc.constantFrom('get', 'search'),
  parentService: fc.constantFrom('frontend', 'kv'),
  traceId: fc.constantFrom(TRACE_ID, 'ab'.repeat(16), 'ff'.repeat(16)),
  by: fc.constantFrom(
    'host',
    'host,sharing_mode,background',
    'attr:host.name',
    'sharing_mode',
    ...PROTOTYPE_NAMES,
    ...PROTOTYPE_NAMES.map((k) => `host,attr:${k}`),
  ),
  attrs: fc.constantFrom('host.name', 'a,b', 'service.name', ...PROTOTYPE_NAMES),
  // Handler bounds the route schemas do not state (yet): in range means inside these.
  tailQuantile: fc.double({ min: 0.5, max: 0.9999, noNaN: true }),
  factor: fc.double({ min: 1, max: 1000, noNaN: true }),
  windowSeconds: fc.double({ min: 0.001, max: 86_400, noNaN: true }),
  minCalls: fc.integer({ min: 1, max: 1000 }),
  thresholdMs: fc.double({ min: 0, max: 1e4, noNaN: true }),
};

/**
 * The sampled requests: two per TraceState of TRACE_STATES, 20 ms apart from SAMPLED_MS (3 s
 * after the unsampled ones, so that the in-range `to` reaches them in about a sixth of the
 * cases: a weighted answer reads live where an unweighted one may be served stored).
 */
const SAMPLED = 2 * TRACE_STATES.length;
const SAMPLED_MS = TO_MS + 3000;
const sampledSpans = () =>
  fanoutSpans(SAMPLED, 4, 9).map((s) => ({
    ...s,
    traceId: `5${s.traceId.slice(1)}`,
    startNs: s.startNs + BigInt(SAMPLED_MS - FROM_MS) * 1_000_000n,
  }));
const traceStateOf = (s: { traceId: string }): string =>
  TRACE_STATES[(parseInt(s.traceId.slice(1), 16) - 1) % TRACE_STATES.length] ?? '';
/** Their weighted count: each request weighs its TraceState's adjusted count. */
const WEIGHTED_REQUESTS = Math.round(
  Array.from({ length: SAMPLED }, (_, q) =>
    spanWeight(TRACE_STATES[q % TRACE_STATES.length] ?? ''),
  ).reduce((a, b) => a + b, 0),
);

let server: Awaited<ReturnType<typeof startServer>>;
let operations: Operation[] = [];

beforeAll(async () => {
  server = await startServer('rest-fuzz');
  await insertSpans(server.running.store, fanoutSpans(REQUESTS, 4));
  await insertWithTraceStates(server.running.store, sampledSpans(), traceStateOf);
  // Two spans at times stored before ingest refused them: a wrapped negative one (1811) and
  // one of 2201, so the stored range spans centuries.
  for (const [ns, id] of [
    [-5_000_000_000_000_000_000n, '01'],
    [7_300_000_000_000_000_000n, '02'],
  ] as const) {
    await server.running.store.command(
      sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ServiceName, SpanName, SpanKind, Duration)
        VALUES (fromUnixTimestamp64Nano(toInt64(${ns.toString()})), ${'ab'.repeat(16)}, ${id.repeat(8)}, 'kv', 'get', 'Server', 5)`,
    );
  }
  const doc = (await (await fetch(`${server.base}/api/v1/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Operation['parameters'];
          requestBody?: { content: Record<string, { schema: Schema }> };
        }
      >
    >;
  };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase() as Operation['method'],
      path,
      parameters: op.parameters ?? [],
      ...(op.requestBody ? { body: op.requestBody.content['application/json']?.schema ?? {} } : {}),
    })),
  );
}, 120_000);

afterAll(async () => {
  await server.stop();
});

/** The documented "busy" answer: a 503 naming the query budget or the analysis queue. */
function busy(status: number, answer: string): boolean {
  return status === 503 && /budget|queue|busy/i.test(answer);
}

/** Routes that run an analysis over calls: each case costs the engine's plan of a large query. */
const ANALYSES = /^\/api\/v1\/(fanouts|edges|stragglers|hosts|leaves|episodes|incidents)$/;
/**
 * The share of the full run's cases: a quarter in `npm test` (CI's tier: every route still gets
 * its sampling thresholds and prototype names, issue 25), all of them under `npm run test:full`,
 * and `REST_FUZZ_SCALE=4` (say) four times as many for a deeper run by hand.
 */
const SCALE = scaleFrom(process.env.REST_FUZZ_SCALE, process.env.TAILSCOPE_FULL_TESTS === '1');
function scaleFrom(text: string | undefined, full: boolean): number {
  const asked = Number(text);
  if (text !== undefined && text !== '' && Number.isFinite(asked) && asked > 0) return asked;
  return full ? 1 : 0.25;
}
/** `n` cases of the full run at this scale, at least one. */
const cases = (n: number) => Math.max(1, Math.ceil(SCALE * n));

/**
 * Cases per operation: more where the inputs are richer or a case is cheap. An analysis case
 * costs 0.3-1.4 s on 2 quiet cores even over this small store (planning its query is ~0.2-0.4 s
 * of it), so those routes get 16 cases each: the whole run was 223 s of a 15-minute CI with 60.
 */
function runsFor(op: Operation): number {
  if (op.body) return cases(op.path.endsWith('/whatif') ? 200 : 400);
  if (op.parameters.length === 0) return cases(10);
  // Incidents judge the range as episodes do (the same code, fuzzed above), then read a few
  // bounded samples: 12 cases cover its own parameters at half an analysis' cost.
  if (op.path.endsWith('/incidents')) return cases(12);
  // Edges and episodes plan the largest queries (edges ~3 s a case under CI load, 74 s for 24):
  // 12 cases each still draw every parameter several times.
  if (/\/(edges|episodes)$/.test(op.path)) return cases(12);
  return cases(ANALYSES.test(op.path) ? 16 : 60);
}

describe('REST fuzzing from the OpenAPI document', () => {
  it('publishes the routes it serves', () => {
    const routes = operations.map((o) => `${o.method} ${o.path}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /api/v1/fanouts',
        'GET /api/v1/stragglers',
        'GET /api/v1/hosts',
        'GET /api/v1/leaves',
        'GET /api/v1/traces/{traceId}',
        'GET /api/v1/stats',
        'POST /api/v1/whatif',
      ]),
    );
  });

  it(
    'answers every generated request below 500',
    async () => {
      const seen = new Map<string, Map<number, number>>();
      const started = performance.now();
      for (const op of operations) {
        const key = `${op.method} ${op.path}`;
        const statuses = new Map<number, number>();
        seen.set(key, statuses);
        const opStarted = performance.now();
        await fc.assert(
          fc.asyncProperty(caseOf(op, server.base, HINTS), async (c) => {
            const res = await fetch(c.url, {
              method: op.method,
              signal: AbortSignal.timeout(HANG_GUARD_MS),
              ...(c.body === undefined
                ? {}
                : { headers: { 'content-type': 'application/json' }, body: c.body }),
            });
            const answer = await res.text();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500 && !busy(res.status, answer))
              throw new Error(`${res.status}: ${answer.slice(0, 300)}`);
          }),
          { seed: SEED, numRuns: runsFor(op), endOnFailure: true },
        );
        console.log(
          `${key}: ${runsFor(op)} cases in ${(performance.now() - opStarted).toFixed(0)} ms`,
        );
      }
      const summary = [...seen].map(
        ([k, s]) =>
          `${k}: ${[...s]
            .sort((a, b) => a[0] - b[0])
            .map(([st, n]) => `${st}x${n}`)
            .join(' ')}`,
      );
      console.log(
        `REST fuzz (seed ${SEED}) in ${((performance.now() - started) / 1000).toFixed(1)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB\n${summary.join('\n')}`,
      );
      // Still serving: a normal request answers as before.
      const res = await fetch(`${server.base}/api/v1/fanouts?from=${FROM_MS}&to=${TO_MS}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { fanouts: { requests: number }[] };
      expect(body.fanouts.map((f) => f.requests)).toEqual([REQUESTS]);
      // And the sampled ones, weighted (up to the order of the floating-point additions).
      const sampled = await fetch(
        `${server.base}/api/v1/fanouts?from=${SAMPLED_MS}&to=${SAMPLED_MS + SAMPLED * 20 + 1000}`,
      );
      expect(sampled.status).toBe(200);
      const w = (await sampled.json()) as { fanouts: { requests: number }[] };
      expect((w.fanouts[0]?.requests ?? 0) / WEIGHTED_REQUESTS).toBeCloseTo(1, 12);
    },
    HANG_GUARD_MS * 10,
  );
});
