import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { engineNiceFromEnv, sessionOfStat } from '@tailscope/api';

/**
 * `tailscope demo` runs the server beside the cluster it watches, on the same cores. Linux's
 * autogroup scheduler shares the CPU between sessions first, so the server yields to the
 * cluster only when its own session's autogroup runs at TAILSCOPE_ENGINE_NICE, and the server
 * sets that only when it leads its own session (apps/api session-nice.ts): started from a shell
 * it does not, and its pages pushed the cluster's p99 up by x3.4 (bench:demo-impact, issue 24).
 * So the demo starts itself again in a session of its own, the way it starts each cluster
 * process (a VM of its own), and this process only relays: its output is the child's, Ctrl-C
 * and SIGTERM are passed on, its exit code is the child's, and the child stops when this
 * process goes away (the IPC channel closes), so nothing is left behind.
 */

/** Set in the demo's own-session child. */
export const OWN_SESSION_ENV = 'TAILSCOPE_DEMO_OWN_SESSION';

/** Why the demo runs where it was started (null: it starts itself in a session of its own). */
export function stayReason(
  env: NodeJS.ProcessEnv,
  opts: { serves: boolean; platform?: NodeJS.Platform; pid?: number; proc?: (p: string) => string },
): string | null {
  const read = opts.proc ?? ((p: string) => readFileSync(p, 'utf8'));
  if (!opts.serves) return 'no server (--otlp)';
  if (env[OWN_SESSION_ENV] === '1') return 'already in its own session';
  if ((opts.platform ?? process.platform) !== 'linux') return 'autogroups are Linux only';
  if (engineNiceFromEnv(env) === 0) return 'TAILSCOPE_ENGINE_NICE=0';
  try {
    if (read('/proc/sys/kernel/sched_autogroup_enabled').trim() !== '1')
      return 'autogroup scheduling is off';
    if (sessionOfStat(read('/proc/self/stat')) === (opts.pid ?? process.pid))
      return 'it leads its session already';
  } catch {
    return 'no autogroup information in /proc';
  }
  return null;
}

/**
 * Runs this command again in a session of its own and relays to it until it exits; resolves
 * with its exit code.
 */
export function relaunchInOwnSession(): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, [OWN_SESSION_ENV]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      child.kill(signal);
    });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      resolve(code ?? (signal === null ? 1 : 128 + signalNumber(signal)));
    });
  });
}

const signalNumber = (s: NodeJS.Signals): number => (s === 'SIGINT' ? 2 : s === 'SIGKILL' ? 9 : 15);

/** In the own-session child: stops the demo when the process that started it goes away. */
export function stopWithLauncher(stop: (why: string) => Promise<void>): void {
  if (process.env[OWN_SESSION_ENV] !== '1' || !process.connected) return;
  process.once('disconnect', () => {
    stop('the terminal process went away').then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  // The channel must not keep this process alive on its own.
  process.channel?.unref();
}
