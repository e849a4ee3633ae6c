// The dashboard behind TAILSCOPE_API_TOKENS in a real Chromium: it asks for the token once,
// keeps it in an HttpOnly, SameSite=Strict cookie, and every page then loads. A page of another
// origin (a second local HTTP server on another port: same site, so the browser does send the
// cookie) can neither read API answers nor get a state-changing call through.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  launchBrowser,
  sendScenario,
  startServer,
  type TestServer,
} from './harness';

const TOKEN = 'e2e-api-token-0123456789abcdef';
const started: { server?: TestServer; browser?: Browser; attacker?: Server } = {};
let context: BrowserContext;
let attackerUrl = '';

function server(): TestServer {
  if (!started.server) throw new Error('the server did not start');
  return started.server;
}

/** What the other origin's page tries; it reports each outcome in window.__results. */
function attackerPage(api: string): string {
  return `<!doctype html><html><body><h1>another origin</h1><script>
  const api = ${JSON.stringify(api)};
  const results = {};
  (async () => {
    try {
      const r = await fetch(api + '/api/v1/stats', { credentials: 'include' });
      results.read = 'read ' + (await r.text()).slice(0, 40);
    } catch (e) { results.read = 'blocked: ' + e.name; }
    try {
      const r = await fetch(api + '/api/v1/whatif', {
        method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ leafService: 'x', leafOperation: 'y', policy: { kind: 'hedge' } }),
      });
      results.corsPost = 'answered ' + r.status;
    } catch (e) { results.corsPost = 'blocked: ' + e.name; }
    try {
      // A "simple" request: no preflight, sent with the cookie; only the answer is opaque.
      const r = await fetch(api + '/api/v1/whatif', {
        method: 'POST', mode: 'no-cors', credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ leafService: 'x', leafOperation: 'y', policy: { kind: 'hedge' } }),
      });
      results.simplePost = 'sent, opaque=' + (r.type === 'opaque');
    } catch (e) { results.simplePost = 'blocked: ' + e.name; }
    try {
      const r = await fetch(api + '/api/v1/session', {
        method: 'POST', mode: 'no-cors', credentials: 'include',
        headers: { 'content-type': 'text/plain' }, body: '{"token":"guess-guess-guess-guess"}',
      });
      results.sessionPost = 'sent, opaque=' + (r.type === 'opaque');
    } catch (e) { results.sessionPost = 'blocked: ' + e.name; }
    window.__results = results;
  })();
  </script></body></html>`;
}

async function requestCount(route: string, method: string, status: string): Promise<number> {
  const res = await fetch(`${server().url}/metrics`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  let n = 0;
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('tailscope_http_request_duration_seconds_count{')) continue;
    if (
      line.includes(`route="${route}"`) &&
      line.includes(`method="${method}"`) &&
      line.includes(`status_code="${status}"`)
    )
      n += Number(line.split(' ').at(-1));
  }
  return n;
}

const haveBrowser = existsSync(CHROMIUM);

