import { describe, expect, it } from 'vitest';
import { rankRootCauses, type CauseSpan } from './causes';
import { criticalPathDifference } from './path-diff';

/**
 * A request frontend -> (CLIENT) -> api SERVER on api-1 -> (CLIENT) -> db SERVER on db-1, and
 * an uninstrumented CLIENT call from api to mysql. Times in ms; `net` is the client time outside
 * api's server span (half before, half after).
 */
function request(
  id: string,
  o: { apiSelf: number; net: number; db: number; mysql: number },
): CauseSpan[] {
  const span = (
    spanId: string,
    parentSpanId: string,
    service: string,
    operation: string,
    kind: string,
    host: string,
    startMs: number,
    durationMs: number,
    peer = '',
  ): CauseSpan => ({
    spanId: `${id}-${spanId}`,
    parentSpanId: parentSpanId === '' ? '' : `${id}-${parentSpanId}`,
    service,
    operation,
    kind,
    host,
    peer,
    startMs,
    durationMs,
  });
  const apiMs = o.apiSelf + o.db + o.mysql + 0.2;
  const callMs = apiMs + o.net;
  const apiStart = 1 + o.net / 2;
  const dbcStart = apiStart + o.apiSelf / 2;
  const dbcEnd = dbcStart + o.db + 0.1;
  return [
    span('root', '', 'frontend', 'GET /', 'Server', 'fe-1', 0, callMs + 2),
    span('call', 'root', 'frontend', 'GET /api', 'Client', 'fe-1', 1, callMs),
    span('api', 'call', 'api', 'GET /api', 'Server', 'api-1', apiStart, apiMs),
    span('dbc', 'api', 'api', 'query', 'Client', 'api-1', dbcStart, dbcEnd - dbcStart),
    span('db', 'dbc', 'db', 'query', 'Server', 'db-1', dbcStart + 0.05, o.db),
    span('sql', 'api', 'api', 'SQL SELECT', 'Client', 'api-1', dbcEnd, o.mysql, 'mysql'),
  ];
}

const base = { apiSelf: 2, net: 0.2, db: 3, mysql: 3 };
const band = (n: number, o: typeof base, tag: string): CauseSpan[][] =>
  Array.from({ length: n }, (_, i) => request(`${tag}${i}`, o));

describe('rankRootCauses', () => {
  it("names the callee whose own time rose while its callees' did not", () => {
    const top = rankRootCauses(band(20, { ...base, apiSelf: 30 }, 's'), band(20, base, 't'))[0];
    expect(top).toMatchObject({ service: 'api', host: 'api-1', operation: 'GET /api' });
    expect(top?.evidence.kind).toBe('self');
    expect(top?.score).toBeGreaterThan(0.95);
    expect(top?.evidence.deltaMs).toBeCloseTo(28, 6);
    expect(top?.evidence.tiedWith).toEqual([]);
  });

  it('names the callee, not the caller, when only the callee of the callee is slow', () => {
    const top = rankRootCauses(band(10, { ...base, db: 40 }, 's'), band(10, base, 't'))[0];
    expect(top).toMatchObject({ service: 'db', host: 'db-1' });
    expect(top?.score).toBeGreaterThan(0.95);
  });

  it('names network or queueing when the client waits outside a steady server span', () => {
    const top = rankRootCauses(band(10, { ...base, net: 25 }, 's'), band(10, base, 't'))[0];
    expect(top).toMatchObject({ service: 'api', host: 'api-1' });
    expect(top?.operation).toBeUndefined();
    expect(top?.evidence.kind).toBe('network');
    expect(top?.cause).toMatch(/^network or queueing before api on api-1/);
    expect(top?.score).toBeGreaterThan(0.95);
  });

  it("counts an uninstrumented call for its caller when the caller's own time rose with it", () => {
    const causes = rankRootCauses(
      band(10, { ...base, apiSelf: 20, mysql: 30 }, 's'),
      band(10, base, 't'),
    );
    expect(causes[0]).toMatchObject({ service: 'api', host: 'api-1', operation: 'GET /api' });
    expect(causes[0]?.evidence.foldedMs).toBeCloseTo(27, 6);
    expect(causes[0]?.score).toBeGreaterThan(0.95);
    expect(causes.some((c) => c.service === 'mysql')).toBe(false);
  });

  it('keeps an uninstrumented call its own candidate when its caller stayed steady', () => {
    const top = rankRootCauses(band(10, { ...base, mysql: 30 }, 's'), band(10, base, 't'))[0];
    expect(top).toMatchObject({ service: 'mysql', host: 'api-1', operation: 'SQL SELECT' });
    expect(top?.evidence.kind).toBe('uninstrumented');
  });

  it('says when two candidates cannot be told apart', () => {
    const causes = rankRootCauses(
      band(10, { ...base, apiSelf: 22, db: 23 }, 's'),
      band(10, base, 't'),
    );
    expect(
      causes
        .slice(0, 2)
        .map((c) => c.service)
        .sort(),
    ).toEqual(['api', 'db']);
    expect(Math.abs((causes[0]?.score ?? 0) - (causes[1]?.score ?? 0))).toBeLessThan(0.1);
    expect(causes[0]?.cause).toMatch(/cannot be told apart from/);
    expect(causes[0]?.evidence.tiedWith).toHaveLength(1);
    // Far apart: no tie.
    const clear = rankRootCauses(
      band(10, { ...base, apiSelf: 40, db: 6 }, 's'),
      band(10, base, 't'),
    );
    expect(clear[0]?.evidence.tiedWith).toEqual([]);
  });

  it('finds nothing when nothing got slower, or a band is empty', () => {
    expect(rankRootCauses(band(10, base, 's'), band(10, base, 't'))).toEqual([]);
    expect(rankRootCauses([], band(10, base, 't'))).toEqual([]);
  });

  it('does not depend on the order of spans or traces', () => {
    const slow = band(8, { ...base, apiSelf: 10, net: 6 }, 's');
    const typical = band(8, base, 't');
    const a = rankRootCauses(slow, typical);
    const b = rankRootCauses(
      [...slow].reverse().map((t) => [...t].reverse()),
      [...typical].reverse().map((t) => [...t].reverse()),
    );
    expect(b).toEqual(a);
  });
});

describe('criticalPathDifference', () => {
  it("shows the callee's time growing, its network part apart, largest first", () => {
    const rows = criticalPathDifference(band(10, { ...base, net: 25 }, 's'), band(10, base, 't'));
    expect(rows[0]?.service).toBe('api');
    expect(rows[0]?.deltaMs).toBeCloseTo(24.8, 6);
    expect(rows[0]?.networkDeltaMs).toBeCloseTo(24.8, 6);
    // Every other service's path time is the same in both bands.
    for (const r of rows.slice(1)) expect(Math.abs(r.deltaMs)).toBeLessThan(1e-9);
  });

  it("counts a service's own time and its uninstrumented callee's separately", () => {
    const rows = criticalPathDifference(band(10, { ...base, mysql: 30 }, 's'), band(10, base, 't'));
    expect(rows.map((r) => r.service)[0]).toBe('mysql');
    expect(rows[0]?.deltaMs).toBeCloseTo(27, 6);
    expect(rows[0]?.networkDeltaMs).toBe(0);
  });

  it('is empty without both bands and keeps at most `max` rows', () => {
    expect(criticalPathDifference([], band(3, base, 't'))).toEqual([]);
    expect(criticalPathDifference(band(3, base, 's'), band(3, base, 't'), 2)).toHaveLength(2);
  });
});
