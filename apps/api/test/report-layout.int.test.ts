import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadDashboardCharts } from '../src/report/charts';
import { reportToHtml } from '../src/report/html';
import { findChromium } from '../src/report/pdf';
import type { Report } from '../src/report/types';

/**
 * The report's tables fit the page (issue 24: the summary's recommendation column was cut to
 * "ado" in HTML at 1280 px and to "a" in the PDF, because the dashboard stylesheet inlined for the
 * charts keeps table cells on one line). Chromium lays the real report out at a screen width and
 * at A4's printable width; a script at the end of the page writes, into the DOM it dumps, how far
 * the widest table reaches past its container and whether the last summary cell is whole.
 */

const FIXTURE = new URL('../src/report/__fixtures__/sick-host-report.json', import.meta.url);

const MEASURE = `<script>
(() => {
  const over = [...document.querySelectorAll('table')].map(
    (t) => Math.ceil(t.getBoundingClientRect().right - document.body.getBoundingClientRect().right + parseFloat(getComputedStyle(document.body).paddingRight)),
  );
  const last = document.querySelector('table tbody tr td:last-child');
  const r = last ? last.getBoundingClientRect() : null;
  document.documentElement.setAttribute('data-over', String(Math.max(0, ...over)));
  document.documentElement.setAttribute('data-last-right', String(r ? Math.ceil(r.right) : -1));
  document.documentElement.setAttribute('data-view', String(document.documentElement.clientWidth));
})();
</script></body>`;

async function layout(html: string, width: number, chromium: string) {
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-report-layout-'));
  try {
    const page = join(dir, 'report.html');
    writeFileSync(page, html.replace('</body>', MEASURE));
    const { stdout } = await promisify(execFile)(
      chromium,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        `--user-data-dir=${join(dir, 'profile')}`,
        `--window-size=${String(width)},900`,
        '--dump-dom',
        `file://${page}`,
      ],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const attr = (name: string) => Number(new RegExp(`${name}="(-?\\d+)"`).exec(stdout)?.[1]);
    return { over: attr('data-over'), lastRight: attr('data-last-right'), view: attr('data-view') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('report layout', () => {
  const chromium = findChromium();
  // .ci/run installs Chromium; elsewhere the report's PDF export is optional too.
  it.skipIf(chromium === undefined)(
    'keeps every table, the recommendation column included, inside the page',
    async () => {
      const report = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Report;
      const html = reportToHtml(report, await loadDashboardCharts());
      // A screen at 1280 px, and A4's printable width (about 720 CSS px).
      for (const width of [1280, 720]) {
        const m = await layout(html, width, chromium ?? '');
        expect(m.view, `viewport at ${String(width)} px`).toBeGreaterThan(0);
        expect(m.over, `tables past the page at ${String(width)} px`).toBeLessThanOrEqual(1);
        expect(m.lastRight).toBeGreaterThan(0);
        expect(m.lastRight, `recommendation cell at ${String(width)} px`).toBeLessThanOrEqual(
          m.view,
        );
      }
    },
    120_000,
  );
});
