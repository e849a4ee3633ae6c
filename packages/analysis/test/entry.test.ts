import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The package entry (src/index.ts) exports what the apps, the benchmarks and the other packages
 * import, nothing else (issue 26). This test reads every named export of the entry and every
 * named import from '@tailscope/analysis' outside the package, and asserts the two lists agree,
 * so a name nobody uses any more cannot stay in the entry unnoticed.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git', '.cache', 'coverage']);

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The names in `{ a, type B, c as d }` lists: the exported (right-hand) or imported name. */
function names(list: string, side: 'left' | 'right'): string[] {
  return list
    .replace(/\/\/.*$/gm, '')
    .split(',')
    .map((n) => n.trim().replace(/^type\s+/, ''))
    .filter((n) => n !== '')
    .map((n) => {
      const [left, right] = n.split(/\s+as\s+/);
      return (side === 'right' ? (right ?? left) : left) ?? n;
    });
}

/** The named exports of one entry file. */
function exportsOf(file: string): string[] {
  const text = readFileSync(join(root, 'packages/analysis/src', file), 'utf8');
  expect(text).not.toMatch(/export\s*\*/);
  return [...text.matchAll(/export\s*\{([^}]*)\}\s*from/g)].flatMap((m) =>
    names(m[1] ?? '', 'right'),
  );
}

/** Every name imported from `specifier` by a file outside the package. */
function importedFrom(specifier: string): Set<string> {
  const used = new Set<string>();
  const quoted = specifier.replace(/\//g, '\\/');
  const re = new RegExp(
    `(?:import|export)\\s+(?:type\\s+)?\\{([^}]*)\\}\\s*from\\s*'${quoted}'`,
    'g',
  );
  for (const top of ['apps', 'bench', 'collectors', 'scripts', 'packages']) {
    for (const f of sources(join(root, top))) {
      if (f.includes('/packages/analysis/')) continue;
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(re)) for (const n of names(m[1] ?? '', 'left')) used.add(n);
    }
  }
  return used;
}

describe('the analysis entries', () => {
  const entry = exportsOf('index.ts');
  const testing = exportsOf('testing.ts');

  it('re-export named lists only (no export *), each name once', () => {
    expect(entry.length).toBeGreaterThan(50);
    expect(testing.length).toBeGreaterThan(5);
    expect(new Set(entry).size).toBe(entry.length);
    expect(entry.filter((n) => testing.includes(n))).toEqual([]);
  });

  it('the package entry exports exactly the names used outside the package', () => {
    const used = importedFrom('@tailscope/analysis');
    const unused = entry.filter((n) => !used.has(n));
    expect(unused, 'exported by the entry but imported by no app, bench or package').toEqual([]);
  });

  it('the testing entry exports exactly the names the benchmarks and tests use', () => {
    const used = importedFrom('@tailscope/analysis/testing');
    const unused = testing.filter((n) => !used.has(n));
    expect(unused, 'exported by testing.ts but imported by no bench or test').toEqual([]);
  });
});
