import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDashboardCharts } from './charts';
import { reportToHtml } from './html';
import type { Report } from './types';

// The HTML of a real seeded report (tracegen sick-host, 12 hosts, 1500 requests, seed 11; report
// seed 3), pinned by hash: the report, its charts and the inlined stylesheet must render byte for
// byte the same (the summary page included). Regenerate the fixture only when the report itself is meant to change.
const FIXTURE = new URL('./__fixtures__/sick-host-report.json', import.meta.url);
const HTML_SHA256 = '8437eada73d1920cbf6a10b9453652756ac8142e1ae0493124f4f69a38937d19';

describe('reportToHtml', () => {
  it('renders a seeded report byte-identically, charts and stylesheet included', async () => {
    const report = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Report;
    const html = reportToHtml(report, await loadDashboardCharts());
    expect(html).toContain('<svg');
    expect(html).toContain('storage-07');
    // A schemaVersion 1 report (the fixture) opens with the summary built from its numbers.
    expect(html.indexOf('<h2>Summary</h2>')).toBeLessThan(html.indexOf('<section class="op">'));
    expect(html).toContain('<b>adopt</b>: hedge at the call p95');
    // q-values below 1e-6 are bounds, not values: never "6.0e-16" or "0.0e+0" (issue 24).
    expect(html).toContain('<td>&lt; 1e-6</td>');
    expect(createHash('sha256').update(html).digest('hex')).toBe(HTML_SHA256);
  });
});
