// Shared by the browser tests and the dev server script: a real Tailscope server on a temporary
// store with tracegen traffic sent over OTLP, a built dashboard, and Debian's Chromium.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
// The browser tests drive the dashboard against the real server: the one place apps/web uses
// another app, through its entry (.dependency-cruiser.cjs allows e2e/ only).
import { loadSettings, serve, type Running } from '@tailscope/api';

export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = join(WEB_ROOT, '..', '..');
export const ARTIFACTS = join(REPO_ROOT, 'artifacts', 'e2e');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Builds apps/web when dist is missing or older than its sources (the web app's, the charts'
 * and the analysis package's, which the worker bundles). Returns the build time, 0 when up to date.
 */
export function ensureBuilt(): number {
  const index = join(WEB_ROOT, 'dist', 'index.html');
  const sources = Math.max(
    newestMtime(join(WEB_ROOT, 'src')),
    statSync(join(WEB_ROOT, 'index.html')).mtimeMs,
    statSync(join(WEB_ROOT, 'vite.config.ts')).mtimeMs,
    newestMtime(join(REPO_ROOT, 'packages', 'charts', 'src')),
    newestMtime(join(REPO_ROOT, 'packages', 'analysis', 'src')),
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return 0;
  const t0 = performance.now();
  const vite = join(REPO_ROOT, 'node_modules', '.bin', 'vite');
  // NODE_ENV is 'test' under Vitest; a build must not inherit it (React would ship its dev build).
  const r = spawnSync(vite, ['build', '--logLevel', 'warn'], {
    cwd: WEB_ROOT,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error(`vite build failed (${r.status}): ${r.stderr || r.stdout}`);
  return performance.now() - t0;
}

export interface TestServer {
  url: string;
  otlpHttp: string;
  running: Running;
  /** Sent as a bearer token by the harness's own API calls (when the server has API tokens). */
  apiToken?: string;
  dataDir: string;
  /** Stops the server; its store is deleted unless `keep`. */
  close(keep?: boolean): Promise<void>;
}

/**
 * `tailscope serve` on a temporary store and ephemeral ports; `apiToken` sets TAILSCOPE_API_TOKENS.
 * `dataDir`: a store an earlier server left (that server closed with `keep`), else a new one.
 */
export async function startServer(
  opts: { apiToken?: string; dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tailscope-e2e-'));
  const settings = loadSettings(process.env, {
    dataDir,
    host: '127.0.0.1',
    port: '0',
    otlpHttpPort: '0',
    otlpGrpcPort: '0',
    ...(opts.apiToken !== undefined ? { apiTokens: opts.apiToken } : {}),
  });
  const running = await serve(settings);
  return {
    url: running.urls.api,
    otlpHttp: running.urls.otlpHttp,
    running,
    ...(opts.apiToken !== undefined ? { apiToken: opts.apiToken } : {}),
    dataDir,
    async close(keep = false) {
      await running.close();
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends a tracegen preset over OTLP/HTTP with the real CLI (`tailscope generate`, as a user
 * would), then waits for the ingest queue to reach the store.
 * `start` defaults to an hour ago, so the "last hour" presets see the data too.
 */
export async function sendScenario(
  server: TestServer,
  scenario: string,
  opts: { requests: number; seed?: number; start?: number },
): Promise<{ spans: number; ms: number }> {
  const t0 = performance.now();
  const cli = join(REPO_ROOT, 'apps', 'cli', 'bin', 'tailscope.js');
  const args = [
    cli,
    'generate',
    '--scenario',
    scenario,
    '--requests',
    String(opts.requests),
    '--seed',
    String(opts.seed ?? 7),
    '--start',
    String(Math.round(opts.start ?? Date.now() - 3_600_000)),
    '--otlp',
    `${server.otlpHttp}/v1/traces`,
  ];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`tailscope generate exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
  // Every span the receiver acknowledged is in the store once the write queue is flushed.
  await server.running.ingest.flush();
  // The store figures are kept up to 10 s (a server warming its answers reads them often).
  let spans = 0;
  for (const until = Date.now() + 20_000; !(spans > 0) && Date.now() < until;) {
    const res = await fetch(`${server.url}/api/v1/stats`, {
      headers: server.apiToken ? { Authorization: `Bearer ${server.apiToken}` } : {},
    });
    ({ spans } = (await res.json()) as { spans: number });
    if (!(spans > 0)) await new Promise((ok) => setTimeout(ok, 250));
  }
  if (!(spans > 0)) throw new Error('tailscope generate sent nothing to the store');
  return { spans, ms: performance.now() - t0 };
}

/** Debian's Chromium (apt-get install chromium), headless; Playwright's downloads are not used. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