describe.skipIf(!haveBrowser && !process.env.CI)('access control in the browser', () => {
  beforeAll(async () => {
    ensureBuilt();
    started.server = await startServer({ apiToken: TOKEN });
    await sendScenario(server(), 'sick-host', { requests: 300, seed: 5 });
    started.attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(attackerPage(server().url));
    });
    await new Promise<void>((resolve) => started.attacker?.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(started.attacker.address() as AddressInfo).port}/`;
    started.browser = await launchBrowser();
    context = await started.browser.newContext({ viewport: { width: 1360, height: 900 } });
  });

  afterAll(async () => {
    await started.browser?.close();
    await new Promise<void>((resolve) => {
      if (started.attacker)
        started.attacker.close(() => {
          resolve();
        });
      else resolve();
    });
    await started.server?.close();
  });

  it('asks for the token once, then every page loads', async () => {
    const page = await context.newPage();
    // The Content-Security-Policy allows no inline script or style: the app must not need any.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) violations.push(m.text());
    });
    await page.goto(server().url);
    const form = page.getByRole('form', { name: 'Log in' });
    await form.waitFor({ timeout: 20_000 });
    await page.locator('input[name="token"]').fill('wrong-token-0123456789abcdef');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/TAILSCOPE_API_TOKENS/);
    await page.locator('input[name="token"]').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('[data-chart]').first().waitFor({ timeout: 30_000 });

    const cookie = (await context.cookies(server().url)).find(
      (c) => c.name === 'tailscope_session',
    );
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // HttpOnly: the page's own scripts cannot read the token.
    expect(await page.evaluate(() => document.cookie)).not.toContain(TOKEN);

    for (const path of ['/fanouts', '/stragglers']) {
      await page.goto(`${server().url}${path}`);
      await page.locator('[data-chart]').first().waitFor({ timeout: 30_000 });
      expect(await page.locator('form[aria-label="Log in"]').count(), path).toBe(0);
    }
    await page.goto(`${server().url}/whatif`);
    await page.locator('[data-chart]').first().waitFor({ timeout: 30_000 });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('lets a page of another origin neither read answers nor change anything', async () => {
    const refusedBefore = await requestCount('/api/v1/whatif', 'POST', '403');
    // The dashboard's own what-if answers (the test above opened its page) are not the attacker's.
    const answeredBefore = await requestCount('/api/v1/whatif', 'POST', '200');
    const sessionRefusedBefore = await requestCount('/api/v1/session', 'POST', '403');
    const readRefusedBefore = await requestCount('/api/v1/stats', 'GET', '401');
    const page = await context.newPage();
    await page.goto(attackerUrl);
    await page.waitForFunction(
      () => (window as { __results?: unknown }).__results !== undefined,
      undefined,
      {
        timeout: 20_000,
      },
    );
    const results = await page.evaluate(
      () => (window as unknown as { __results: Record<string, string> }).__results,
    );
    // CORS is off: a credentialed read fails, and a JSON POST never passes its preflight.
    expect(results.read).toMatch(/^blocked: TypeError/);
    expect(results.corsPost).toMatch(/^blocked: TypeError/);
    // The simple POSTs reach the server (same site: with the cookie) and are refused there
    // (403); the answer is not even opaque to the page: Cross-Origin-Resource-Policy blocks it.
    expect(results.simplePost).toMatch(/^blocked: TypeError|^sent, opaque=true$/);
    expect(results.sessionPost).toMatch(/^blocked: TypeError|^sent, opaque=true$/);
    expect(await requestCount('/api/v1/whatif', 'POST', '403')).toBe(refusedBefore + 1);
    expect(await requestCount('/api/v1/whatif', 'POST', '200')).toBe(answeredBefore);
    expect(await requestCount('/api/v1/session', 'POST', '403')).toBe(sessionRefusedBefore + 1);
    // Even the read the browser would not have shown it is refused: the cookie came from a page
    // of another origin (Sec-Fetch-Site), not from the dashboard.
    expect(await requestCount('/api/v1/stats', 'GET', '401')).toBe(readRefusedBefore + 1);
    await page.close();

    // The dashboard's session survived all that.
    const dash = await context.newPage();
    await dash.goto(`${server().url}/fanouts`);
    await dash.locator('[data-chart]').first().waitFor({ timeout: 30_000 });
    await dash.close();
  });

  it('logs out: the cookie is cleared and the form is back, also after a reload', async () => {
    const page = await context.newPage();
    await page.goto(`${server().url}/fanouts`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('form', { name: 'Log in' }).waitFor({ timeout: 20_000 });
    const cookies = await context.cookies(server().url);
    expect(cookies.find((c) => c.name === 'tailscope_session')).toBeUndefined();
    await page.reload();
    await page.getByRole('form', { name: 'Log in' }).waitFor({ timeout: 20_000 });
    await page.close();
  });
});
