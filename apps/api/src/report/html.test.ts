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
const HTML_SHA256 = '44e9e3ab4b50c0bcb26f1d835035e33dd6cb188e646932af77d42c79f8d73254';

describe('reportToHtml', () => {
  it('renders a seeded report byte-identically, charts and stylesheet included', async () => {
    const report = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Report;
    const html = reportToHtml(report, await loadDashboardCharts());
    expect(html).toContain('<svg');
    expect(html).toContain('storage-07');
    // A schemaVersion 1 report (the fixture) opens with the summary built from its numbers.
    expect(html.indexOf('<h2>Summary</h2>')).toBeLessThan(html.indexOf('<section class="op">'));
    expect(html).toContain('<b>adopt</b>: hedge at the call p95');
    expect(createHash('sha256').update(html).digest('hex')).toBe(HTML_SHA256);
  });
});
