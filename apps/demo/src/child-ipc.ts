import { readFileSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import {
  CHILD_CONFIG_ENV,
  type ChildConfig,
  type ChildMessage,
  type SupervisorMessage,
} from './messages';

/** The configuration the supervisor put in the environment, checked for the expected kind. */
export function readChildConfig<K extends ChildConfig['kind']>(
  kind: K,
): Extract<ChildConfig, { kind: K }> {
  const raw = process.env[CHILD_CONFIG_ENV];
  if (raw === undefined)
    throw new Error(`${CHILD_CONFIG_ENV} is not set: start me through the demo`);
  const config = JSON.parse(raw) as ChildConfig;
  if (config.kind !== kind) throw new Error(`expected a ${kind} config, got ${config.kind}`);
  return config as Extract<ChildConfig, { kind: K }>;
}

export function send(msg: ChildMessage): void {
  if (process.send && process.connected) process.send(msg);
}

/**
 * Runs `stop` once when the supervisor says so, when it goes away (IPC closed: it died, so we must
 * not linger as orphans), or on SIGTERM/SIGINT; exits after at most `graceMs` whatever happens.
 */
export function onStop(stop: () => Promise<void>, graceMs = 4000): void {
  let stopping = false;
  const run = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), graceMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('message', (msg: SupervisorMessage) => {
    if (msg.type === 'stop') run();
  });
  process.on('disconnect', run);
  process.on('SIGTERM', run);
  process.on('SIGINT', run);
}

/**
 * Gives this process's autogroup the niceness `nice` gave the process. Each child runs in its own
 * session, and with the kernel's autogroup scheduling (sched_autogroup_enabled=1) CPU is shared
 * between sessions first: a task's own nice then only ranks it inside its session, and a nice-10
 * leaf in a session of its own would compete with the hog as an equal. Without autogroups (or
 * without /proc, or when raising priority is not allowed) this does nothing.
 */
export function alignAutogroupNice(): void {
  const path = '/proc/self/autogroup';
  try {
    const nice = getPriority();
    const current = /nice\s+(-?\d+)/.exec(readFileSync(path, 'utf8'))?.[1];
    if (current !== undefined && Number(current) !== nice) writeFileSync(path, String(nice));
  } catch {
    // No autogroups here: the task's own nice is what the scheduler uses.
  }
}
