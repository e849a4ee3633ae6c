// Trace search, the trace page's critical path and span details, and the aggregated critical
// path, in a real browser against a real server: tracegen's sick-host scenario plus one
// HotROD-shaped trace (a MySQL span with lock-wait events, an error, a link) sent over OTLP.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  artifactPath,
  CHROMIUM,
  ensureBuilt,
  launchBrowser,
  sendScenario,
  startServer,
  type TestServer,
} from './harness';
import { newPage } from './page-tools';

const started: { server?: TestServer; browser?: Browser } = {};
const TRACE = 'c0ffee00000000000000000000000001';
const LINKED = 'c0ffee00000000000000000000000002';

/** One dispatch: root 1,000 ms; MySQL 800 ms waiting for a lock; a failing Redis call after. */
function hotrodLikeTrace(t0Ns: bigint): string {
  const at = (ms: number): string => String(t0Ns + BigInt(ms) * 1_000_000n);
  const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const resource = (service: string) => ({ attributes: [attr('service.name', service)] });
  const span = (
    id: string,
    parent: string,
    name: string,
    from: number,
    to: number,
    extra = {},
  ) => ({
    traceId: TRACE,
    spanId: id,
    parentSpanId: parent,
    name,
    kind: parent === '' ? 2 : 1,
    startTimeUnixNano: at(from),
    endTimeUnixNano: at(to),
    ...extra,
  });
  const rs = (service: string, spans: unknown[]) => ({
    resource: resource(service),
    scopeSpans: [{ scope: { name: 'e2e' }, spans }],
  });
  return JSON.stringify({
    resourceSpans: [
      rs('frontend', [span('a000000000000001', '', 'HTTP GET /dispatch', 0, 1000)]),
      rs('mysql', [
        span('a000000000000002', 'a000000000000001', 'SQL SELECT', 10, 810, {
          attributes: [attr('sql.query', 'select * from customer')],
          events: [
            {
              name: 'log',
              timeUnixNano: at(11),
              attributes: [attr('event', 'Waiting for lock behind 2 transactions')],
            },
          ],
          links: [{ traceId: LINKED, spanId: 'b000000000000001' }],
        }),
      ]),
      rs('redis', [
        span('a000000000000003', 'a000000000000001', 'GetDriver', 820, 990, {
          status: { code: 2, message: 'redis timeout' },
        }),
      ]),
    ],
  });
}

const haveBrowser = existsSync(CHROMIUM);

