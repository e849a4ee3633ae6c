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

describe('the analysis entry', () => {
  const entry = readFileSync(join(root, 'packages/analysis/src/index.ts'), 'utf8');
  const exported = [...entry.matchAll(/export\s*\{([^}]*)\}\s*from/g)].flatMap((m) =>
    names(m[1] ?? '', 'right'),
  );

  it('re-exports named lists only (no export *)', () => {
    expect(entry).not.toMatch(/export\s*\*/);
    expect(exported.length).toBeGreaterThan(50);
  });

  it('exports exactly the names used outside the package', () => {
    const used = new Set<string>();
    for (const top of ['apps', 'bench', 'collectors', 'scripts', 'packages']) {
      for (const f of sources(join(root, top))) {
        if (f.includes('/packages/analysis/')) continue;
        const text = readFileSync(f, 'utf8');
        const re = /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'@tailscope\/analysis'/g;
        for (const m of text.matchAll(re)) for (const n of names(m[1] ?? '', 'left')) used.add(n);
      }
    }
    const unused = exported.filter((n) => !used.has(n));
    expect(unused, 'exported by the entry but imported by no app, bench or package').toEqual([]);
    expect(new Set(exported).size).toBe(exported.length);
  });
});
