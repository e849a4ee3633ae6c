// Episodes and the service map in a real browser (Debian's Chromium) against a real server fed
// tracegen's `microservices` preset over OTLP: the Overview words the planted fault (customer,
// one pod, 10-40x slower from 40% to 60% of the run), the service map draws the application's
// edges and a click on one opens its fan-outs, and a server without /api/v1/edges gets a clear
// message. Screenshots go to artifacts/e2e/.
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
function server(): TestServer {
  if (!started.server) throw new Error('the server did not start');
  return started.server;
}
function browser(): Browser {
  if (!started.browser) throw new Error('the browser did not start');
  return started.browser;
}

const haveBrowser = existsSync(CHROMIUM);

describe.skipIf(!haveBrowser && !process.env.CI)('episodes and the service map', () => {
  beforeAll(async () => {
    ensureBuilt();
    started.server = await startServer();
    // 3,000 requests at 20/s: 150 s, 10 s windows; the fault covers 60-90 s.
    await sendScenario(server(), 'microservices', { requests: 3000, seed: 5 });
    started.browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });

  it('overview: the planted fault in words, with links', async () => {
    const page = await newPage(browser());
    await page.goto(`${server().url}/`);
    const list = page.getByTestId('episodes-overview');
    await list.waitFor({ timeout: 30_000 });
    const text = await list.innerText();
    expect(text).toMatch(
      /calls (into|from frontend into) customer[^\n]* were \d+(\.\d)?x slower from \d\d:\d\d(:\d\d)? to \d\d:\d\d(:\d\d)? UTC/,
    );
    // mysql sends no spans: its calls, slower too, are listed within customer's entry.
    expect(text).toMatch(/Within it: calls from customer into mysql \d+(\.\d)?x slower/);
    expect(await list.getByRole('link', { name: 'hosts' }).count()).toBeGreaterThan(0);
    // Beside the callee episode: its cause in words and the span split it rests on (no metrics
    // here: customer's own server spans grew).
    const evidence = list.getByTestId('episode-evidence').first();
    await evidence.locator('summary').click();
    const ev = await evidence.innerText();
    expect(ev).toMatch(/calls into customer on [^\n]* slower from [^\n]*: [a-z' ]+/);
    expect(ev).toMatch(/server spans [\d.]+ (µs|ms|s) \([\d.]+ (µs|ms|s) before\)/);
    await page.screenshot({ path: artifactPath('episodes-overview.png'), fullPage: true });
    await page.close();
  });

  it('overview: leads with one incident, customer-00 its most likely cause', async () => {
    const page = await newPage(browser());
    await page.goto(`${server().url}/`);
    const list = page.getByTestId('incidents-overview');
    await list.waitFor({ timeout: 30_000 });
    const items = await list.locator('li').allInnerTexts();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatch(
      /customer[^\n]* slowed \(up to \d+(\.\d)?x\) from \d\d:\d\d(:\d\d)? to/,
    );
    expect(items[0]).toMatch(/Most likely: customer on customer-00/);
    // Its critical-path difference names customer's own time growing, and exemplar requests
    // (slow in the incident, typical before it) open as traces.
    const path = await list.getByTestId('incident-path-diff').first().innerText();
    expect(path).toMatch(/(customer|mysql) \+\d+ ms on the critical path \(\d+(\.\d)? -> \d+ ms/);
    expect(path).toContain('customer');
    const slow = list.locator('[data-exemplar="slow"]');
    expect(await slow.count()).toBeGreaterThan(0);
    expect(await list.locator('[data-exemplar="typical"]').count()).toBeGreaterThan(0);
    // The incidents lead the page: above the store's cards and the episodes.
    const ids = await page
      .locator('[data-panel], [data-testid="store-cards"]')
      .evaluateAll((els) =>
        els.map((e) => e.getAttribute('data-panel') ?? e.getAttribute('data-testid')),
      );
    expect(ids[0]).toBe('incidents');
    await page.screenshot({ path: artifactPath('incidents-overview.png'), fullPage: true });
    // A slow exemplar opens its trace.
    await slow.first().click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}$/);
    await page.close();
  });

  it('service map: the application edges; a click opens that edge on the Fan-outs page', async () => {
    const page = await newPage(browser());
    await page.goto(`${server().url}/map`);
    const map = page.locator('[data-chart="service-map"]');
    await map.waitFor({ timeout: 30_000 });
    const edges = await map
      .locator('[data-edge]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-edge')));
    for (const e of [
      'frontend->customer',
      'frontend->route',
      'frontend->pricing',
      'customer->mysql',
    ])
      expect(edges).toContain(e);
    await page.screenshot({ path: artifactPath('service-map.png'), fullPage: true });
    // A user clicks the edge's label (the bounding box's centre of a curved edge is empty).
    await map.locator('[data-edge="frontend->route"] .ts-map-label').click();
    await page.waitForURL(/\/fanouts\?/);
    const params = new URL(page.url()).searchParams;
    expect(params.get('parentService')).toBe('frontend');
    expect(params.get('leafService')).toBe('route');
    await page.close();
  });

  it('service map: says so when the server has no /api/v1/edges', async () => {
    const page = await newPage(browser());
    await page.route('**/api/v1/edges*', (r) =>
      r.fulfill({
        status: 404,
        json: { error: 'Route GET:/api/v1/edges not found', statusCode: 404 },
      }),
    );
    await page.goto(`${server().url}/map`);
    await expect(
      page.getByText('This server does not offer /api/v1/edges').innerText(),
    ).resolves.toContain('/api/v1/edges');
    await page.close();
  });
});
