import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm install` warned EBADENGINE on the Node version the README promises (content-disposition@3
// and cookie@2 need Node 22): every locked package must accept the oldest Node we claim.

const root = join(import.meta.dirname, '..', '..', '..');
const readJson = (file: string): unknown => JSON.parse(readFileSync(join(root, file), 'utf8'));

type Version = [number, number, number];

function parse(text: string): { v: Version; wild: number } {
  const parts = text.replace(/^v/, '').split('.');
  const nums = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  const wild = nums.findIndex((n) => Number.isNaN(n));
  const given = wild === -1 ? nums.length : wild;
  return {
    v: [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 0].map((n, i) => (i < given ? n : 0)) as Version,
    wild: given,
  };
}

const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `v` satisfies one comparator (`>=20.19`, `^18.19.0`, `20`, `6.*`, `*`). */
function comparator(v: Version, c: string): boolean {
  const m = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(c);
  const op = m?.[1] ?? '';
  const { v: w, wild } = parse(m?.[2] ?? '*');
  const d = cmp(v, w);
  if (op === '>=') return d >= 0;
  if (op === '>') return d > 0;
  if (op === '<') return d < 0;
  if (op === '<=') return d <= 0;
  if (op === '^') return d >= 0 && v[0] === w[0];
  if (op === '~') return d >= 0 && v[0] === w[0] && v[1] === w[1];
  // A bare or partial version (`20`, `6.*`, `*`): every given part must match.
  return w.slice(0, wild).every((n, i) => n === v[i]);
}

/** Whether `version` satisfies a node-semver range of the kinds used by `engines.node`. */
function satisfies(version: string, range: string): boolean {
  const v = parse(version).v;
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '')
      .every((c) => comparator(v, c)),
  );
}

describe('Node engines', () => {
  const rootPackage = readJson('package.json') as { engines: { node: string } };
  const oldest = /^>=\s*(\d+\.\d+(\.\d+)?)$/.exec(rootPackage.engines.node)?.[1] ?? '';

  it('reads ranges as npm does', () => {
    expect(satisfies('20.19.0', '>=22')).toBe(false);
    expect(satisfies('20.19.0', '^20.19.0 || ^22.13.0 || >=24')).toBe(true);
    expect(satisfies('20.19.0', '^20.20.0 || >=22')).toBe(false);
    expect(satisfies('20.19.0', '18 || 20 || >=22')).toBe(true);
    expect(satisfies('20.19.0', '>=9.3.0 || >=8.10.0 <9.0.0')).toBe(true);
    expect(satisfies('20.19.0', '6.* || 8.* || >= 10.*')).toBe(true);
    expect(satisfies('20.19.0', '^16 || ^18')).toBe(false);
  });

  it('every locked package runs on the oldest Node the root package claims', () => {
    expect(oldest).toMatch(/^\d+\.\d+/);
    const lock = readJson('package-lock.json') as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => {
        const node = Array.isArray(p.engines) ? undefined : p.engines?.node;
        return node !== undefined && !satisfies(oldest, node);
      })
      .map(([path, p]) => `${path}@${p.version ?? ''}`);
    expect(refusing).toEqual([]);
  });

  it('the README names the same oldest Node', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`Node.js ${oldest} or newer`);
  });
});
