import { describe, expect, it } from 'vitest';
import { groupEpisodes, type IncidentEpisode } from './group';

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
