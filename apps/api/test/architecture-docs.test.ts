import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md draws the dependency rules of .dependency-cruiser.cjs as tables (who may
 * import whom). This test evaluates the rules themselves for every pair of rows, as
 * dependency-cruiser matches them (from.path/pathNot, then to.path/pathNot with the from
 * match's groups), and asserts each table says the same, so neither can drift from the other.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Side {
  path?: string | string[];
  pathNot?: string | string[];
  circular?: boolean;
}
interface Rule {
  name: string;
  from: Side;
  to: Side;
}

const rules = (
  createRequire(import.meta.url)(`${root}.dependency-cruiser.cjs`) as { forbidden: Rule[] }
).forbidden.filter((r) => r.to.circular === undefined);

const list = (p: string | string[] | undefined): string[] =>
  p === undefined ? [] : Array.isArray(p) ? p : [p];

/** The rules that forbid an import of `to` by `from` (paths from the repository root). */
function forbiddenBy(from: string, to: string): string[] {
  return rules
    .filter((r) => {
      const groups = list(r.from.path)
        .map((p) => new RegExp(p).exec(from))
        .find((m) => m !== null);
      if (list(r.from.path).length > 0 && !groups) return false;
      if (list(r.from.pathNot).some((p) => new RegExp(p).test(from))) return false;
      const fill = (p: string) => p.replace(/\$(\d)/g, (_, i: string) => groups?.[Number(i)] ?? '');
      if (!list(r.to.path).some((p) => new RegExp(fill(p)).test(to))) return false;
      return !list(r.to.pathNot).some((p) => new RegExp(fill(p)).test(to));
    })
    .map((r) => r.name);
}

const doc = readFileSync(`${root}docs/architecture.md`, 'utf8');

/** The rows of the table under `heading`: first cell's name -> the names in the last cell. */
function table(heading: string): Map<string, string[]> {
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  if (!section) throw new Error(`no section ${heading}`);
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const name = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!name) continue;
    const last = cells[cells.length - 2] ?? '';
    rows.set(
      name,
      last === 'nothing' ? [] : [...last.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''),
    );
  }
  return rows;
}

const dirs = (path: string): string[] =>
  readdirSync(`${root}${path}`).filter((d) => statSync(`${root}${path}/${d}`).isDirectory());

describe('docs/architecture.md agrees with .dependency-cruiser.cjs', () => {
  it('lists every workspace, and what each may import is what the rules allow', () => {
    const rows = table('Workspaces');
    const workspaces = [
      ...dirs('packages').map((d) => `packages/${d}`),
      ...dirs('apps').map((d) => `apps/${d}`),
      'collectors',
      'bench',
    ];
    expect([...rows.keys()].filter((w) => w !== 'apps/web/e2e').sort()).toEqual(workspaces.sort());
    const sample = (w: string) =>
      w === 'bench' || w.endsWith('/e2e') ? `${w}/x.ts` : `${w}/src/x.ts`;
    const entry = (w: string) => (w === 'bench' ? 'bench/src/index.ts' : `${w}/src/index.ts`);
    for (const [from, may] of rows) {
      const home = from.replace(/\/e2e$/, '');
      const allowed = workspaces.filter(
        (to) => to !== home && forbiddenBy(sample(from), entry(to)).length === 0,
      );
      expect({ from, may: allowed.sort() }).toEqual({ from, may: [...may].sort() });
    }
  });

  it('lists every what-if folder, and what each may import is what the rules allow', () => {
    const rows = table('The what-if engine');
    const whatif = 'packages/analysis/src/whatif';
    const folders = [
      ...dirs(whatif).filter((d) => d !== 'request' && d !== 'testing'),
      ...dirs(`${whatif}/request`).map((d) => `request/${d}`),
    ];
    expect([...rows.keys()].sort()).toEqual(folders.sort());
    for (const [from, may] of rows) {
      const allowed = folders.filter(
        (to) =>
          to !== from &&
          forbiddenBy(`${whatif}/${from}/x.ts`, `${whatif}/${to}/index.ts`).length === 0,
      );
      expect({ from, may: allowed.sort() }).toEqual({ from, may: [...may].sort() });
    }
  });

  it('lists every apps/api folder, and what each may import is what the rules allow', () => {
    const rows = table('apps/api');
    const api = 'apps/api/src';
    const folders = dirs(api);
    expect([...rows.keys()].sort()).toEqual(folders.sort());
    for (const [from, may] of rows) {
      const allowed = folders.filter(
        (to) =>
          to !== from && forbiddenBy(`${api}/${from}/x.ts`, `${api}/${to}/index.ts`).length === 0,
      );
      expect({ from, may: allowed.sort() }).toEqual({ from, may: [...may].sort() });
    }
    // The two compositions besides server/ itself, and tests, may import it.
    expect(forbiddenBy(`${api}/report/run.ts`, `${api}/server/app.ts`)).toEqual([]);
    expect(forbiddenBy(`${api}/store/x.test.ts`, `${api}/server/app.ts`)).toEqual([]);
    expect(forbiddenBy(`${api}/store/budget.ts`, `${api}/server/errors.ts`)).toEqual([
      'api-server-is-the-root',
    ]);
  });

  it('evaluates the rules as dependency-cruiser does (a known violation is one)', () => {
    expect(forbiddenBy('packages/charts/src/x.ts', 'apps/api/src/index.ts')).toContain(
      'packages-not-apps',
    );
    expect(forbiddenBy('apps/api/src/x.ts', 'packages/analysis/src/whatif/index.ts')).toContain(
      'entry-only',
    );
    expect(forbiddenBy('apps/api/src/index.ts', 'apps/api/src/server/index.ts')).toEqual([]);
  });
});
