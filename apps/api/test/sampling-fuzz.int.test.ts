import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spanWeight } from '@tailscope/analysis/testing';
import type { EdgesResponse, FanoutsResponse, TraceResponse } from '@tailscope/contracts';
import { countSpans, eventually, JSON_TYPE, postOtlp } from './ingest-support';
import { fanoutSpans, startServer, T0_NS } from './query-support';
import { PROTOTYPE_NAMES } from './rest-fuzz-inputs';
import { otlpJson, TRACE_STATES } from './sampling-support';

/**
 * Sampling thresholds and prototype names through the OTLP receiver (issue 25; beside
 * ingest-fuzz.int.test.ts, which fuzzes the protocol). Each run ingests a few requests whose
 * spans carry generated TraceStates (sampling-support.ts TRACE_STATES, and `ot=th:` with 1-14
 * hex digits of either case, or 15) and attributes named after Object.prototype members (typed
 * values, so the companion table's copies are read back), in its own 15 minutes; then /fanouts
 * and /edges over them answer 200 with finite numbers, weighting each request by the
 * reference `spanWeight` of its TraceState, and the trace view keeps every attribute key.
 * Fixed seed, 2 fixed and 4 cases drawn by fast-check, ingested together (the server then stops
 * quickly: ingesting run by run kept a background pass busy for 90 s at its stop).
 */

const SEED = 20_261_128;
const RUNS = 6;
const WIDTH = 3;
/** Each run's own stretch of time (a short one: the server's stored chunks cover it all). */
const STRETCH_NS = 900_000_000_000n;

const threshold = fc
  .tuple(
    fc.integer({ min: 1, max: 15 }),
    fc.boolean(),
    fc.array(
      fc.integer({ min: 0, max: 15 }).map((d) => d.toString(16)),
      { minLength: 15, maxLength: 15 },
    ),
  )
  .map(([n, upper, digits]) => {
    const hex = digits.slice(0, n).join('');
    return `ot=th:${upper ? hex.toUpperCase() : hex}`;
  });
const traceState = fc.oneof(fc.constantFrom(...TRACE_STATES), threshold);
const run = fc.record({
  states: fc.array(traceState, { minLength: 1, maxLength: 6 }),
  key: fc.constantFrom(...PROTOTYPE_NAMES),
});

/** Every number in an answer is finite. */
function finite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(finite);
  if (typeof value === 'object' && value !== null) return Object.values(value).every(finite);
  return true;
}

/** One case's spans: its requests in its own stretch, trace ids prefixed by its number. */
function caseSpans(h: number, states: readonly string[]) {
  return fanoutSpans(states.length, WIDTH, h).map((s) => ({
    ...s,
    traceId: `${h.toString(16).padStart(2, '0')}${s.traceId.slice(2)}`,
    startNs: s.startNs + BigInt(h) * STRETCH_NS,
  }));
}

/** Two fixed cases (every TraceState of TRACE_STATES; the two worst keys), then drawn ones. */
const CASES = [
  { states: TRACE_STATES.slice(0, 7), key: '__proto__' },
  { states: TRACE_STATES.slice(7), key: 'constructor' },
  ...fc.sample(run, { seed: SEED, numRuns: RUNS - 2 }),
].map((c, i) => ({ ...c, h: i + 1, spans: caseSpans(i + 1, c.states) }));

describe('sampling thresholds and prototype names through ingest', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer('sampling-fuzz');
    for (const { spans, states, key } of CASES) {
      const body = otlpJson(spans, (s) => states[parseInt(s.traceId.slice(2), 16) - 1] ?? '', [
        { key, value: { intValue: '7' } },
        { key: `${key}.x`, value: { stringValue: key } },
      ]);
      const res = await postOtlp(server.running, body, JSON_TYPE);
      expect(res.status).toBe(200);
    }
    const stored = CASES.reduce((n, c) => n + c.spans.length, 0);
    await eventually(async () => (await countSpans(server.running)) === stored, 60_000);
  }, 300_000);
  afterAll(async () => server.stop(), 300_000);

  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${server.base}${path}`);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    const body = JSON.parse(text) as T;
    if (!finite(body)) throw new Error(`${path}: a non-finite number in ${text.slice(0, 300)}`);
    return body;
  };

  it.each(CASES.map((c) => [c.h, c.states.join(' | '), c.key, c] as const))(
    'case %d (%s; key %s): weights every request by its threshold, keeps every key',
    async (_h, _states, _key, { h, states, key, spans }) => {
      const from = Number((T0_NS + BigInt(h) * STRETCH_NS) / 1_000_000n);
      const range = `from=${from}&to=${from + 600_000}`;
      // Counts are sums of weights rounded to integers.
      const want = Math.round(states.reduce((a, s) => a + spanWeight(s), 0));
      const fanouts = await get<FanoutsResponse>(`/api/v1/fanouts?${range}`);
      const edges = await get<EdgesResponse>(`/api/v1/edges?${range}`);
      for (const got of [fanouts.fanouts[0]?.requests, edges.edges[0]?.requests])
        expect(Math.abs((got ?? 0) / want - 1)).toBeLessThan(1e-9);
      const trace = await get<TraceResponse>(`/api/v1/traces/${spans[0]?.traceId ?? ''}`);
      const attrs = trace.spans[0]?.attributes ?? {};
      expect(Object.getOwnPropertyDescriptor(attrs, key)?.value).toBe(7);
      expect(Object.getOwnPropertyDescriptor(attrs, `${key}.x`)?.value).toBe(key);
    },
    120_000,
  );
});
