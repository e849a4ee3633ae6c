import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `tailscope demo` starts itself again in a session of its own so its server's scheduling group
// is its own (own-session.ts): the real CLI as processes. The group runs at
// TAILSCOPE_ENGINE_NICE, and killing the process that was started (as a terminal closing would)
// leaves nothing behind.

const BIN = resolve(import.meta.dirname, '../bin/tailscope.js');
const TAG = `own-session-test-${randomUUID()}`;
const dir = mkdtempSync(join(tmpdir(), 'tailscope-own-session-'));
const linux = process.platform === 'linux';

/** Our processes (the tag is in their environment): pid, session id, autogroup line. */
function tagged(): { pid: number; session: number; autogroup: string }[] {
  const found: { pid: number; session: number; autogroup: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').includes(TAG)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
      found.push({
        pid: Number(entry),
        session,
        autogroup: readFileSync(`/proc/${entry}/autogroup`, 'utf8').trim(),
      });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

const until = async (what: string, ok: () => boolean, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

afterAll(() => {
  for (const p of tagged()) process.kill(p.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(linux)('tailscope demo in a session of its own', () => {
  it('runs its server in its own scheduling group and stops when the terminal process dies', async () => {
    const args = [BIN, 'demo', '--duration', '600', '--warmup-max-s', '0', '--rate', '5'];
    args.push('--data-dir', dir, '--port', '0', '--otlp-http-port', '0', '--otlp-grpc-port', '0');
    // Nice 1: the group is the server's own without starving it beside the rest of the suite.
    const launcher = spawn(process.execPath, args, {
      env: { ...process.env, TAILSCOPE_DEMO_TEST_TAG: TAG, TAILSCOPE_ENGINE_NICE: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    launcher.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await until('the cluster', () => out.includes('fan-outs/s to'), 90_000);
    const leader = tagged().find((p) => p.session === p.pid && p.autogroup.endsWith('nice 1'));
    expect(out).toContain("its session's autogroup runs at nice 1");
    expect(leader).toBeDefined();
    expect(leader?.pid).not.toBe(launcher.pid);
    // The launcher relays: its own session is the test's.
    expect(tagged().find((p) => p.pid === launcher.pid)?.session).not.toBe(launcher.pid);
    launcher.kill('SIGKILL');
    await until('every demo process to stop', () => tagged().length === 0, 60_000);
    expect(out).not.toContain('demo: done.');
  }, 180_000);
});
