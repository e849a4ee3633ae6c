import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longTests } from '../../scripts/test.mjs';

/**
 * scripts/long-tests.txt names the test files `npm test` leaves to `npm run test:full` (by file
 * name, excluded as `**\/name`). A renamed or deleted file would leave a line that excludes
 * nothing, and a second file of the same name would be left out unseen: each line must name
 * exactly one test file in the repository.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git', 'artifacts', 'coverage']);

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

describe('the long test tier', () => {
  // The very list `npm test` excludes (scripts/test.mjs reads it).
  const names = longTests();
  const all = ['apps', 'packages', 'bench', 'collectors'].flatMap((d) => files(join(root, d)));

  it('names test files, each exactly one in the repository', () => {
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) {
      expect(n, n).toMatch(/\.test\.(ts|tsx|mjs)$/);
      const found = all.filter((f) => f.endsWith(`/${n}`));
      expect(found, n).toHaveLength(1);
    }
  });
});
