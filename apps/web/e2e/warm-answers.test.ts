// Warm answers in a real browser (Debian's Chromium) against a real server (issue #24): the
// server asks the dashboard's first questions over "All data" in the background
// (apps/api/src/server/warm-answers.ts), and a person who then opens the Overview, the Fan-outs,
// Stragglers, Critical path and What-if pages is served every analysis answer warm (with its age), not
// computed while they wait. This checks that the server asks exactly what the dashboard asks (the
// same parameters, and a range the dashboard's own range overlaps): a question asked differently
// would be computed on the spot and arrive without the age header.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Response } from 'playwright-core';
import {
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
const AGE = 'x-tailscope-answer-age-ms';
/** Analyses the warm pass asks. */
const ANALYSES =
  /\/api\/v1\/((fanouts|incidents|episodes|stragglers|edges|leaves|hosts|criticalpath)\?|whatif$)/;

interface Seen {
  path: string;
  warm: boolean;
  /** The page visit it belongs to. */
  visit: string;
}

describe.skipIf(!haveBrowser && !process.env.CI)('warm answers', () => {
  const saved = {
    warm: process.env.TAILSCOPE_WARM_S,
    min: process.env.TAILSCOPE_LIVE_ANSWER_MIN_MS,
  };
  beforeAll(async () => {
    ensureBuilt();
    // The store is loaded by a server that does not warm, then
    // served by one that does: its first pass sees all of it. An hour of store with spans up to
    // now, so "All data" ends at the live edge (where answers are kept as live answers) and moves
    // little while the materializers store its newest buckets (a live answer serves a range it
    // overlaps by 90%).
    process.env.TAILSCOPE_WARM_S = '0';
    const loader = await startServer();
    await sendScenario(loader, 'microservices', {
      requests: 600,
      seed: 5,
      start: Date.now() - 3_600_000,
    });
    await sendScenario(loader, 'microservices', {
      requests: 600,
      seed: 6,
      start: Date.now() - 30_000,
    });
    await loader.close(true);
    // A pass as soon as the store changed and no one asks; every answer kept as a live answer
    // however cheap (this store is small; the server's default keeps answers of 250 ms or more).
    process.env.TAILSCOPE_WARM_S = '1';
    process.env.TAILSCOPE_LIVE_ANSWER_MIN_MS = '0';
    started.server = await startServer({ dataDir: loader.dataDir });
    const until = Date.now() + 120_000;
    for (;;) {
      const res = await fetch(`${server().url}/api/v1/stats`);
      const { warmedUnixMs } = (await res.json()) as { warmedUnixMs?: number | null };
      if (typeof warmedUnixMs === 'number') break;
      if (Date.now() > until) throw new Error('no warm pass in 2 minutes');
      await new Promise((ok) => setTimeout(ok, 250));
    }
    started.browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
    if (saved.warm === undefined) delete process.env.TAILSCOPE_WARM_S;
    else process.env.TAILSCOPE_WARM_S = saved.warm;
    if (saved.min === undefined) delete process.env.TAILSCOPE_LIVE_ANSWER_MIN_MS;
    else process.env.TAILSCOPE_LIVE_ANSWER_MIN_MS = saved.min;
  });

  it('serves every first analysis of the Overview, Fan-outs, Stragglers, Critical path and What-if warm', async () => {
    const page = await newPage(browser());
    const seen: Seen[] = [];
    let visiting = '';
    // The context's responses include the leaf calls' worker's.
    page.context().on('response', (r: Response) => {
      const url = r.url();
      if (!ANALYSES.test(url)) return;
      const path = url.slice(url.indexOf('/api/v1/'));
      seen.push({ path, warm: r.headers()[AGE] !== undefined, visit: visiting });
    });
    const visit = async (route: string, ready: string) => {
      visiting = route;
      await page.goto(`${server().url}${route}`);
      await page.getByTestId(ready).first().waitFor({ timeout: 60_000 });
      // Late panels (the heatmap's episodes, the leaf calls) ask after the first one renders.
      await page.waitForLoadState('networkidle');
    };
    await visit('/', 'store-cards');
    await visit('/fanouts', 'verdict');
    await visit('/stragglers', 'attribution');
    await visit('/criticalpath', 'critical-path-summary');
    await visit('/whatif', 'whatif-request');
    // Back to the What-if page without a reload (its leaf calls kept in the page): its panel
    // mounts at once and asks; nothing may ask ahead of it a second time.
    for (const [route, ready] of [
      ['/fanouts', 'verdict'],
      ['/whatif', 'whatif-request'],
    ] as const) {
      visiting = `${route} in-app`;
      await page.evaluate(
        `history.pushState({}, '', ${JSON.stringify(route)}); dispatchEvent(new PopStateEvent('popstate'));`,
      );
      await page.getByTestId(ready).first().waitFor({ timeout: 60_000 });
      await page.waitForLoadState('networkidle');
    }
    // The panel's answer is in (the page's last ask).
    await page.locator('[data-testid="whatif-request"][data-state="ready"]').waitFor({
      timeout: 60_000,
    });
    await page.close();
    const routes = new Set(seen.map((s) => /\/api\/v1\/([a-z]+)/.exec(s.path)?.[1]));
    // Every kind of first question was asked by the dashboard...
    for (const r of ['fanouts', 'incidents', 'episodes', 'stragglers', 'edges', 'leaves', 'hosts'])
      expect(routes, r).toContain(r);
    expect(routes).toContain('criticalpath');
    expect(routes).toContain('whatif');
    // ...and each was served warm.
    expect(seen.filter((s) => !s.warm).map((s) => `${s.visit} ${s.path}`)).toEqual([]);
    // Each page asked each question once: what the dashboard asks ahead of a page (its first
    // fan-outs and edges, the What-if's whole request, a trace's root span) is the page's own
    // ask, not a second one.
    const asked = seen.map((s) => `${s.visit} ${s.path}`);
    expect(
      asked.filter((a, i) => asked.indexOf(a) !== i),
      asked.join('\n'),
    ).toEqual([]);
  }, 180_000);
});
