import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Nice of the server's scheduling group. Linux's autogroup scheduler (on when
 * /proc/sys/kernel/sched_autogroup_enabled is 1) shares the CPU between sessions first and
 * between threads of a session only after: the engine's threads at nice 10 (engine-nice.ts) still
 * took a whole session's share against the watched services (bench:demo-impact, issue 24). A
 * session's share is set by its autogroup nice (/proc/self/autogroup takes "N").
 *
 * Only when the server leads its own session (the demo starts it so, or `setsid tailscope
 * serve`) is that group the server's alone. Otherwise it is the group of the shell or service
 * manager that started it, and writing it would renice them: then nothing is written.
 */
export interface AutogroupNice {
  nice: number;
  applied: boolean;
  /** Why nothing was written, when nothing was. */
  skipped?: string;
}

/** Where the kernel says it (tests point these at files of their own). */
export interface AutogroupPaths {
  stat: string;
  autogroup: string;
  enabled: string;
}

const PROC: AutogroupPaths = {
  stat: '/proc/self/stat',
  autogroup: '/proc/self/autogroup',
  enabled: '/proc/sys/kernel/sched_autogroup_enabled',
};

/**
 * The session id in a /proc/<pid>/stat line (field 6). The command name (field 2) is in
 * parentheses and may hold spaces and parentheses itself, so fields are counted after the last
 * ')'. NaN when the line is not one.
 */
export function sessionOfStat(stat: string): number {
  const rest = stat
    .slice(stat.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  // state, ppid, pgrp, session
  return rest.length >= 4 ? Number(rest[3]) : Number.NaN;
}

/**
 * Sets the autogroup nice of this process's session to `nice` when the process leads that
 * session (pid equals session id) and autogroups are on; says why not otherwise.
 */
export function niceOwnAutogroup(
  nice: number,
  pid = process.pid,
  paths: AutogroupPaths = PROC,
): AutogroupNice {
  const skip = (skipped: string): AutogroupNice => ({ nice, applied: false, skipped });
  if (nice === 0) return skip('TAILSCOPE_ENGINE_NICE=0');
  if (process.platform !== 'linux' && paths === PROC) return skip('autogroups are Linux only');
  let session: number;
  let enabled: string;
  try {
    session = sessionOfStat(readFileSync(paths.stat, 'utf8'));
    enabled = readFileSync(paths.enabled, 'utf8').trim();
  } catch {
    return skip('no autogroup information in /proc');
  }
  if (session !== pid)
    return skip('not the leader of its own session (its autogroup is its parent session’s)');
  if (enabled !== '1') return skip('autogroup scheduling is off');
  try {
    writeFileSync(paths.autogroup, String(nice));
  } catch (err) {
    return skip(`the autogroup refused nice ${nice}: ${(err as Error).message}`);
  }
  return { nice, applied: true };
}

/**
 * Back to nice 0, for stopping: draining the write queue and the last queries at a small share
 * of a busy machine took minutes. Only after niceOwnAutogroup applied (the group is the
 * server's own); raising a priority back to 0 needs no privilege.
 */
export function restoreOwnAutogroup(applied: AutogroupNice, paths: AutogroupPaths = PROC): void {
  if (!applied.applied) return;
  try {
    writeFileSync(paths.autogroup, '0');
  } catch {
    // Stopping anyway.
  }
}
