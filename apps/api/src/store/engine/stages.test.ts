import { describe, expect, it } from 'vitest';
import { withCtes } from '../sql/ctes';
import { raw } from '../sql/template';
import { splitStages } from './stages';

/** splitStages on the text withCtes writes: which steps become tables, and what is left. */

const cte = (name: string, body: string, materialize = false) => ({
  name,
  body: raw(`\n  ${body}`),
  materialize,
});

/** The stage table names of a split, with the `_ts_stage_<n>_` prefix taken off. */
const bare = (text: string): string => text.replace(/_ts_stage_\d+_/g, '');

describe('splitStages', () => {
  it('leaves a query without marks alone', () => {
    expect(splitStages(withCtes([cte('a', 'SELECT 1')], raw('SELECT * FROM a')).text)).toBeNull();
  });

  it('takes the marked steps out, in order, and points the query at their tables', () => {
    const text = withCtes(
      [
        cte('ts_spans', "SELECT key FROM otel_traces WHERE name = 'a(b' AND x IN (1, 2)", true),
        cte('ts_wrappers', 'SELECT key FROM ts_spans WHERE key > 0', true),
        cte('calls', 'SELECT s.key FROM ts_spans AS s JOIN ts_wrappers AS w ON s.key = w.key'),
      ],
      raw('SELECT count() FROM calls, ts_spans_other'),
    ).text;
    const split = splitStages(text);
    expect(split).not.toBeNull();
    const { stages, main } = split as NonNullable<typeof split>;
    expect(stages.map((s) => bare(s.table))).toEqual(['ts_spans', 'ts_wrappers']);
    // Both tables of one split share its number, unlike another split's.
    const id = /_ts_stage_(\d+)_/.exec(stages[0]?.table ?? '')?.[1];
    expect(stages[1]?.table).toBe(`_ts_stage_${id}_ts_wrappers`);
    expect(splitStages(text)?.stages[0]?.table).not.toBe(stages[0]?.table);
    // A quoted parenthesis does not end the body.
    expect(stages[0]?.body.trim()).toBe(
      "SELECT key FROM otel_traces WHERE name = 'a(b' AND x IN (1, 2)",
    );
    expect(bare(stages[1]?.body ?? '').trim()).toBe('SELECT key FROM ts_spans WHERE key > 0');
    expect(stages[1]?.body).toContain(stages[0]?.table);
    // The query keeps its unmarked step; a longer name that starts the same is not renamed.
    expect(bare(main)).toBe(
      'WITH\ncalls AS (\n  SELECT s.key FROM ts_spans AS s JOIN ts_wrappers AS w ON s.key = w.key\n)\nSELECT count() FROM calls, ts_spans_other',
    );
    expect(main).not.toMatch(/(^|[^_])ts_spans AS s/);
  });

  it('drops the WITH keyword when every step was marked, and the comma before a last one', () => {
    const only = splitStages(withCtes([cte('a', 'SELECT 1', true)], raw('SELECT * FROM a')).text);
    expect(bare(only?.main ?? '')).toBe('SELECT * FROM a');
    const last = splitStages(
      withCtes([cte('b', 'SELECT 2'), cte('a', 'SELECT 1', true)], raw('SELECT * FROM a, b')).text,
    );
    expect(bare(last?.main ?? '')).toBe('WITH\nb AS (\n  SELECT 2\n)\nSELECT * FROM a, b');
  });

  it('keeps a query whole when a marked step reads a step left in it', () => {
    const text = withCtes(
      [cte('base', 'SELECT 1 AS x'), cte('m', 'SELECT x FROM base', true)],
      raw('SELECT * FROM m'),
    ).text;
    expect(splitStages(text)).toBeNull();
  });

  it('works inside the statement that embeds the query (INSERT ... WITH ... SELECT)', () => {
    const inner = withCtes([cte('a', 'SELECT 1 AS x', true)], raw('SELECT x FROM a'));
    const split = splitStages(`INSERT INTO t (x)\n${inner.text}`);
    expect(bare(split?.main ?? '')).toBe('INSERT INTO t (x)\nSELECT x FROM a');
  });
});
