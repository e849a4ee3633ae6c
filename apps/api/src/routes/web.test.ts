import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiContext } from './context';
import { webRoutesFrom } from './web';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function appWith(files: Record<string, string>) {
  const dist = mkdtempSync(join(tmpdir(), 'tailscope-web-'));
  dirs.push(dist);
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(dist, name, '..'), { recursive: true });
    writeFileSync(join(dist, name), body);
  }
  const app = Fastify();
  // The web routes never touch the context; an empty one proves it.
  await webRoutesFrom(dist)(app, {} as ApiContext);
  app.get('/api/v1/stats', () => ({ spans: 0 }));
  await app.ready();
  return app;
}

describe('web routes', () => {
  it('serves files, and index.html for client-side routes on reload', async () => {
    const app = await appWith({
      'index.html': '<div id="root"></div>',
      'assets/index-abc123.js': 'console.log(1)',
    });
    const js = await app.inject('/assets/index-abc123.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['cache-control']).toContain('immutable');
    for (const path of ['/', '/fanouts?range=1h', '/traces/0af7651916cd43dd8448eb211c80319c']) {
      const page = await app.inject(path);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('id="root"');
      expect(page.headers['cache-control']).toBe('no-cache');
    }
    await app.close();
  });

  it('keeps API paths and missing assets out of the fallback', async () => {
    const app = await appWith({ 'index.html': '<div id="root"></div>' });
    expect((await app.inject('/api/v1/stats')).json()).toEqual({ spans: 0 });
    const api = await app.inject('/api/v1/nope');
    expect(api.statusCode).toBe(404);
    const body: { statusCode: number; error: string } = api.json();
    expect(body.statusCode).toBe(404);
    expect(body.error).toContain('/api/v1/nope');
    expect((await app.inject('/assets/gone-123.js')).statusCode).toBe(404);
    expect((await app.inject('/../../etc/passwd')).body).not.toContain('root:');
    await app.close();
  });

  it('says how to build the dashboard when dist is missing', async () => {
    const app = await appWith({});
    const res = await app.inject('/stragglers');
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build:web');
    await app.close();
  });
});
