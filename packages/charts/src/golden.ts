// Test helper (never imported by the app): pins a chart view's SVG markup in a golden file.
// Numbers are rounded to one decimal and ids renumbered in order of appearance, so a golden file
// changes only when the drawing does, not when a float's last bit or React's id counter moves.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

export function normalizeSvg(markup: string): string {
  const ids: string[] = [];
  for (const m of markup.matchAll(/\sid="([^"]+)"/g))
    if (m[1] && !ids.includes(m[1])) ids.push(m[1]);
  let out = markup;
  // Only where ids live: id="…", references url(#…) / href="#…", and aria-*by lists.
  const name = new Map(ids.map((id, i) => [id, `id${i}`]));
  const rename = (id: string) => name.get(id) ?? id;
  out = out
    .replace(/(\sid=")([^"]+)"/g, (_m, a: string, id: string) => `${a}${rename(id)}"`)
    .replace(/#([^\s")]+)([")])/g, (m, id: string, end: string) =>
      name.has(id) ? `#${rename(id)}${end}` : m,
    )
    .replace(
      /(\saria-[a-z]+by=")([^"]+)"/g,
      (_m, a: string, list: string) => `${a}${list.split(' ').map(rename).join(' ')}"`,
    );
  out = out.replace(/-?\d+\.\d+(e[-+]?\d+)?/g, (s) => {
    const r = Math.round(Number(s) * 10) / 10;
    return String(Object.is(r, -0) ? 0 : r);
  });
  return indent(out);
}

/** One element per line, indented by depth: golden diffs read like the drawing's structure. */
function indent(markup: string): string {
  const parts = markup.split(/(?=<)|(?<=>)/g).filter((p) => p.trim() !== '');
  const lines: string[] = [];
  let depth = 0;
  // True while the last line is an opening tag or text with nothing nested after it yet.
  let leaf = false;
  for (const p of parts) {
    const last = lines.length - 1;
    if (p.startsWith('</')) {
      depth = Math.max(0, depth - 1);
      if (leaf && last >= 0) lines[last] = `${lines[last] ?? ''}${p}`;
      else lines.push(`${'  '.repeat(depth)}${p}`);
      leaf = false;
    } else if (p.startsWith('<')) {
      lines.push(`${'  '.repeat(depth)}${p}`);
      leaf = !p.endsWith('/>');
      if (leaf) depth++;
    } else {
      lines[last] = `${lines[last] ?? ''}${p}`;
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Renders `element` and compares it with `__golden__/<name>.golden.svg` beside the test.
 * With UPDATE_GOLDEN=1 the file is (re)written instead; a missing file is an error otherwise.
 */
export function matchGolden(
  testFileUrl: string,
  name: string,
  element: ReactElement,
): {
  actual: string;
  expected: string;
  path: string;
} {
  const dir = join(dirname(new URL(testFileUrl).pathname), '__golden__');
  const path = join(dir, `${name}.golden.svg`);
  const actual = normalizeSvg(renderToStaticMarkup(element));
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, actual);
    return { actual, expected: actual, path };
  }
  if (!existsSync(path))
    throw new Error(
      `golden file ${path} is missing: run the test with UPDATE_GOLDEN=1 to create it`,
    );
  return { actual, expected: readFileSync(path, 'utf8'), path };
}
