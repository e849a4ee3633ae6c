import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustedCount, SeededRandom } from '@tailscope/analysis';
import { openStore, type Store } from '../engine/client';
import { adjustedCountSql, hasSamplingInfoSql } from './sampling';
import { sql } from '../sql/template';

/** TraceStates the SQL must read exactly as the TypeScript parser does. */
function traceStates(): string[] {
  const fixed = [
    '',
    'ot=th:0',
    'ot=th:8',
    'ot=th:c',
    'ot=th:aaaaaaaaaaaaab',
    'ot=th:ffffffffffffff',
    'ot=th:fffffffffffff',
    'ot=th:1',
    'ot=th:00000000000001',
    'congo=t61rcWkgMzE, ot=rv:abcdefabcdefab;th:4,rojo=00f067aa0ba902b7',
    'rojo=1,ot=th:8 ',
    'rojo=1,\tot=th:8',
    'ot=th:',
    'ot=th:123456789abcdef',
    'ot=th:ABC',
    'ot=th:8x',
    'ot=p:8;th:2',
    'ot=th:2;th:4',
    'xot=th:8',
    'ot=rv:11;foo:bar',
  ];
  const r = new SeededRandom(13);
  const hex = '0123456789abcdef';
  for (let i = 0; i < 200; i++) {
    const n = 1 + r.below(14);
    let h = '';
    for (let j = 0; j < n; j++) h += hex[r.below(16)] ?? '0';
    fixed.push(`ot=th:${h}`);
  }
  return fixed;
}

describe('sampling threshold in SQL', () => {
  let dir: string;
  let store: Store;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-sampling-'));
    store = openStore({ dataDir: dir });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the adjusted count the TypeScript reference gives, bit for bit', async () => {
    const states = traceStates();
    const rows = await store.query<{ ts: string; w: number | string; info: number | string }>(sql`
      SELECT ts, ${adjustedCountSql('ts')} AS w, ${hasSamplingInfoSql('ts')} AS info
      FROM (SELECT arrayJoin(${states}) AS ts)`);
    expect(rows).toHaveLength(states.length);
    for (const row of rows) {
      const expected = adjustedCount(row.ts);
      expect({ ts: row.ts, w: Number(row.w), info: Number(row.info) }).toEqual({
        ts: row.ts,
        w: expected ?? 1,
        info: expected === null ? 0 : 1,
      });
    }
  });
});
