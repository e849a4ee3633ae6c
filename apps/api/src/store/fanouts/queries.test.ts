import { describe, expect, it } from 'vitest';
import { backgroundWindowsSql, leafRowSql } from './leaves';
import { fanoutOperationsSql, hostWindowsSql } from './queries';
import { storeFanoutsSql, uncovered, type Coverage } from './stored';
import { fanoutWeightsCte } from './weighted';
import type { Sql } from '../sql/template';

/**
 * The fan-out SQL as a reviewer reads it: each builder's text and bound parameters, pinned as
 * files under __snapshots__/. Results are pinned by the int tests (analysis-sql.int.test.ts);
 * these show what a change does to the queries.
 */

const FROM = 1_700_000_000_000_000_000n;
const TO = FROM + 1_800_000_000_000n;
const LEAF = { fromNs: FROM, toNs: TO, leafService: 'kv', leafOperation: 'get' };
/** The first of three 10-minute chunks stored: stored rows, then live from the split. */
const PARTLY: Coverage = { splitNs: FROM + 600_000_000_000n, chunks: [['2833333', '17']] };
const FULLY: Coverage = {
  splitNs: TO,
  chunks: [
    ['2833333', '17'],
    ['2833334', '17'],
    ['2833335', '17'],
  ],
};

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
  expect(document(q)).toMatchFileSnapshot(`__snapshots__/fanouts-${name}.sql`);

describe('fan-out SQL builders', () => {
  it('operations table: live, partly stored, fully stored', async () => {
    const scope = { fromNs: FROM, toNs: TO };
    await snap(fanoutOperationsSql(scope, uncovered(scope), { seed: 11 }), 'operations-live');
    await snap(
      fanoutOperationsSql({ ...scope, parentService: 'front' }, PARTLY, {
        seed: 11,
        thresholdMs: 15,
      }),
      'operations-partly-stored',
    );
    await snap(fanoutOperationsSql(scope, FULLY, { seed: 11 }), 'operations-stored');
  });

  it('host windows, partly stored', async () => {
    await snap(hostWindowsSql(LEAF, PARTLY, 5000), 'host-windows');
  });

  it('leaf calls: live with attributes, partly stored without; background windows', async () => {
    const base = FROM - 60_000_000_000n;
    const o = { maxFanouts: 200_000, baseNs: base };
    await snap(
      leafRowSql(LEAF, uncovered(LEAF), { ...o, attributeKeys: ['zone', 'rack'] }),
      'leaf-row-live',
    );
    await snap(leafRowSql(LEAF, PARTLY, { ...o, attributeKeys: [] }), 'leaf-row-partly-stored');
    await snap(backgroundWindowsSql(LEAF, base), 'background-windows');
  });

  it('weighted by sampling: host windows and leaf calls, partly stored', async () => {
    const base = FROM - 60_000_000_000n;
    await snap(hostWindowsSql(LEAF, PARTLY, 5000, fanoutWeightsCte(LEAF)), 'host-windows-weighted');
    await snap(
      leafRowSql(LEAF, PARTLY, {
        maxFanouts: 200_000,
        baseNs: base,
        attributeKeys: [],
        weights: true,
      }),
      'leaf-row-weighted',
    );
  });

  it('storing the fan-outs of closed chunks', async () => {
    await snap(storeFanoutsSql({ fromNs: FROM, toNs: TO }, 1_700_000_000_000_000_123n), 'store');
  });

  it('binds every value: names from the scope never become SQL text', () => {
    const evil = "kv' OR 1=1 --";
    const scope = { ...LEAF, leafService: evil, leafOperation: evil, parentService: evil };
    const queries = [
      fanoutOperationsSql(scope, PARTLY, { seed: 1 }),
      hostWindowsSql(scope, PARTLY, 1000),
      hostWindowsSql(scope, PARTLY, 1000, fanoutWeightsCte(scope)),
      leafRowSql(scope, uncovered(scope), {
        attributeKeys: [evil],
        maxFanouts: 10,
        baseNs: FROM,
      }),
      storeFanoutsSql(scope, 1n),
    ];
    for (const q of queries) {
      expect(q.text).not.toContain(evil);
      expect(Object.values(q.params)).toContain(evil);
      // Every placeholder has its parameter and every parameter its placeholder.
      const used = new Set([...q.text.matchAll(/\{(p\d+):/g)].map((m) => m[1]));
      expect(used).toEqual(new Set(Object.keys(q.params)));
    }
  });

  it('refuses stored rows when attributes are asked for (they are never stored)', () => {
    expect(() =>
      leafRowSql(LEAF, PARTLY, { attributeKeys: ['zone'], maxFanouts: 10, baseNs: FROM }),
    ).toThrow(/no attributes/);
  });
});