describe.skipIf(!haveBrowser && !process.env.CI)('traces, trace details, critical path', () => {
  beforeAll(async () => {
    ensureBuilt();
    const server = await startServer();
    started.server = server;
    await sendScenario(server, 'sick-host', { requests: 400, seed: 3 });
    const res = await fetch(`${server.otlpHttp}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: hotrodLikeTrace(BigInt(Date.now() - 600_000) * 1_000_000n),
    });
    expect(res.status).toBe(200);
    await server.running.ingest.flush();
    started.browser = await launchBrowser();
  });
  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });

  const open = async (path: string) => {
    if (!started.browser || !started.server) throw new Error('not started');
    const page = await newPage(started.browser);
    await page.goto(`${started.server.url}${path}`);
    return page;
  };

  it('trace search: a scatter and a table; a click on a dot opens the trace', async () => {
    const page = await open('/traces?order=slowest&minMs=0');
    await page.locator('[data-chart="scatter"] circle').first().waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-testid="trace-table"] tbody tr').count()).toBeGreaterThan(10);
    await page.screenshot({ path: artifactPath('traces.png'), fullPage: true });
    const id = await page
      .locator('[data-chart="scatter"] circle')
      .first()
      .getAttribute('data-trace');
    await page.locator('[data-chart="scatter"] circle').first().click();
    await page.waitForURL(`**/traces/${id ?? ''}`);
    await page.locator('[data-chart="waterfall"]').waitFor();
    await page.close();
  });

  it('trace search matches a span below the root and names it', async () => {
    const page = await open('/traces?service=mysql&operation=SQL%20SELECT');
    const cell = page.locator('[data-testid="matched-span"]').first();
    await cell.waitFor({ timeout: 20_000 });
    expect(await cell.innerText()).toContain('mysql: SQL SELECT');
    const row = await page.locator('[data-testid="trace-table"] tbody tr').first().innerText();
    expect(row).toContain('frontend: HTTP GET /dispatch');
    await page.close();
  });

  it('trace page: the critical path, the lock wait event with its time, status and link', async () => {
    if (!started.browser || !started.server) throw new Error('not started');
    const page = await newPage(started.browser);
    // The page asks for the summary, then each selected span's details from the span route.
    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/v1/traces/')) asked.push(u.pathname + u.search);
    });
    await page.goto(`${started.server.url}/traces/${TRACE}`);
    await page.locator('[data-testid="critical-path"]').waitFor({ timeout: 20_000 });
    expect(asked).toContain(`/api/v1/traces/${TRACE}?fields=summary`);
    expect(asked).not.toContain(`/api/v1/traces/${TRACE}`);
    const path = await page.locator('[data-testid="critical-path"] tbody tr').allInnerTexts();
    expect(path[0]).toContain('mysql: SQL SELECT');
    expect(path[0]).toContain('800 ms');
    expect(await page.locator('.ts-wf-row.is-critical').count()).toBe(3);
    await expect
      .poll(() => page.locator('[data-testid="waterfall-legend"]').innerText())
      .toContain('critical path');
    const spanAnswer = page.waitForResponse((r) =>
      r.url().endsWith(`/api/v1/traces/${TRACE}/spans/a000000000000002`),
    );
    await page.locator('[data-span="a000000000000002"].ts-wf-row').click();
    expect((await spanAnswer).status()).toBe(200);
    const events = await page.locator('[data-testid="span-events"]').innerText();
    expect(events).toContain('Waiting for lock behind 2 transactions');
    expect(events).toContain('1 ms');
    const details = await page.locator('[data-testid="span-details"]').innerText();
    expect(details).toContain('select * from customer');
    expect(details).toContain(LINKED);
    // The resource arrives with the details too.
    expect(details).toMatch(/service\.name\s*mysql/);
    await page.locator('[data-span="a000000000000003"].ts-wf-row').click();
    await page.locator('[data-testid="span-details"][data-span="a000000000000003"]').waitFor();
    // The attributes are a second read (CI's load can hold it for several seconds).
    await expect
      .poll(() => page.locator('[data-testid="span-details"]').innerText(), { timeout: 30_000 })
      .toContain('service.name');
    expect(await page.locator('[data-testid="span-status"]').innerText()).toBe(
      'error: redis timeout',
    );
    await page.screenshot({ path: artifactPath('trace-details.png'), fullPage: true });
    // Back to the first span: its details come from the cache, not a second request.
    await page.locator('[data-span="a000000000000002"].ts-wf-row').click();
    await expect
      .poll(() => page.locator('[data-testid="span-details"]').innerText())
      .toContain('select * from customer');
    expect(asked.filter((u) => u.endsWith('/spans/a000000000000002'))).toHaveLength(1);
    await page.close();
  });

  it('critical path page: a diverging chart with exemplar traces of each band', async () => {
    const page = await open('/criticalpath?band=p90');
    await page.locator('[data-chart="diverging"]').waitFor({ timeout: 30_000 });
    const summary = await page.locator('[data-testid="critical-path-summary"]').innerText();
    expect(summary).toMatch(/requests/);
    expect(await page.locator('[data-testid="exemplars-slow"] a').count()).toBeGreaterThan(0);
    expect(
      await page.locator('[data-testid="critical-path-entries"] tbody tr').count(),
    ).toBeGreaterThan(0);
    await page.screenshot({ path: artifactPath('critical-path.png'), fullPage: true });
    await page.locator('[data-testid="exemplars-slow"] a').first().click();
    await page.locator('[data-testid="critical-path"]').waitFor({ timeout: 20_000 });
    await page.close();
  });

  it('Table 1 and the tail summary link to their requests as traces', async () => {
    const page = await open('/fanouts');
    const link = page.getByTestId('table1').locator('a').last();
    await link.waitFor({ timeout: 30_000 });
    expect(await link.innerText()).toMatch(/^traces ≥/);
    await link.click();
    await page.waitForURL(/\/traces\?/);
    await page.locator('[data-testid="trace-table"] tbody tr').first().waitFor({ timeout: 20_000 });
    const floor = Number(new URL(page.url()).searchParams.get('minMs'));
    const durations = await page
      .locator('[data-testid="trace-table"] tbody tr td:nth-child(4)')
      .allInnerTexts();
    expect(durations.length).toBeGreaterThan(0);
    expect(floor).toBeGreaterThan(0);
    await page.goto(`${started.server?.url ?? ''}/stragglers`);
    await page.getByTestId('tail-traces').click();
    await page.waitForURL(/\/traces\?/);
    await page.locator('[data-testid="trace-table"] tbody tr').first().waitFor({ timeout: 20_000 });
    await page.close();
  });
});
