import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { afterAll, expect, it } from 'vitest';
import { openReadSession } from '../src/store/engine/read-session';

/**
 * The read session takes its values as session settings (`SET param_<name>`) while the first
 * session binds them per query, and the two run at once (read-session.ts). Were parameter state
 * shared between sessions, a read would answer with another query's value: a trace read with
 * another trace's id. Both sessions here ask for the same parameter name, each query with a value
 * of its own, many times over while the other runs; every answer must echo its own value.
 */

const dir = mkdtempSync(join(tmpdir(), 'tailscope-read-session-'));
const path = join(dir, 'clickhouse');
type Connection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;
// chdb types the connection against its own copy of the client's declarations (client.ts).
const as = (c: unknown): Connection => c as Connection;
const first = createClient({ connection: as(createChdbConnection({ path })) });
const reader = createClient({ connection: as(openReadSession(path)) });

afterAll(async () => {
  await reader.close();
  await first.close();
  rmSync(dir, { recursive: true, force: true });
});

async function echoes(
  on: ClickHouseClient,
  tag: string,
  n: number,
  from: string,
): Promise<string[]> {
  const wrong: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `${tag}-${i}-'\\\t${'x'.repeat(i % 7)}`;
    const rs = await on.query({
      query: `SELECT {id:String} AS id, {n:UInt32} AS n, sum(number) AS s FROM numbers(${from})`,
      query_params: { id, n: i },
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ id: string; n: number | string }>();
    if (row?.id !== id || Number(row.n) !== i) wrong.push(`${tag} ${i}: ${JSON.stringify(row)}`);
  }
  return wrong;
}

it('keeps each session its own parameter values while both run', async () => {
  // The first session's queries are the longer ones (as an analysis beside a trace read), so
  // many reads run while one of them is bound.
  const wrong = await Promise.all([
    echoes(first, 'first-a', 150, '2000000'),
    echoes(first, 'first-b', 150, '2000000'),
    echoes(reader, 'read', 600, '1000'),
  ]);
  expect(wrong.flat()).toEqual([]);
}, 120_000);
