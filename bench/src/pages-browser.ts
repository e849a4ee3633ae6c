// For bench:pages: a dashboard route opened in real Chromium, timed as a person feels it: from
// navigation until the page's last /api/ answer (DESIGN.md "Page time"), with every answer.
// Already in the repository for apps/web's browser tests; the bench uses it the same way.
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Page,
  type Request,
} from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Chromium, headless; `executablePath` to start it through a wrapper (e.g. one that lowers its
 * scheduling weight), `extraArgs` after the usual flags.
 */
export function launch(executablePath = CHROMIUM, extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

export interface Answer {
  path: string;
  status: number;
  /** From navigation to the answer's end, ms. */
  endMs: number;
  /** The request's own time, ms. */
  ms: number;
  /** Served from a kept live answer this old, ms (header x-tailscope-answer-age-ms). */
  ageMs?: number;
}

export interface PageTime {
  /** From navigation to the last /api/ answer, ms (NaN when the page asked nothing). */
  ms: number;
  answers: Answer[];
  /** True when /api/ requests were still open at the time limit. */
  timedOut: boolean;
}

/** No /api/ request open for this long means the page has its data. */
const IDLE_MS = 1500;
const LIMIT_MS = Number(process.env.PAGES_LIMIT_MS ?? 60_000);

/**
 * Runs `navigate` on `page` and times it: every /api/ request from its start to its end, and
 * the page until no /api/ request has been open for IDLE_MS (answers to requests the page
 * started later, e.g. after the headline, count: they are part of the page).
 */
export async function timePage(
  page: Page,
  navigate: () => Promise<unknown>,
  live: () => boolean = () => true,
): Promise<PageTime> {
  const open = new Map<Request, { path: string; t: number }>();
  const answers: Answer[] = [];
  let t0 = performance.now();
  let lastChange = t0;
  const onRequest = (r: Request) => {
    const u = new URL(r.url());
    if (!u.pathname.startsWith('/api/')) return;
    open.set(r, { path: `${u.pathname}${u.search}`, t: performance.now() });
    lastChange = performance.now();
  };
  const onEnd = (failed: boolean) => (r: Request) => {
    const o = open.get(r);
    if (!o) return;
    open.delete(r);
    const now = performance.now();
    lastChange = now;
    const a: Answer = { path: o.path, status: 0, endMs: now - t0, ms: now - o.t };
    answers.push(a);
    if (!failed)
      void r.response().then((res) => {
        a.status = res?.status() ?? 0;
        const age = res?.headers()['x-tailscope-answer-age-ms'];
        if (age !== undefined) a.ageMs = Number(age);
      });
  };
  const finished = onEnd(false);
  const failed = onEnd(true);
  page.on('request', onRequest);
  page.on('requestfinished', finished);
  page.on('requestfailed', failed);
  try {
    t0 = performance.now();
    lastChange = t0;
    await navigate();
    for (;;) {
      const now = performance.now();
      if (open.size === 0 && now - lastChange >= IDLE_MS) break;
      if (now - t0 > LIMIT_MS || !live()) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    const timedOut = open.size > 0;
    // Let the status reads above settle.
    await new Promise((ok) => setTimeout(ok, 20));
    answers.sort((a, b) => a.endMs - b.endMs);
    const last = answers[answers.length - 1];
    return { ms: last ? last.endMs : NaN, answers, timedOut };
  } finally {
    page.off('request', onRequest);
    page.off('requestfinished', finished);
    page.off('requestfailed', failed);
  }
}

/** A new browser context (no cache, no storage): a person's first visit. */
export async function coldPage(browser: Browser): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => {
    console.error(`page error on ${page.url()}: ${e.message}`);
  });
  return { ctx, page };
}

/**
 * Moves the single-page app to `path` without reloading (as a click on the navigation does):
 * React Router follows history changes announced with popstate.
 */
export async function navigateInApp(page: Page, path: string): Promise<void> {
  // A string: the bench compiles without the DOM library.
  await page.evaluate(
    `history.pushState({}, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'));`,
  );
}

/** Every answer in the order they ended: full path, status, ms and a kept answer's age. */
export function listAnswers(answers: readonly Answer[]): string {
  return answers
    .map(
      (a) =>
        `    ${a.endMs.toFixed(0).padStart(6)} ${a.ms.toFixed(0).padStart(6)} ms ${a.status} ${a.path}${a.ageMs === undefined ? '' : ` kept ${a.ageMs} ms`}`,
    )
    .join('\n');
}

/** One line per answer, slowest first: path (shortened) and ms. */
export function describeAnswers(answers: readonly Answer[], max = 6): string {
  return [...answers]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, max)
    .map((a) => {
      const p = a.path.replace(/^\/api\/v1\//, '').replace(/[?].*$/, '');
      const kept = a.ageMs === undefined ? '' : ` (kept ${(a.ageMs / 1000).toFixed(0)} s)`;
      return `${p}${a.status >= 400 || a.status === 0 ? `(${a.status})` : ''} ${a.ms.toFixed(0)}${kept}`;
    })
    .join(', ');
}
