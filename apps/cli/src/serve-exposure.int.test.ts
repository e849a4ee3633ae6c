import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `tailscope serve` on a non-loopback address: refused without tokens (exit 1, saying why and
 * what to do), started with --insecure, TAILSCOPE_INSECURE=1, or both token lists. The servers
 * started here listen on 0.0.0.0 for a moment on ephemeral ports; only loopback is ever called.
 */

const BIN = fileURLToPath(new URL('../bin/tailscope.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tailscope-exposure-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const TOKENS = {
  TAILSCOPE_API_TOKENS: 'api-token-0123456789abcdef',
  TAILSCOPE_INGEST_TOKENS: 'ingest-token-0123456789abcdef',
};

/** Runs serve until it prints its API address (then SIGTERM) or exits by itself. */
function runServe(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
  started: boolean;
  healthz?: number;
}> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--data-dir',
      join(dir, name),
      '--port',
      '0',
      '--otlp-http-port',
      '0',
      '--otlp-grpc-port',
      '0',
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TAILSCOPE_INSECURE: '', TAILSCOPE_API_TOKENS: '', ...env },
    },
  );
  let stdout = '';
  let stderr = '';
  let started = false;
  let healthz: number | undefined;
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    const api = /API and UI https?:\/\/[^:]+:(\d+)/.exec(stdout);
    if (!started && api) {
      started = true;
      // Asked over loopback only. Once it answers, the CLI has its signal handlers in place.
      void fetch(`http://127.0.0.1:${api[1] ?? ''}/healthz`)
        .then((res) => (healthz = res.status))
        .catch(() => undefined)
        .finally(() => child.kill('SIGTERM'));
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, started, ...(healthz !== undefined ? { healthz } : {}) });
    });
  });
}

describe('tailscope serve beyond loopback', () => {
  it('refuses 0.0.0.0 without tokens, naming what is missing and what to do', async () => {
    const r = await runServe('refused', ['--host', '0.0.0.0']);
    expect(r.started).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /refusing to listen on 0\.0\.0\.0 without TAILSCOPE_API_TOKENS and TAILSCOPE_INGEST_TOKENS/,
    );
    expect(r.stderr).toMatch(/--insecure/);
    expect(r.stderr).toMatch(/--host 127\.0\.0\.1/);
  });

  it('refuses it with only the API tokens: ingest would be open', async () => {
    const r = await runServe('half', ['--host', '0.0.0.0'], {
      TAILSCOPE_API_TOKENS: TOKENS.TAILSCOPE_API_TOKENS,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/without TAILSCOPE_INGEST_TOKENS:/);
  });

  it('starts with --insecure, with TAILSCOPE_INSECURE=1, and with both token lists', async () => {
    for (const [name, args, env] of [
      ['flag', ['--host', '0.0.0.0', '--insecure'], {}],
      ['env', ['--host', '0.0.0.0'], { TAILSCOPE_INSECURE: '1' }],
      ['tokens', ['--host', '0.0.0.0'], TOKENS],
    ] as const) {
      const r = await runServe(name, [...args], env);
      expect(r.started, `${name}: ${r.stderr}`).toBe(true);
      expect(r.stdout).toMatch(/API and UI http:\/\/0\.0\.0\.0:\d+/);
      expect(r.healthz, name).toBe(200);
      expect(r.code, name).toBe(0);
    }
  });

  it('does not take TAILSCOPE_INSECURE=0 for yes', async () => {
    const r = await runServe('zero', ['--host', '0.0.0.0'], { TAILSCOPE_INSECURE: '0' });
    expect(r.code).toBe(1);
  });

  it('lists --insecure in serve --help', async () => {
    const help = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--help'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', () => {
        resolve(out);
      });
    });
    expect(help).toMatch(/--insecure\s+listen on a non-loopback --host without/);
  });
});
