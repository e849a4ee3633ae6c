import { describe, expect, it } from 'vitest';
import { callCtes } from '../sql/calls';
import { duplicatesSql, edgesSql, skewSql } from './sql';
import { edgesInScope, storeEdgesSql } from './stored';
import { uncovered, type Coverage } from '../fanouts/stored';
import { withCtes } from '../sql/ctes';
import { raw, type Sql } from '../sql/template';

/**
 * The calls and edges SQL as a reviewer reads it, pinned under __snapshots__/ (results are
 * pinned by apps/api/test/calls-sql.int.test.ts against the TypeScript reference).
 */

const FROM = 1_700_000_000_000_000_000n;
const TO = FROM + 1_800_000_000_000n;

/** The text, then one `-- name: Type = value` line per parameter. */
function document(q: Sql): string {
  const types = new Map([...q.text.matchAll(/\{(p\d+):([^}]+)\}/g)].map((m) => [m[1], m[2]]));
  const params = Object.entries(q.params).map(
    ([k, v]) => `-- ${k}: ${types.get(k) ?? '?'} = ${JSON.stringify(v)}`,
  );
  const text = q.text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l, i) => i > 0 || l !== '')
    .join('\n');
  return `${text}\n\n${params.join('\n')}\n`;
}

const snap = (q: Sql, name: string) =>
  expect(document(q)).toMatchFileSnapshot(`__snapshots__/${name}.sql`);

describe('calls and edges SQL builders', () => {
  it('calls with attribute columns', async () => {
    await snap(
      withCtes(callCtes({ fromNs: FROM, toNs: TO }, ['zone']), raw('SELECT * FROM calls')),
      'calls',
    );
  });

  it('edges (live, partly stored), skew and duplicates', async () => {
    const scope = { fromNs: FROM, toNs: TO, parentService: 'frontend', leafService: 'route' };
    await snap(edgesSql(edgesInScope(scope, uncovered(scope))), 'edges');
    const partly: Coverage = { splitNs: FROM + 600_000_000_000n, chunks: [['2833333', '17']] };
    await snap(edgesSql(edgesInScope(scope, partly)), 'edges-partly-stored');
    await snap(skewSql(edgesInScope(scope, uncovered(scope))), 'edges-skew');
    await snap(duplicatesSql({ fromNs: FROM, toNs: TO }), 'edges-duplicates');
    await snap(storeEdgesSql({ fromNs: FROM, toNs: TO }, 17n), 'edges-store');
    // A scope alone (the edges-ready signature) means live detection of all of it.
    expect(edgesSql(scope)).toEqual(edgesSql(edgesInScope(scope, uncovered(scope))));
    expect(skewSql(scope)).toEqual(skewSql(edgesInScope(scope, uncovered(scope))));
  });
});
