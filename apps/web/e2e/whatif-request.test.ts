// The What-if page's whole-request panel follows a slider while it is dragged (issue #14): with
// the pointer still down and moving, the panel shows the server's preview for a new position
// (quality 'preview'), then the full answer once the controls rest. Real server (tracegen's
// sick-host scenario over OTLP), real Chromium. No timing assertion: the test reads which
// answers the panel showed (data-previews, data-quality, data-policy).
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

describe.skipIf(!haveBrowser && !process.env.CI)('what-if whole-request panel', () => {
  beforeAll(async () => {
    ensureBuilt();
    started.server = await startServer();
    await sendScenario(server(), 'sick-host', { requests: 2000, seed: 7 });
    started.browser = await launchBrowser();
  });

  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });

  it('shows previews while the slider is dragged, the full answer once it rests', async () => {
    const page = await newPage(browser());
    await page.goto(`${server().url}/whatif`);
    const panel = page.getByTestId('whatif-request');
    // First the full answer for the initial position.
    await page.locator('[data-testid="whatif-request"][data-quality="full"]').waitFor({
      timeout: 60_000,
    });
    const before = Number(await panel.getAttribute('data-previews'));
    const startPolicy = await panel.getAttribute('data-policy');
    const slider = page.locator('input[type="range"][data-knob="delayPercentile"]');
    const box = await slider.boundingBox();
    if (!box) throw new Error('slider is not visible');
    const y = box.y + box.height / 2;
    const value = Number(await slider.inputValue());
    const min = Number((await slider.getAttribute('min')) ?? '0');
    const max = Number((await slider.getAttribute('max')) ?? '100');
    let x = box.x + ((value - min) / (max - min)) * box.width;
    await page.mouse.move(x, y);
    await page.mouse.down();
    // Keep the thumb moving (a step every few tens of ms, well inside the 400 ms rest) until
    // the panel shows a preview for a position other than the start.
    let seen: { quality: string | null; policy: string | null; previews: number } | null = null;
    for (let step = 0; step < 400 && !seen; step++) {
      x += step % 40 < 20 ? -box.width / 60 : box.width / 60;
      await page.mouse.move(x, y);
      const now = await panel.evaluate((el) => ({
        quality: el.getAttribute('data-quality'),
        policy: el.getAttribute('data-policy'),
        previews: Number(el.getAttribute('data-previews')),
      }));
      if (now.quality === 'preview' && now.policy !== startPolicy && now.previews > before)
        seen = now;
      await page.waitForTimeout(30);
    }
    expect(seen, 'a preview answer for a new position while dragging').not.toBeNull();
    await expect(page.getByTestId('whatif-request-quality').innerText()).resolves.toMatch(
      /Preview/,
    );
    await page.screenshot({ path: artifactPath('whatif-request-preview.png'), fullPage: true });
    await page.mouse.up();
    // At rest: the full answer for the slider's final position (the policy the URL keeps).
    await page.waitForURL(/p\.delayPercentile=/);
    await page.waitForFunction(
      () => {
        const el = document.querySelector('[data-testid="whatif-request"]');
        const shown = JSON.parse(el?.getAttribute('data-policy') ?? '{}') as {
          delayPercentile?: number;
        };
        const want = new URL(location.href).searchParams.get('p.delayPercentile');
        return (
          el?.getAttribute('data-quality') === 'full' &&
          want !== null &&
          shown.delayPercentile === Number(want)
        );
      },
      undefined,
      { timeout: 60_000 },
    );
    await expect(page.getByTestId('whatif-request-quality').innerText()).resolves.toMatch(/Full/);
    await page.close();
  });
});
