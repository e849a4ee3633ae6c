import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { groupEpisodes, type IncidentEpisode } from './group';
import { rankRootCauses, type CauseSpan } from './causes';

/** Properties of the incident grouping and ranking over random inputs (fixed seeds). */

const SERVICES = ['a', 'b', 'c', 'd', 'e'];
const episode = fc
  .record({
    service: fc.constantFrom(...SERVICES),
    from: fc.integer({ min: 0, max: 20 }),
    len: fc.integer({ min: 1, max: 5 }),
    ratio: fc.double({ min: 1.5, max: 50, noNaN: true }),
    caller: fc.option(fc.constantFrom(...SERVICES), { nil: undefined }),
  })
  .map((r): IncidentEpisode => ({
    service: r.service,
    host: r.caller === undefined ? `${r.service}-0` : '*',
    ...(r.caller === undefined ? {} : { kind: 'edge' as const, parentService: r.caller }),
    fromMs: r.from * 10,
    toMs: (r.from + r.len) * 10,
    ratio: r.ratio,
    calls: 10,
  }));
const edge = fc.record({
  caller: fc.constantFrom(...SERVICES),
  callee: fc.constantFrom(...SERVICES),
});

test.prop([fc.array(episode, { maxLength: 12 }), fc.array(edge, { maxLength: 6 }), fc.nat()], {
  numRuns: 200,
  // Fixed (house style): this seed reaches two episodes of one series and start with different
  // ends, which once came out in either order; 20,000 runs of seed 7 found nothing else.
  seed: -1375083663,
})('groups partition the episodes, whatever their order', (episodes, edges, seed) => {
  const groups = groupEpisodes(episodes, edges);
  expect(groups.flatMap((g) => g.episodes)).toHaveLength(episodes.length);
  for (const g of groups) {
    expect(g.fromMs).toBe(Math.min(...g.episodes.map((e) => e.fromMs)));
    expect(g.toMs).toBe(Math.max(...g.episodes.map((e) => e.toMs)));
  }
  // No two groups hold episodes that should have been joined.
  const adjacent = (x: string, y: string): boolean =>
    x === y ||
    edges.some((e) => (e.caller === x && e.callee === y) || (e.caller === y && e.callee === x)) ||
    episodes.some(
      (e) =>
        (e.parentService === x && e.service === y) || (e.parentService === y && e.service === x),
    );
  for (const [i, g] of groups.entries())
    for (const h of groups.slice(i + 1))
      for (const a of g.episodes)
        for (const b of h.episodes)
          expect(a.fromMs <= b.toMs && b.fromMs <= a.toMs && adjacent(a.service, b.service)).toBe(
            false,
          );
  const rotated = episodes.map((_, i) => episodes[(i + seed) % episodes.length] as IncidentEpisode);
  expect(groupEpisodes([...rotated].reverse(), [...edges].reverse())).toEqual(groups);
});

/** A chain root -> s1 -> s2 with random own times; s2 answered by a SERVER span. */
const chain = fc
  .record({
    root: fc.double({ min: 0.1, max: 5, noNaN: true }),
    s1: fc.double({ min: 0, max: 50, noNaN: true }),
    s2: fc.double({ min: 0.1, max: 50, noNaN: true }),
    net: fc.double({ min: 0, max: 20, noNaN: true }),
  })
  .map((o) => (id: string): CauseSpan[] => {
    const s = (
      spanId: string,
      parent: string,
      service: string,
      kind: string,
      start: number,
      dur: number,
    ): CauseSpan => ({
      spanId: `${id}${spanId}`,
      parentSpanId: parent === '' ? '' : `${id}${parent}`,
      service,
      operation: 'op',
      kind,
      host: `${service}-0`,
      peer: '',
      startMs: start,
      durationMs: dur,
    });
    const s2Start = o.root + o.s1 + o.net;
    return [
      s('r', '', 'root', 'Server', 0, 2 * o.root + o.s1 + 2 * o.net + o.s2),
      s('c', 'r', 'root', 'Client', o.root, o.s1 + 2 * o.net + o.s2),
      s('s', 'c', 'svc', 'Server', o.root + o.net, o.s1 + o.s2),
      s('x', 's', 'svc', 'Internal', s2Start, o.s2 - 0.05),
    ];
  });

test.prop(
  [
    fc.array(chain, { minLength: 1, maxLength: 6 }),
    fc.array(chain, { minLength: 1, maxLength: 6 }),
  ],
  {
    numRuns: 200,
    seed: 20261203,
  },
)(
  'scores are shares of the extra time: in (0, 1], summing to at most 1, best first',
  (slow, typical) => {
    const causes = rankRootCauses(
      slow.map((t, i) => t(`s${i}`)),
      typical.map((t, i) => t(`t${i}`)),
      { minScore: 0, maxCandidates: 100 },
    );
    const total = causes.reduce((s, c) => s + c.score, 0);
    expect(total).toBeLessThanOrEqual(1 + 1e-9);
    if (causes.length > 0) expect(total).toBeCloseTo(1, 9);
    for (const [i, c] of causes.entries()) {
      expect(c.score).toBeGreaterThan(0);
      expect(c.evidence.deltaMs).toBeGreaterThan(0);
      if (i > 0) expect(c.score).toBeLessThanOrEqual(causes[i - 1]?.score ?? 1);
    }
  },
);
