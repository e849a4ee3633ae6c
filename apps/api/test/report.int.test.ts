import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerator, postOtlp, presetSpec } from '@tailscope/tracegen';
import { loadSettings } from '../src/config';
import { serve, type Running } from '../src/server/serve';
import { findChromium } from '../src/report/pdf';
import { runReport } from '../src/report/run';

// A sick-host scenario through the real OTLP endpoint, then reports in every format from the
// running server's REST API. The planted cause (host storage-07 slow for an episode) must be in
// the report as a cause; the decoy zone must not.
describe('tailscope report', () => {
  let dir: string;
  let running: Running;
  let expectedSpans: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-report-'));
    running = await serve(
      loadSettings(
        {},
        { dataDir: join(dir, 'data'), port: '0', otlpHttpPort: '0', otlpGrpcPort: '0' },
      ),
    );
    const gen = createGenerator(presetSpec('sick-host', { hosts: 12 }), {
      requests: 1500,
      seed: 11,
    });
    expectedSpans = gen.expectedSpans;
    await postOtlp(gen, `${running.urls.otlpHttp}/v1/traces`);
    for (let i = 0; i < 100; i++) {
      const stats = (await (await fetch(`${running.urls.api}/api/v1/stats`)).json()) as {
        spans: number;
      };
      if (stats.spans >= expectedSpans) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the planted cause, Table 1 and what-if replays as versioned JSON', async () => {
    const { report, output } = await runReport({
      url: running.urls.api,
      dataDir: dir,
      format: 'json',
      maxOperations: 5,
      seed: 3,
      version: 'test',
    });
    expect(report.store.spans).toBe(expectedSpans);
    expect(report.schemaVersion).toBe(2);
    // The summary opens the report: the storage operation with its hosts and a verdict.
    const sum = report.summary?.operations.find((o) => o.leafService === 'storage');
    expect(sum?.hosts).toBe(12);
    expect(sum?.policies.map((p) => p.kind)).toEqual(['hedge', 'probation']);
    expect(sum?.recommendation.verdict).toMatch(/^(adopt|keep)$/);
    expect(report.summary?.lines[0]).toMatch(/^1\. /);
    // Issue 29: the storage requests at 1x, 1.5x, 2x traffic, storage among their services,
    // the objective today's root p99 and today's machines keeping it at 1x.
    const cap = report.summary?.capacity?.find((c) => c.leafService === 'storage');
    expect(cap?.root.map((r) => r.factor)).toEqual([1, 1.5, 2]);
    const storageCap = cap?.services.find((s) => s.service === 'storage');
    expect(storageCap?.at[0]?.machines).toBe(storageCap?.at[0]?.instances);
    expect(cap?.sloMs).toBeCloseTo(
      report.operations.find((o) => o.fanout.leafService === 'storage')?.capacity?.[0]?.result
        .capacity?.request.baseline.p99 ?? Number.NaN,
      9,
    );
    expect(JSON.parse(output ?? '{}')).toEqual(JSON.parse(JSON.stringify(report)));
    const op = report.operations.find((o) => o.fanout.leafService === 'storage');
    expect(op, 'the storage fan-out operation').toBeDefined();
    if (!op) return;
    const causes = op.stragglers.rows
      .filter((r) => r.cause)
      .map((r) => `${r.dimension}=${r.value}`);
    expect(causes).toContain('host=storage-07');
    expect(causes.some((c) => c.startsWith('attr:'))).toBe(false);
    const t = op.fanout.table1;
    // Order statistics of one fan-out: one leaf <= 95% of leaves <= all leaves, at every quantile.
    for (const q of ['p50', 'p95', 'p99', 'p999'] as const) {
      expect(t.oneLeaf[q]).toBeLessThanOrEqual(t.p95Leaves[q] + 1e-9);
      expect(t.p95Leaves[q]).toBeLessThanOrEqual(t.allLeaves[q] + 1e-9);
    }
    expect(op.whatIf.map((w) => w.policy.kind)).toEqual(['hedge', 'probation']);
    const hedge = op.whatIf[0]?.result;
    expect(hedge?.extraLoad).toBeGreaterThan(0);
    expect(hedge?.whatIf.p99.value).toBeLessThanOrEqual((hedge?.baseline.p99 ?? 0) + 1e-9);
  });

  it('writes CSV, one measured number per line, that a spreadsheet reads back', async () => {
    const out = join(dir, 'report.csv');
    await runReport({
      url: running.urls.api,
      dataDir: dir,
      format: 'csv',
      out,
      maxOperations: 5,
      seed: 3,
      version: 'test',
    });
    const lines = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'parentService,parentOperation,leafService,leafOperation,section,name,value,low,high',
    );
    expect(lines.every((l) => l.split(',').length >= 9)).toBe(true);
    expect(lines.some((l) => l.includes(',stragglers,host=storage-07.cause,true,'))).toBe(true);
    expect(
      lines.some((l) =>
        /,whatif:hedge at the call p95,whatIf\.p99Ms,[\d.]+,[\d.]+,[\d.]+$/.test(l),
      ),
    ).toBe(true);
  });

  it('writes self-contained HTML, and PDF through Chromium', async () => {
    const { output } = await runReport({
      url: running.urls.api,
      dataDir: dir,
      format: 'html',
      maxOperations: 5,
      seed: 3,
      version: 'test',
    });
    expect(output).toContain('<!doctype html>');
    expect(output).toMatch(
      /<tr class="cause"><td class="t">host<\/td><td class="t">storage-07<\/td>/,
    );
    expect(output).not.toMatch(/<script|src="http/);
    // The dashboard's own charts, rendered on the server, with its stylesheet inlined.
    expect(output).toContain('data-chart="amplification"');
    expect(output).toMatch(/<svg[^>]*class="ts-chart[^"]*"[^>]*>[\s\S]*storage-07/);
    expect(output).toContain('.ts-chart');
    if (!findChromium()) return; // .ci/run installs Chromium; elsewhere PDF export is optional
    const pdf = join(dir, 'report.pdf');
    await runReport({
      url: running.urls.api,
      dataDir: dir,
      format: 'pdf',
      out: pdf,
      maxOperations: 2,
      seed: 3,
      version: 'test',
    });
    expect(existsSync(pdf)).toBe(true);
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('names the bad input', async () => {
    await expect(
      runReport({
        url: running.urls.api,
        dataDir: dir,
        format: 'json',
        fromMs: 10,
        toMs: 5,
        maxOperations: 1,
        seed: 1,
        version: 't',
      }),
    ).rejects.toThrow(/400/);
    await expect(
      runReport({
        url: running.urls.api,
        dataDir: dir,
        format: 'pdf',
        maxOperations: 1,
        seed: 1,
        version: 't',
      }),
    ).rejects.toThrow(/--format pdf needs --out/);
  });
});
