import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoreApi, type Api } from '../src/server/app';
import { loadSettings } from '../src/config';
import type { Store } from '../src/store';
import { API_TOKEN } from './access-support';
import { openTempStore } from './analysis-support';

/**
 * What every answer tells the browser, and the checks in front of the routes: security headers
 * on API, static and error answers; the Host check against DNS rebinding; cross-origin requests
 * that change something refused; CORS off unless origins are configured. The real API over a
 * real (empty) store, through Fastify's inject, which lets the test set Host and Origin.
 */

let store: Store;
let close: () => Promise<void>;
const apis: Api[] = [];

async function api(env: Record<string, string> = {}): Promise<Api> {
  const a = await buildStoreApi(store, loadSettings(env));
  apis.push(a);
  return a;
}

beforeAll(async () => {
  ({ store, close } = await openTempStore('access-headers'));
});
afterAll(async () => {
  for (const a of apis) await a.close();
  await close();
});

const HOST = { host: '127.0.0.1:8080' };

describe('security headers', () => {
  it('are on API answers, the dashboard, and errors alike', async () => {
    const a = await api();
    const answers = [
      await a.inject({ url: '/api/v1/stats', headers: HOST }),
      await a.inject({ url: '/', headers: HOST }),
      await a.inject({ url: '/fanouts', headers: HOST }),
      await a.inject({ url: '/api/v1/nope', headers: HOST }),
      await a.inject({ url: '/api/v1/fanouts?from=x', headers: HOST }),
      await a.inject({ url: '/api/v1/stats', headers: { host: 'evil.example' } }),
      await a.inject({ url: '/metrics', headers: HOST }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([
      200,
      expect.any(Number),
      expect.any(Number),
      404,
      400,
      421,
      200,
    ]);
    for (const res of answers) {
      const where = `${res.statusCode} ${res.body.slice(0, 80)}`;
      const csp = String(res.headers['content-security-policy']);
      expect(csp, where).toContain("frame-ancestors 'none'");
      expect(csp, where).toContain("script-src 'self'");
      expect(csp, where).not.toContain('unsafe-inline');
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
      expect(res.headers['referrer-policy'], where).toBe('no-referrer');
      expect(res.headers['x-frame-options'], where).toBe('DENY');
      // Plain HTTP: no HSTS (it would pin localhost to HTTPS).
      expect(res.headers['strict-transport-security'], where).toBeUndefined();
    }
  });
});

describe('the Host check', () => {
  it('refuses a rebinding name and accepts loopback names and IP literals', async () => {
    const a = await api();
    const status = async (host: string) =>
      (await a.inject({ url: '/api/v1/stats', headers: { host } })).statusCode;
    const refused = await a.inject({
      url: '/api/v1/stats',
      headers: { host: 'attacker.example:8080' },
    });
    expect(refused.statusCode).toBe(421);
    expect(refused.json<{ error: string }>().error).toMatch(
      /DNS rebinding.*TAILSCOPE_ALLOWED_HOSTS/,
    );
    expect(await status('rebind.127.0.0.1.nip.io')).toBe(421);
    for (const host of [
      '127.0.0.1:8080',
      'localhost:8080',
      '[::1]:8080',
      '10.1.2.3:8080',
      'localhost',
    ])
      expect(await status(host), host).toBe(200);
  });

  it('accepts names listed in TAILSCOPE_ALLOWED_HOSTS', async () => {
    const a = await api({ TAILSCOPE_ALLOWED_HOSTS: 'tailscope.internal, traces.example.com' });
    const status = async (host: string) =>
      (await a.inject({ url: '/api/v1/stats', headers: { host } })).statusCode;
    expect(await status('tailscope.internal:8080')).toBe(200);
    expect(await status('TRACES.example.com')).toBe(200);
    expect(await status('evil.example')).toBe(421);
  });

  it('with API tokens and no list, leaves names to the token (a rebound page has none)', async () => {
    const a = await api({ TAILSCOPE_API_TOKENS: API_TOKEN });
    const res = await a.inject({ url: '/api/v1/stats', headers: { host: 'tailscope.corp:8080' } });
    expect(res.statusCode).toBe(401);
    const ok = await a.inject({
      url: '/api/v1/stats',
      headers: { host: 'tailscope.corp:8080', authorization: `Bearer ${API_TOKEN}` },
    });
    expect(ok.statusCode).toBe(200);
  });
});

describe('cross-origin requests', () => {
  const whatif = (origin: string | undefined) => ({
    method: 'POST' as const,
    url: '/api/v1/whatif',
    headers: { ...HOST, ...(origin ? { origin } : {}), 'content-type': 'application/json' },
    payload: { leafService: 'kv', leafOperation: 'get', policy: { kind: 'hedge' } },
  });

  it('refuses a POST from another origin, also another port of the same host', async () => {
    const a = await api();
    for (const origin of ['http://evil.example', 'http://127.0.0.1:9999', 'null']) {
      const res = await a.inject(whatif(origin));
      expect(res.statusCode, origin).toBe(403);
      expect(res.json<{ error: string }>().error).toMatch(/cross-origin POST .* refused/);
    }
    // Same origin, and no Origin at all (curl, the CLI): the route answers (404: no data).
    expect((await a.inject(whatif('http://127.0.0.1:8080'))).statusCode).toBe(404);
    expect((await a.inject(whatif(undefined))).statusCode).toBe(404);
  });

  it('has CORS off by default: no Access-Control headers, preflight not granted', async () => {
    const a = await api();
    const get = await a.inject({
      url: '/api/v1/stats',
      headers: { ...HOST, origin: 'http://app.example' },
    });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await a.inject({
      method: 'OPTIONS',
      url: '/api/v1/whatif',
      headers: {
        ...HOST,
        origin: 'http://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('grants the configured origins only, with the bearer header', async () => {
    const a = await api({
      TAILSCOPE_CORS_ORIGINS: 'http://app.example,https://grafana.example:3000',
    });
    const get = (origin: string) =>
      a.inject({ url: '/api/v1/stats', headers: { ...HOST, origin } });
    expect((await get('http://app.example')).headers['access-control-allow-origin']).toBe(
      'http://app.example',
    );
    expect(
      (await get('http://evil.example')).headers['access-control-allow-origin'],
    ).toBeUndefined();
    const preflight = await a.inject({
      method: 'OPTIONS',
      url: '/api/v1/whatif',
      headers: {
        ...HOST,
        origin: 'https://grafana.example:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://grafana.example:3000');
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/Authorization/);
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    // A configured origin may POST (the Origin check lets it through).
    expect((await a.inject(whatif('http://app.example'))).statusCode).toBe(404);
  });
});
