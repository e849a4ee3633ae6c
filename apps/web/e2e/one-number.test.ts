// One number per question (issue 24), in a real browser on tracegen's `microservices`
// application: the same quantity reads the same on every page that shows it, differently named
// quantities carry their definitions, and the words beside a number agree with it. Screenshots
// go to artifacts/e2e/one-number-*.png. Waits are generous: the machine may be busy.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
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

const WAIT_MS = 300_000;
const TEST_MS = 700_000;

const started: { server?: TestServer; browser?: Browser } = {};
function server(): TestServer {
  if (!started.server) throw new Error('the server did not start');
  return started.server;
}

async function visit(path: string, wait: string): Promise<Page> {
  if (!started.browser) throw new Error('the browser did not start');
  const page = await newPage(started.browser);
  await page.goto(`${server().url}${path}`);
  await page.locator(wait).first().waitFor({ timeout: WAIT_MS });
  await page.waitForLoadState('networkidle', { timeout: WAIT_MS });
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: artifactPath(`one-number-${name}.png`), fullPage: true });
  await page.close();
}

/** The text of column `header` in the first row of `table` whose text contains `row`. */
async function cell(page: Page, table: string, row: string, header: string): Promise<string> {
  return page.locator(table).evaluate(
    (t, [rowText, headerText]) => {
      const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
      const col = heads.indexOf(headerText ?? '');
      const tr = [...t.querySelectorAll('tbody tr')].find((r) =>
        r.textContent.includes(rowText ?? ''),
      );
      return col < 0 || !tr
        ? `no ${headerText ?? ''} for ${rowText ?? ''}`
        : (tr.children[col]?.textContent ?? '').trim();
    },
    [row, header],
  );
}

const haveBrowser = existsSync(CHROMIUM);

