import { describe, expect, it } from 'vitest';
import { rankRootCauses, type CauseSpan } from './causes';

/**
 * A frontend request: its own work (`feSelf`), a call to a and one to b (the caller waits
 * `netA` / `netB` outside their server spans), then three calls to route one after another,
 * each after `gap` ms of the frontend's own time (waiting for a worker of a pool), route's own
 * time `routeSelf` each. Times in ms.
 */
function request(
  id: string,
  o: {
    feSelf: number;
    netA: number;
    netB: number;
    gap: number;
    routeSelf: number;
    wrapped?: boolean;
    /** The caller's wait outside each route server span (default 0.2). */
    netRoute?: number;
    /** Route calls on the path, one after another (default 3). */
    routeCalls?: number;
  },
): CauseSpan[] {
  const spans: CauseSpan[] = [];
  const add = (s: string, p: string, service: string, kind: string, start: number, d: number) =>
    spans.push({
      spanId: `${id}-${s}`,
      parentSpanId: p === '' ? '' : `${id}-${p}`,
      service,
      operation: `${service} op`,
      kind,
      host: service,
      peer: '',
      startMs: start,
      durationMs: d,
    });
  let t = o.feSelf;
  const call = (name: string, service: string, net: number, self: number) => {
    // HotROD's shape when wrapped: an INTERNAL wrapper over an INTERNAL call over the server.
    const parent = o.wrapped === true ? `${name}w` : 'root';
    if (o.wrapped === true) add(parent, 'root', 'frontend', 'Internal', t, net + self);
    add(`${name}c`, parent, 'frontend', o.wrapped === true ? 'Internal' : 'Client', t, net + self);
    add(`${name}s`, `${name}c`, service, 'Server', t + net / 2, self);
    t += net + self;
  };
  call('a', 'a', o.netA, 10);
  call('b', 'b', o.netB, 10);
  for (let i = 0; i < (o.routeCalls ?? 3); i++) {
    t += o.gap;
    call(`r${String(i)}`, 'route', o.netRoute ?? 0.2, o.routeSelf);
  }
  add('root', '', 'frontend', 'Server', 0, t + 1);
  return spans;
}

const base: Parameters<typeof request>[1] = { feSelf: 1, netA: 1, netB: 1, gap: 1, routeSelf: 10 };
const band = (n: number, o: typeof base, tag: string): CauseSpan[][] =>
  Array.from({ length: n }, (_, i) => request(`${tag}${String(i)}`, o));
const top = (slow: typeof base) => rankRootCauses(band(10, slow, 's'), band(10, base, 't'))[0];

describe('waits before a pooled call', () => {
  it('count for the callee when its own time rose (a slow callee keeps the pool busy)', () => {
    const c = top({ ...base, gap: 30, routeSelf: 50 });
    expect(c).toMatchObject({ service: 'route', evidence: { kind: 'self' } });
    expect(c?.evidence.queuedMs).toBeCloseTo(87, 6);
    expect(c?.cause).toMatch(/its callers waited before calling it/);
  });

  it('are found behind wrappers (HotROD: INTERNAL spans over INTERNAL calls)', () => {
    const slow = { ...base, gap: 30, routeSelf: 50, wrapped: true };
    const c = rankRootCauses(band(10, slow, 's'), band(10, { ...base, wrapped: true }, 't'))[0];
    expect(c).toMatchObject({ service: 'route', evidence: { kind: 'self' } });
    expect(c?.evidence.queuedMs).toBeCloseTo(87, 6);
  });

  it("stay the caller's when the callee is steady (the pool itself shrank)", () => {
    const c = top({ ...base, gap: 30 });
    expect(c).toMatchObject({ service: 'frontend', evidence: { kind: 'self' } });
    expect(c?.evidence.queuedMs).toBeUndefined();
  });

  it("stay the caller's when more of the same calls lie on the path (fewer workers)", () => {
    // One worker instead of three: six route calls one after another, each as fast as before.
    // Route's time per request doubles; no call got slower: the wait is the frontend's.
    const c = top({ ...base, gap: 30, routeCalls: 6 });
    expect(c).toMatchObject({ service: 'frontend', evidence: { kind: 'self' } });
    expect(c?.evidence.queuedMs).toBeUndefined();
  });

  it('count for the network before the callee when its calls grew outside its server spans', () => {
    // A congested link into route: each call waits 40 ms before route's server span, so the
    // pool's workers are held and the frontend waits for them.
    const causes = rankRootCauses(
      band(10, { ...base, gap: 30, netRoute: 40 }, 's'),
      band(10, base, 't'),
    );
    expect(causes[0]).toMatchObject({ service: 'route', evidence: { kind: 'network' } });
    expect(causes[0]?.evidence.queuedMs).toBeCloseTo(87, 6);
    expect(causes.some((c) => c.service === 'frontend')).toBe(false);
  });
});

describe('waits on several callees rising together', () => {
  it('count for the caller whose own time rose too (its process reads every answer late)', () => {
    const c = top({ ...base, feSelf: 20, netA: 40, netB: 40 });
    expect(c).toMatchObject({ service: 'frontend', evidence: { kind: 'self' } });
    expect(c?.evidence.waitsMs).toBeCloseTo(78, 6);
    expect(c?.score).toBeGreaterThan(0.95);
  });

  it("count for the caller with its pool's waits, when every call's wait rose (HotROD's frontend starved of CPU)", () => {
    const c = top({ ...base, feSelf: 20, netA: 40, netB: 40, netRoute: 40, gap: 30 });
    expect(c).toMatchObject({ service: 'frontend', evidence: { kind: 'self' } });
    expect(c?.score).toBeGreaterThan(0.9);
  });

  it("stay a starved callee's when its waits rose far more than the others' (HotROD's route under a burner)", () => {
    // Route starved: its calls wait 40 ms before its server span and take 5x; the machine's
    // bleed slows the frontend's own work and its other calls a little (x2 and +2 ms).
    const c = top({
      ...base,
      feSelf: 2,
      netA: 3,
      netB: 3,
      netRoute: 40,
      routeSelf: 50,
      gap: 30,
    });
    expect(c?.service).toBe('route');
    expect(c?.evidence.waitsMs).toBeUndefined();
  });

  it("stay the callee's when only its wait rose (its link)", () => {
    const c = top({ ...base, netA: 40 });
    expect(c).toMatchObject({ service: 'a', evidence: { kind: 'network' } });
    expect(c?.evidence.waitsMs).toBeUndefined();
  });

  it("stay each callee's when the caller's own time is steady", () => {
    const c = top({ ...base, netA: 40, netB: 40 });
    expect(c?.evidence.kind).toBe('network');
    expect(['a', 'b']).toContain(c?.service);
  });
});
