import { describe, expect, it } from 'vitest';
import { groupEpisodes, withRootEpisodes, type IncidentEpisode } from './group';

const ep = (
  service: string,
  fromMs: number,
  toMs: number,
  extra: Partial<IncidentEpisode> = {},
): IncidentEpisode => ({
  service,
  host: `${service}-0`,
  fromMs,
  toMs,
  ratio: 2,
  calls: 10,
  ...extra,
});

const graph = [
  { caller: 'frontend', callee: 'customer' },
  { caller: 'customer', callee: 'mysql' },
  { caller: 'frontend', callee: 'route' },
];

describe('groupEpisodes', () => {
  it('joins co-occurring episodes along call edges into one group', () => {
    const g = groupEpisodes(
      [
        ep('customer', 100, 200, { ratio: 30 }),
        ep('customer', 100, 200, { kind: 'edge', host: '*', parentService: 'frontend' }),
        ep('mysql', 110, 190, { ratio: 40 }),
      ],
      graph,
    );
    expect(g).toHaveLength(1);
    expect(g[0]).toMatchObject({ fromMs: 100, toMs: 200, services: ['customer', 'mysql'] });
    expect(g[0]?.episodes[0]?.service).toBe('mysql');
  });

  it('keeps apart episodes that do not co-occur, or whose services do not call each other', () => {
    const g = groupEpisodes(
      [ep('customer', 100, 200), ep('mysql', 300, 400), ep('route', 100, 200)],
      graph,
    );
    expect(g.map((x) => x.services)).toEqual([['customer'], ['route'], ['mysql']]);
  });

  it('joins touching windows, and chains transitively', () => {
    const g = groupEpisodes(
      [ep('frontend', 0, 100), ep('customer', 100, 150), ep('mysql', 150, 300)],
      graph,
    );
    expect(g).toHaveLength(1);
    expect(g[0]).toMatchObject({ fromMs: 0, toMs: 300 });
  });

  it('learns call edges from edge episodes, and does not depend on input order', () => {
    const list = [
      ep('b', 0, 10, { kind: 'edge', parentService: 'a', host: '*' }),
      ep('a', 5, 20),
      ep('c', 50, 60),
    ];
    const g1 = groupEpisodes(list, []);
    const g2 = groupEpisodes([...list].reverse(), []);
    expect(g1).toEqual(g2);
    expect(g1.map((x) => x.services)).toEqual([['a', 'b'], ['c']]);
  });
});

describe('withRootEpisodes', () => {
  const root = (fromMs: number, toMs: number, ratio = 3): IncidentEpisode =>
    ep('frontend', fromMs, toMs, {
      kind: 'root',
      host: '*',
      operation: 'HTTP GET /dispatch',
      ratio,
    });

  it('gives a root episode to the group it overlaps, keeping the group window', () => {
    const groups = groupEpisodes([ep('customer', 100, 200, { ratio: 2 })], graph);
    const g = withRootEpisodes(groups, [root(90, 210, 5)]);
    expect(g).toHaveLength(1);
    expect(g[0]).toMatchObject({ fromMs: 100, toMs: 200, services: ['customer'] });
    expect(g[0]?.episodes.map((e) => e.kind ?? 'callee')).toEqual(['root', 'callee']);
  });

  it('makes root episodes touching no group incidents of their own', () => {
    const groups = groupEpisodes([ep('customer', 100, 200)], graph);
    const g = withRootEpisodes(groups, [root(300, 400), root(400, 420)]);
    expect(g.map((x) => [x.fromMs, x.toMs, x.services])).toEqual([
      [100, 200, ['customer']],
      [300, 420, ['frontend']],
    ]);
  });

  it('gives a root episode over two groups to the one it overlaps most', () => {
    const groups = groupEpisodes([ep('customer', 100, 150), ep('route', 150, 300)], graph);
    const g = withRootEpisodes(groups, [root(140, 260)]);
    expect(g.map((x) => x.episodes.length)).toEqual([1, 2]);
    expect(withRootEpisodes(groups, [])).toEqual(groups);
  });
});