describe.skipIf(!haveBrowser && !process.env.CI)('one number per question (microservices)', () => {
  beforeAll(async () => {
    ensureBuilt();
    // A busy machine makes an analysis wait for its slot: this test judges words and numbers,
    // not speed, so the server's query budget is raised for it (restored after the start).
    const budget = process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS;
    process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS = '600';
    try {
      started.server = await startServer();
    } finally {
      if (budget === undefined) delete process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS;
      else process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS = budget;
    }
    await sendScenario(server(), 'microservices', { requests: 1500, seed: 7 });
    started.browser = await launchBrowser();
  }, 400_000);

  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });

  it(
    "a call's p99 reads the same on the Overview, the Fan-outs edges and the service map",
    async () => {
      const overview = await visit('/', '[data-testid="episodes-overview"]');
      const worst = await cell(
        overview,
        '[data-panel="worst-ops"] table',
        'route HTTP GET /route',
        'Request slower than t',
      );
      // t is the call-latency p99 by definition ("Request slower than t").
      const t = /\(t = ([^)]+)\)/.exec(worst)?.[1];
      expect(t, worst).toBeDefined();
      // One fault, one entry per series, and q-values said as a bound below 1e-6.
      const episodes = await overview.getByTestId('episodes-overview').innerText();
      expect(episodes).not.toMatch(/\d\.\de[+-]\d/);
      const lines = episodes.split('\n').filter(Boolean);
      expect(new Set(lines).size).toBe(lines.length);
      await shot(overview, 'overview');

      const fanouts = await visit('/fanouts', '[data-testid="edges-table"]');
      const edges = '[data-testid="edges-table"]';
      const header = fanouts.locator(`${edges} thead th`, { hasText: 'Call p99' });
      await expect(header.getAttribute('title')).resolves.toContain('client span');
      const edgeP99 = await cell(fanouts, edges, 'route HTTP GET /route', 'Call p99');
      expect(edgeP99).toBe(t);
      // Table 1's leaf column is another quantity, under another name with its definition.
      const oneLeaf = fanouts.locator('thead th', { hasText: 'One leaf p99' }).first();
      await expect(oneLeaf.getAttribute('title')).resolves.toContain('first call start');
      // The clock-skew note: one line with a count.
      const caption = await fanouts.locator(`.table-wrap:has(${edges}) ~ p.caption`).innerText();
      expect(caption.split('\n')).toHaveLength(1);
      if (caption.includes('clock skew')) expect(caption).toMatch(/clock skew: [\d,]+ calls? /);
      await shot(fanouts, 'fanouts');

      const map = await visit('/map', '[data-testid="map-edges"]');
      expect(
        await cell(map, '[data-testid="map-edges"]', 'route HTTP GET /route', 'Call p99'),
      ).toBe(t);
      await shot(map, 'map');
    },
    TEST_MS,
  );

  it(
    'critical path: the busiest request root by default, and a client wait named for what it is',
    async () => {
      const page = await visit('/criticalpath', '[data-testid="critical-path-entries"]');
      const picked = await page
        .getByTestId('root-picker')
        .locator('select option:checked')
        .innerText();
      expect(picked).toMatch(/^frontend: HTTP GET \/dispatch \([\d,]+ requests\)$/);
      const entries = await page.getByTestId('critical-path-entries').innerText();
      expect(entries).toMatch(
        /frontend: waiting on \w+: network, queueing or a CPU-starved callee/,
      );
      // No floating-point noise printed as time.
      expect(entries).not.toMatch(/0\.0000/);
      // A slow request: every span its critical-path table lists has a row in the waterfall,
      // the client's wait on its callee and a server span folded into its call included.
      await page.getByTestId('exemplars-slow').locator('a').first().click();
      const path = page.locator('[data-testid="critical-path"] tbody tr button');
      await path.first().waitFor({ timeout: WAIT_MS });
      const listed = await path.allInnerTexts();
      expect(listed.some((t) => t.includes('waiting on'))).toBe(true);
      for (let i = 0; i < Math.min(listed.length, 12); i++) {
        await path.nth(i).click();
        await expect
          .poll(() => page.locator('[data-chart="waterfall"] [aria-pressed="true"]').count(), {
            timeout: 10_000,
          })
          .toBe(1);
      }
      await shot(page, 'critical-path');
    },
    TEST_MS,
  );

  it(
    'what-if: beside "Does not apply", every figure is the recorded one',
    async () => {
      // The worst operation (route's pool) has one instance: hedging cannot send elsewhere.
      const page = await visit('/whatif', '[data-testid="whatif-not-applicable"]');
      await page.locator('[data-chart="percentile-bars"]').waitFor({ timeout: WAIT_MS });
      const bars = await page.locator('[data-chart="percentile-bars"]').textContent();
      const base = [...(bars ?? '').matchAll(/baseline ([\d.]+ (?:µs|ms|s|min))/g)].map(
        (m) => m[1],
      );
      const what = [...(bars ?? '').matchAll(/what-if ([\d.]+ (?:µs|ms|s|min))/g)].map((m) => m[1]);
      expect(base).toHaveLength(4);
      expect(what).toEqual(base);
      expect(bars).not.toContain('−');
      await expect(page.getByTestId('whatif-headline').innerText()).resolves.toContain(
        'no change: the policy does not apply',
      );
      await expect(page.getByTestId('whatif-costs').innerText()).resolves.toMatch(
        /Extra load\s+0%/,
      );
      await shot(page, 'whatif');
    },
    TEST_MS,
  );

  it(
    'stragglers: the heatmap asks /hosts with plain names',
    async () => {
      if (!started.browser) throw new Error('the browser did not start');
      const page = await newPage(started.browser);
      const hosts: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/v1/hosts')) hosts.push(decodeURIComponent(r.url()));
      });
      await page.goto(`${server().url}/stragglers`);
      await page.getByTestId('attribution').waitFor({ timeout: WAIT_MS });
      await page.waitForLoadState('networkidle', { timeout: WAIT_MS });
      expect(hosts.length).toBeGreaterThan(0);
      for (const u of hosts) {
        expect(u).not.toContain('[object');
        expect(u).toContain('leafService=route');
      }
      await shot(page, 'stragglers');
    },
    TEST_MS,
  );
});
