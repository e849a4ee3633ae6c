// CPU and wall time of one step, for the what-if benchmarks. CPU time is this process's (user +
// system, every thread of it): on a shared machine wall time also counts waiting for a core.

import { readFileSync } from 'node:fs';

export interface Timing {
  cpu: number;
  wall: number;
}

/** Runs `f` and returns its result with the time it took, ms. */
export function timed<T>(f: () => T): [T, Timing] {
  const c = process.cpuUsage();
  const a = performance.now();
  const r = f();
  const wall = performance.now() - a;
  const d = process.cpuUsage(c);
  return [r, { cpu: (d.user + d.system) / 1000, wall }];
}

/** timed for a promise: the time until it settles. */
export async function timedAsync<T>(f: () => T | Promise<T>): Promise<[T, Timing]> {
  const c = process.cpuUsage();
  const a = performance.now();
  const r = await f();
  const wall = performance.now() - a;
  const d = process.cpuUsage(c);
  return [r, { cpu: (d.user + d.system) / 1000, wall }];
}

/**
 * CPU time of this process's main thread so far, ms, from Linux's /proc (10 ms ticks: USER_HZ
 * is 100 on every Linux build we run); undefined elsewhere. process.cpuUsage counts every
 * thread: this is the calling thread's serial part of a threaded answer alone, which a
 * busy shared machine moves far less than wall time.
 */
export function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(
      `/proc/${String(process.pid)}/task/${String(process.pid)}/stat`,
      'utf8',
    );
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined;
  }
}
