import type { Browser, Locator, Page } from 'playwright-core';

/** Records when the first chart appeared (ms since navigation start) on every page load. */
export const INIT_SCRIPT = `
  (() => {
    const seen = () => {
      if (window.__firstChartMs === undefined && document.querySelector('[data-chart]')) {
        window.__firstChartMs = performance.now();
      }
    };
    new MutationObserver(seen).observe(document, { childList: true, subtree: true });
  })();
`;

declare global {
  interface Window {
    __firstChartMs?: number;
  }
}

export async function newPage(
  browser: Browser,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, colorScheme });
  await page.addInitScript(INIT_SCRIPT);
  page.on('pageerror', (e) => {
    console.error(`page error on ${page.url()}: ${e.message}`);
  });
  return page;
}

export async function firstChartMs(page: Page): Promise<number> {
  return page.evaluate(() => window.__firstChartMs ?? NaN);
}

/** A real pointer drag of a range input's thumb to `fraction` of its track. */
export async function dragSlider(page: Page, slider: Locator, fraction: number): Promise<void> {
  const box = await slider.boundingBox();
  if (!box) throw new Error('slider is not visible');
  const value = Number(await slider.inputValue());
  const max = Number((await slider.getAttribute('max')) ?? '1000');
  const min = Number((await slider.getAttribute('min')) ?? '0');
  const y = box.y + box.height / 2;
  const from = box.x + ((value - min) / (max - min)) * box.width;
  await page.mouse.move(from, y);
  await page.mouse.down();
  const to = box.x + fraction * box.width;
  const steps = 12;
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(from + ((to - from) * i) / steps, y);
    await page.waitForTimeout(16);
  }
  await page.mouse.up();
}

export interface WhatIfTiming {
  updateMs: number;
  simulateMs: number;
  samples: number;
  requests: number;
}

/** The what-if page's own measurements of each update (input to painted result). */
export async function whatIfTimings(page: Page): Promise<WhatIfTiming[]> {
  return page.evaluate(
    () => (window as unknown as { __tailscopeWhatIf?: WhatIfTiming[] }).__tailscopeWhatIf ?? [],
  );
}

/** Summary of the updates so far: fast (during the drag) and full (once it rests) runs. */
export async function lastWhatIf(page: Page) {
  const all = await whatIfTimings(page);
  const fast = all.filter((t) => t.samples < 2000).map((t) => t.updateMs);
  const full = all.filter((t) => t.samples >= 2000).map((t) => t.updateMs);
  const max = (xs: number[]) => (xs.length === 0 ? NaN : Math.round(Math.max(...xs)));
  const median = (xs: number[]) =>
    xs.length === 0
      ? NaN
      : Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN);
  return {
    requests: Math.max(0, ...all.map((t) => t.requests)),
    previewRequests: Math.min(...all.filter((t) => t.samples < 2000).map((t) => t.requests)),
    updates: all.length,
    dragUpdateMedianMs: median(fast),
    dragUpdateMaxMs: max(fast),
    fullUpdateMedianMs: median(full),
    simulateMedianMs: median(all.map((t) => t.simulateMs)),
  };
}
