// The capacity page (issue 29) follows its traffic control while it is dragged: with the pointer
// down and moving, the headline shows the server's preview for a new factor, then the full
// answer once the control rests; a machine more for the service that saturates first lowers its
// utilisation. Real server (tracegen's `microservices` preset over OTLP), real Chromium. No
// timing assertion: the control-to-screen times are printed (window.__tailscopeCapacity).
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

interface Shown {
  quality: string | null;
  factor: number;
  p99: number;
  previews: number;
}
const shown = (page: Page): Promise<Shown> =>
  page.getByTestId('capacity-headline').evaluate((el) => ({
    quality: el.getAttribute('data-quality'),
    factor: Number(el.getAttribute('data-factor')),
    p99: Number(el.getAttribute('data-p99')),
    previews: Number(el.getAttribute('data-previews')),
  }));

/** Waits for the full answer for the factor the URL keeps (the control at rest). */
async function fullAnswer(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const el = document.querySelector('[data-testid="capacity-headline"]');
      const want = new URL(location.href).searchParams.get('load');
      return (
        el?.getAttribute('data-quality') === 'full' &&
        want !== null &&
        Number(el.getAttribute('data-factor')) === Number(want)
      );
    },
    undefined,
    { timeout: 120_000 },
  );
}

describe.skipIf(!haveBrowser && !process.env.CI)('capacity page', () => {
  beforeAll(async () => {
    ensureBuilt();
    started.server = await startServer();
    await sendScenario(server(), 'microservices', { requests: 3000, seed: 5 });
    started.browser = await launchBrowser();
  });

  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });

  it('follows the traffic control while dragged, then answers in full', async () => {
    const page = await newPage(browser());
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.goto(`${server().url}/capacity?load=1.5`);
    await page
      .locator('[data-testid="capacity-headline"][data-quality="full"]')
      .waitFor({ timeout: 120_000 })
      .catch(async (e: unknown) => {
        await page.screenshot({ path: artifactPath('capacity-failed.png'), fullPage: true });
        throw e;
      });
    const start = await shown(page);
    expect(start.factor).toBe(1.5);
    expect(start.p99).toBeGreaterThan(0);
    await expect(page.getByTestId('capacity-saturates-first').innerText()).resolves.toMatch(
      /saturates/,
    );

    const slider = page.getByTestId('capacity-factor');
    const box = await slider.boundingBox();
    if (!box) throw new Error('the traffic control is not visible');
    const y = box.y + box.height / 2;
    const min = Number(await slider.getAttribute('min'));
    const max = Number(await slider.getAttribute('max'));
    let x = box.x + ((1.5 - min) / (max - min)) * box.width;
    await page.mouse.move(x, y);
    await page.mouse.down();
    // Move right (more traffic), a step every few tens of ms (inside the 400 ms rest), until
    // the headline shows a preview for another factor.
    let seen: Shown | null = null;
    for (let step = 0; step < 300 && !seen; step++) {
      x = Math.min(box.x + 0.6 * box.width, x + box.width / 100);
      await page.mouse.move(x, y);
      const now = await shown(page);
      if (now.quality === 'preview' && now.factor !== start.factor && now.previews > 0) seen = now;
      await page.waitForTimeout(30);
    }
    expect(seen, 'a preview for a new factor while dragging').not.toBeNull();
    await page.mouse.up();
    await page.waitForURL(/load=/);
    await fullAnswer(page);
    const rest = await shown(page);
    expect(rest.factor).toBeGreaterThan(start.factor);
    expect(rest.p99).not.toBe(start.p99);
    const timings = await page.evaluate(
      () =>
        (window as unknown as { __tailscopeCapacity?: { updateMs: number; quality: string }[] })
          .__tailscopeCapacity ?? [],
    );
    const previews = timings.filter((t) => t.quality === 'preview').map((t) => t.updateMs);
    console.log(
      `capacity page: ${previews.length} previews on screen ${previews.map((m) => m.toFixed(0)).join(', ')} ms after the input`,
    );
    await page.screenshot({ path: artifactPath('capacity.png'), fullPage: true });

    // A machine more for the service that saturates first: its utilisation after goes down.
    const first = await page
      .getByTestId('capacity-services')
      .locator('tr.is-cause')
      .getAttribute('data-service');
    if (!first) throw new Error('no service saturates first');
    const row = page.locator(`tr[data-service="${first}"]`);
    const before = Number(await row.getAttribute('data-utilisation-after'));
    const recorded = Number(await row.getAttribute('data-instances-after'));
    await page.getByTestId(`capacity-machines-${first}`).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(new RegExp(`machines=${encodeURIComponent(first)}%3A${recorded + 1}`));
    await fullAnswer(page);
    await row.and(page.locator(`[data-instances-after="${recorded + 1}"]`)).waitFor();
    const after = Number(await row.getAttribute('data-utilisation-after'));
    expect(after).toBeCloseTo((before * recorded) / (recorded + 1), 6);
    await page.close();
  }, 400_000);
});
